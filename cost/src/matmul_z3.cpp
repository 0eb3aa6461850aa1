// matmul_z3.cpp: a matmul's grid and blocking as a Z3 Optimize problem (the cost model's
// matmul estimate, op_cost.cpp, written as constraints).
#include "tilesat/cost/matmul_z3.h"

#include "ceil_div.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <z3++.h>

namespace tilesat::cost {
namespace {

std::optional<MatmulChoice> solve(const MatmulConfig& m, const Device& d, GridFreedom freedom) {
  // As in CostModel::matmul: an empty matmul is priced as one tile.
  const int64_t mt = std::max<int64_t>(ceil_div(m.m, 32), 1),
                kt = std::max<int64_t>(ceil_div(m.k, 32), 1),
                nt = std::max<int64_t>(ceil_div(m.n, 32), 1);
  const int64_t rows = std::max<uint32_t>(d.grid_usable.rows, 1);
  const int64_t cols = std::max<uint32_t>(d.grid_usable.cols, 1);
  const int64_t dst = std::max<int64_t>(d.dst_tiles / 2 / (m.fp32_accumulate ? 2 : 1), 1);
  // One context per thread, renewed every 32 problems: making one costs about as much as
  // solving (about 40 ms) and a model asks for a hundred distinct matmuls; renewed every 32,
  // it costs about a millisecond a problem, and what a context's allocator keeps of its
  // problems stays bounded.
  thread_local std::unique_ptr<z3::context> kept;
  thread_local unsigned solved = 0;
  if (!kept || solved++ % 32 == 0) kept = std::make_unique<z3::context>();
  z3::context& ctx = *kept;
  z3::params p(ctx);
  p.set("timeout", 10000u);
  z3::optimize opt(ctx);
  opt.set(p);
  auto num = [&](int64_t v) { return ctx.int_val(static_cast<int64_t>(v)); };
  // Every product below has one factor with a small domain (grid rows or columns, sub-block
  // sides, the inner block): it is written as a case split over that factor, which keeps
  // the problem in linear integer arithmetic (Z3's optimizer is exact there).
  struct Small {
    z3::expr var;
    int64_t lo, hi;
  };
  auto small = [&](const char* name, int64_t lo, int64_t hi) {
    Small s{ctx.int_const(name), lo, hi};
    opt.add(s.var >= num(lo) && s.var <= num(hi));
    return s;
  };
  auto by_case = [&](const Small& s, const auto& value) {
    z3::expr e = value(s.hi);
    for (int64_t k = s.hi - 1; k >= s.lo; --k) e = z3::ite(s.var == num(k), value(k), e);
    return e;
  };
  // Grid rows r and columns c asked for: each core computes a per_core_m x per_core_n block
  // (ceil(Mt / r) x ceil(Nt / c) output tiles), on ceil(Mt / per_core_m) rows used.
  int64_t r_lo = 1, r_hi = rows, c_lo = 1, c_hi = cols;
  if (freedom == GridFreedom::Fixed) {
    r_lo = r_hi = std::clamp<int64_t>(m.grid.rows, 1, rows);
    c_lo = c_hi = std::clamp<int64_t>(m.grid.cols, 1, cols);
  }
  Small r = small("grid_rows", r_lo, r_hi), c = small("grid_cols", c_lo, c_hi);
  auto per_m = [&](int64_t k) { return ceil_div(mt, k); };
  auto per_n = [&](int64_t k) { return ceil_div(nt, k); };
  z3::expr pm = by_case(r, [&](int64_t k) { return num(per_m(k)); });
  z3::expr pn = by_case(c, [&](int64_t k) { return num(per_n(k)); });
  z3::expr ru = by_case(r, [&](int64_t k) { return num(ceil_div(mt, per_m(k))); });
  z3::expr cu = by_case(c, [&](int64_t k) { return num(ceil_div(nt, per_n(k))); });
  auto pm_times = [&](const z3::expr& x) {
    return by_case(r, [&](int64_t k) { return num(per_m(k)) * x; });
  };
  auto pn_times = [&](const z3::expr& x) {
    return by_case(c, [&](int64_t k) { return num(per_n(k)) * x; });
  };
  // DST sub-block h x w dividing the block and fitting DST; inner block dividing Kt.
  Small h = small("out_subblock_h", 1, dst), w = small("out_subblock_w", 1, dst);
  Small ibw = small("in0_block_w", 1, std::min<int64_t>(8, kt));
  z3::expr qh = ctx.int_const("per_core_m_over_h"), qw = ctx.int_const("per_core_n_over_w");
  z3::expr qk = ctx.int_const("kt_over_in0_block_w");
  opt.add(qh >= 1 && qw >= 1 && qk >= 1);
  opt.add(by_case(h, [&](int64_t k) { return num(k) * qh; }) == pm);
  opt.add(by_case(w, [&](int64_t k) { return num(k) * qw; }) == pn);
  opt.add(by_case(h, [&](int64_t k) { return num(k) * w.var; }) <= num(dst));
  opt.add(by_case(ibw, [&](int64_t k) { return num(k) * qk; }) == num(kt));
  // Double-buffered in0 and in1 blocks and the output block fit the usable L1.
  z3::expr block = pm_times(pn);
  z3::expr inputs = num(2 * m.in0_tile_bytes) * pm + num(2 * m.in1_tile_bytes) * pn;
  opt.add(by_case(ibw, [&](int64_t k) { return num(k) * inputs; }) +
              num(m.out_tile_bytes) * block <=
          num(d.usable_l1_bytes()));
  // Time in units of 1/(S * unpack_bytes_per_cycle) cycles, so the unpacker's bytes are
  // integers: compute = Kt * (the block's products: FPU and unpacker time, partly overlapped) plus
  // the epilogue on every output tile; NoC = Kt * (pm * in0 + pn * in1) / link bytes per
  // cycle; DRAM is fixed by the operands' placement.
  constexpr double S = 1000;
  const double rate = d.unpack_bytes_per_cycle;
  auto scaled = [&](double cycles) { return num(std::llround(cycles * rate * S)); };
  const double fpu = d.fpu_matmul_cycles_per_tile[static_cast<size_t>(m.fidelity)];
  // The unpackers' bytes per inner tile over the block (matmul_unpack_bytes_per_product): one
  // operand's tile every product, the other's once per sub-block row (w >= h) or column.
  z3::expr traffic =
      z3::ite(w.var >= h.var, num(m.in1_tile_bytes) * block + num(m.in0_tile_bytes) * pm_times(qw),
              num(m.in0_tile_bytes) * block + num(m.in1_tile_bytes) * pn_times(qh));
  // A product takes the slower of its FPU and unpack times plus a share of the faster
  // (matmul_product_cycles); over the block both are sums of equal per-product terms.
  z3::expr math = scaled(fpu) * block, unpacking = num(static_cast<int64_t>(S)) * traffic;
  z3::expr products =
      z3::ite(math >= unpacking, math + num(std::llround(kMatmulUnpackOverlap * S)) * traffic,
              unpacking + scaled(kMatmulUnpackOverlap * fpu) * block);
  z3::expr compute = num(kt) * products + scaled(m.epilogue_cycles_per_tile) * block;
  z3::expr noc = num(kt) * (num(m.in0_tile_bytes) * pm + num(m.in1_tile_bytes) * pn) *
                 scaled(1.0 / d.noc_bytes_per_cycle_per_link);
  double dram_cycles = matmul_dram_bytes(m) / (d.dram_bandwidth_gb_s * 1e3) * d.clock_ghz * 1e3;
  // A DRAM output's last block (here each core's whole block) is written after the compute:
  // the used rows' tiles times the used columns' tiles at the DRAM rate.
  z3::expr tail = num(0);
  if (!m.out_l1) {
    const double tail_per_tile =
        static_cast<double>(m.out_tile_bytes) / (d.dram_bandwidth_gb_s * 1e3) * d.clock_ghz * 1e3;
    z3::expr col_tiles =
        by_case(c, [&](int64_t k) { return num(ceil_div(nt, per_n(k)) * per_n(k)); });
    tail = by_case(r, [&](int64_t k) {
      return scaled(tail_per_tile * static_cast<double>(ceil_div(mt, per_m(k)) * per_m(k))) *
             col_tiles;
    });
  }
  z3::expr time = ctx.int_const("time");
  opt.add(time >= noc && time >= scaled(dram_cycles));
  if (m.in0_l1) {
    opt.add(time >= compute + tail);
  } else {
    // in0 from DRAM: each of the Kt / in0_block_w inner blocks waits for the slower of its
    // compute and its fetch (matmul_block_fetch_us: a latency plus the larger of the in0 and
    // in1 blocks at the fetch rate). Over all blocks the fetched bytes are Kt * per_core_m (or
    // per_core_n) tiles: linear.
    const double latency = d.matmul_block_sync_us * d.clock_ghz * 1e3;
    const double per_byte = kBlockFetchLinkPasses / d.noc_bytes_per_cycle_per_link;
    auto fetch_all = [&](int64_t tile_bytes, const z3::expr& side) {
      return scaled(latency) * qk + scaled(per_byte * static_cast<double>(kt * tile_bytes)) * side;
    };
    opt.add(time >= compute + tail && time >= fetch_all(m.in0_tile_bytes, pm) + tail);
    if (!m.in1_l1) opt.add(time >= fetch_all(m.in1_tile_bytes, pn) + tail);
  }
  // Lexicographic, one objective at a time, each fixed at its optimum before the next: the
  // predicted time; on ties (a DRAM-bound matmul is as fast on fewer cores) the fewest grid
  // rows, then columns, as the model's own enumeration breaks them; the least unpacker
  // traffic, and among sub-blocks moving as little the shortest, then the narrowest, as the
  // model's own enumeration breaks ties (so the answer is unique: the context is reused, and
  // Z3 would otherwise pick among equals by its own history); the widest inner block.
  std::optional<z3::model> mod;
  auto settle = [&](const z3::expr& objective, bool minimize) {
    opt.push();
    if (minimize)
      opt.minimize(objective);
    else
      opt.maximize(objective);
    bool ok = opt.check() == z3::sat;
    if (ok) mod = opt.get_model();
    opt.pop();
    if (ok) opt.add(objective == mod->eval(objective, true));
    return ok;
  };
  // h and w are at most dst: the sub-block's rank in (h, w) order is below (dst + 1)^2.
  z3::expr traffic_then_subblock =
      traffic * num((dst + 1) * (dst + 1)) + h.var * num(dst + 1) + w.var;
  if (!settle(time, true) || !settle(ru, true) || !settle(cu, true) ||
      !settle(traffic_then_subblock, true) || !settle(ibw.var, false))
    return std::nullopt;
  auto value = [&](const z3::expr& e) { return mod->eval(e, true).get_numeral_int64(); };
  MatmulChoice out;
  out.grid = CoreGrid{static_cast<uint32_t>(value(ru)), static_cast<uint32_t>(value(cu))};
  out.blocking.per_core_m = value(pm);
  out.blocking.per_core_n = value(pn);
  out.blocking.out_subblock_h = value(h.var);
  out.blocking.out_subblock_w = value(w.var);
  out.blocking.in0_block_w = value(ibw.var);
  // The statement keeps the whole per-core block in L1 (no streamed output blocks).
  out.blocking.out_block_h = out.blocking.per_core_m;
  out.blocking.out_block_w = out.blocking.per_core_n;
  return out;
}

} // namespace

std::optional<MatmulChoice> choose_matmul_z3(const MatmulConfig& m, const Device& d,
                                             GridFreedom freedom) {
  // The statement covers the matmuls tilesat plans: 2-D multicast, partial sums accumulated in
  // L1, the inner block free.
  if (m.mcast != MatmulMcast::Block2D || !m.packer_l1_acc || m.in0_block_w != 0)
    return std::nullopt;
  // A model repeats shapes (attention's projections, a transformer's layers): each distinct
  // problem is solved once per process.
  std::string key = fmt::format(
      "{}|{}|{}x{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}x{}x{}|{},{},{}|{}{}{}|{}|{}|{}|{}", d.name,
      d.path, d.grid_usable.rows, d.grid_usable.cols, d.usable_l1_bytes(), d.dst_tiles,
      d.unpack_bytes_per_cycle, d.noc_bytes_per_cycle_per_link, d.dram_bandwidth_gb_s, d.clock_ghz,
      d.matmul_block_sync_us, d.fpu_matmul_cycles_per_tile[static_cast<size_t>(m.fidelity)],
      static_cast<int>(freedom), m.fp32_accumulate, m.m, m.k, m.n, m.in0_tile_bytes,
      m.in1_tile_bytes, m.out_tile_bytes, m.in0_l1, m.in1_l1, m.out_l1, m.epilogue_cycles_per_tile,
      freedom == GridFreedom::Fixed ? m.grid.rows : 0,
      freedom == GridFreedom::Fixed ? m.grid.cols : 0, static_cast<int>(m.fidelity));
  static std::mutex mutex;
  static std::map<std::string, std::optional<MatmulChoice>> solved;
  {
    std::lock_guard lock(mutex);
    if (auto it = solved.find(key); it != solved.end()) return it->second;
  }
  std::optional<MatmulChoice> choice = solve(m, d, freedom);
  std::lock_guard lock(mutex);
  solved.emplace(std::move(key), choice);
  return choice;
}

} // namespace tilesat::cost
