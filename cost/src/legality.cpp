// legality.cpp: a plan's constraints as named Z3 assertions; unsat cores name violations.
#include "tilesat/cost/legality.h"

#include "tilesat/cost/placement.h"
#include "tilesat/cost/planner.h"
#include "tilesat/graph/diagnostic.h"

#include <fmt/format.h>
#include <map>
#include <set>
#include <z3++.h>

namespace tilesat::cost {

namespace {

// Checks one batch of named constraints (the first is the device's); on unsat, adds every
// violated one to `out`: the unsat core names a conflicting subset, and each constraint is
// then checked on its own so the report lists every violation, not only the first the core
// found.
void check_batch(z3::solver& solver, const std::vector<std::pair<std::string, z3::expr>>& named,
                 std::map<std::string, std::string>& details, LegalityResult& out) {
  z3::expr_vector all(solver.ctx());
  for (const auto& [name, literal] : named) all.push_back(literal);
  if (solver.check(all) == z3::sat) return;
  out.legal = false;
  std::set<std::string> in_core;
  z3::expr_vector core = solver.unsat_core();
  for (unsigned i = 0; i < core.size(); ++i) in_core.insert(core[i].decl().name().str());
  const z3::expr& device = named.front().second;
  for (const auto& [name, literal] : named) {
    if (name == "device_usable_l1") continue;
    z3::expr_vector one(solver.ctx());
    one.push_back(device);
    one.push_back(literal);
    if (in_core.count(name) || solver.check(one) == z3::unsat)
      out.violations.push_back(Violation{name, details[name]});
  }
}

} // namespace

LegalityResult check_legality(const Plan& plan, const CostModel& model) {
  const Device& d = model.device();
  z3::context ctx;
  z3::solver solver(ctx);
  std::map<std::string, std::string> details;
  LegalityResult out;
  auto num = [&](int64_t v) { return ctx.int_val(static_cast<int64_t>(v)); };
  z3::expr usable = ctx.int_const("usable_l1");
  z3::expr_vector device_var(ctx), device_value(ctx);
  device_var.push_back(usable);
  device_value.push_back(num(d.usable_l1_bytes()));
  // Each named constraint hangs off its own Boolean: `name => constraint`. One that Z3's
  // simplifier proves from the device's numbers alone (most of them: a plan's numbers are
  // constants) needs no solver; the rest go to the solver in batches.
  std::vector<std::pair<std::string, z3::expr>> named;
  auto track = [&](const z3::expr& e, const std::string& name, std::string detail) {
    if (!named.empty() && z3::expr(e).substitute(device_var, device_value).simplify().is_true()) {
      ++out.constraints;
      return;
    }
    z3::expr literal = ctx.bool_const(name.c_str());
    solver.add(z3::implies(literal, e));
    named.emplace_back(name, literal);
    details[name] = std::move(detail);
    ++out.constraints;
  };
  const z3::expr device_fact = usable == num(d.usable_l1_bytes());
  track(device_fact, "device_usable_l1",
        fmt::format("{} - {} reserved = {} bytes", d.l1_bytes_per_core, d.l1_reserved_bytes,
                    d.usable_l1_bytes()));
  // The constraints are checked in batches, each with the device's: a plan's ops constrain
  // each other only through those numbers, so batches keep the check linear in the plan.
  constexpr size_t kBatch = 256;
  auto flush = [&] {
    if (named.size() > 1) check_batch(solver, named, details, out);
    solver.reset();
    solver.add(z3::implies(named.front().second, device_fact));
    named.erase(named.begin() + 1, named.end());
    const std::string device_detail = details["device_usable_l1"];
    details.clear();
    details["device_usable_l1"] = device_detail;
  };
  const std::vector<int64_t> live_bytes = live_l1_bytes(plan, model);
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    if (named.size() > kBatch) flush();
    const PlannedOp& op = plan.ops[i];
    std::string at = fmt::format("{}#{}", op.name, i);
    int64_t live = live_bytes[i];
    track(num(live) + num(op.l1_bytes_per_core) <= usable, "l1@" + at,
          fmt::format("{} bytes of live L1 tensors + {} bytes of circular buffers and operands "
                      "= {} > {} usable per core",
                      live, op.l1_bytes_per_core, live + op.l1_bytes_per_core,
                      d.usable_l1_bytes()));
    track(num(op.circular_buffers) <= num(d.max_circular_buffers), "cbs@" + at,
          fmt::format("{} circular buffers > {} allowed", op.circular_buffers,
                      d.max_circular_buffers));
    if (op.blocking) {
      const MatmulBlocking& b = *op.blocking;
      z3::expr h = num(b.out_subblock_h), w = num(b.out_subblock_w);
      track(h * w <= num(d.dst_tiles), "dst@" + at,
            fmt::format("sub-block {}x{} = {} tiles > {} DST tiles", b.out_subblock_h,
                        b.out_subblock_w, b.out_subblock_h * b.out_subblock_w, d.dst_tiles));
      z3::expr oh = num(b.out_block_h), ow = num(b.out_block_w);
      track(oh >= 1 && ow >= 1 && z3::mod(num(b.per_core_m), oh) == 0 &&
                z3::mod(num(b.per_core_n), ow) == 0,
            "out_block_divides@" + at,
            fmt::format("output block {}x{} does not divide the per-core block {}x{}",
                        b.out_block_h, b.out_block_w, b.per_core_m, b.per_core_n));
      track(z3::mod(oh, h) == 0 && z3::mod(ow, w) == 0, "blocking_divides@" + at,
            fmt::format("sub-block {}x{} does not divide the output block {}x{}", b.out_subblock_h,
                        b.out_subblock_w, b.out_block_h, b.out_block_w));
    }
  }
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const Placement& p = plan.values[v].placement;
    if (p.memory == MemoryLayout::Interleaved) continue;
    if (named.size() > kBatch) flush();
    std::string at = fmt::format("v{}", v);
    const TensorType& type = plan.graph.node(plan.values[v].node).type;
    auto t = CostModel::tiles_2d(type.shape);
    track(num(p.grid.rows) <= num(d.grid_usable.rows) &&
              num(p.grid.cols) <= num(d.grid_usable.cols),
          "shard_fits@" + at,
          fmt::format("shard grid {}x{} exceeds the usable grid {}x{}", p.grid.rows, p.grid.cols,
                      d.grid_usable.rows, d.grid_usable.cols));
    // Height sharding deals row shards to the grid's cores in row-major order, width sharding
    // column shards (the last shard may be short, the grid's last row may be part-filled);
    // block sharding one block per core.
    if (p.memory == MemoryLayout::BlockSharded) {
      track(num(p.shard_shape[0]) * num(p.grid.rows) == num(t[0] * 32) &&
                num(p.shard_shape[1]) * num(p.grid.cols) == num(t[1] * 32),
            "shard_divides@" + at,
            fmt::format("shards {}x{} on {}x{} cores do not tile the padded {}x{} tensor",
                        p.shard_shape[0], p.shard_shape[1], p.grid.rows, p.grid.cols, t[0] * 32,
                        t[1] * 32));
    } else {
      const bool height = p.memory == MemoryLayout::HeightSharded;
      const int64_t along = (height ? t[0] : t[1]) * 32, across = (height ? t[1] : t[0]) * 32;
      const int64_t shard_along = p.shard_shape[height ? 0 : 1];
      const int64_t shard_across = p.shard_shape[height ? 1 : 0];
      track(num(shard_across) == num(across) &&
                num(shard_along) * num(p.grid.cores()) >= num(along) && num(shard_along) > 0,
            "shard_divides@" + at,
            fmt::format("{} shards {}x{} on {} cores do not cover the padded {}x{} tensor",
                        height ? "height" : "width", p.shard_shape[0], p.shard_shape[1],
                        p.grid.cores(), t[0] * 32, t[1] * 32));
    }
    track(z3::mod(num(p.shard_shape[0]), 32) == 0 && z3::mod(num(p.shard_shape[1]), 32) == 0,
          "tile_aligned@" + at,
          fmt::format("shard {}x{} is not a whole number of 32x32 tiles", p.shard_shape[0],
                      p.shard_shape[1]));
  }
  flush();
  return out;
}

void require_legal(const Plan& plan, const CostModel& model) {
  LegalityResult r = check_legality(plan, model);
  if (r.legal) return;
  std::string text;
  for (const Violation& v : r.violations) text += fmt::format("\n  {}: {}", v.name, v.detail);
  throw Error(
      fmt::format("illegal plan for device '{}': violated constraints:{}", plan.device, text));
}

} // namespace tilesat::cost
