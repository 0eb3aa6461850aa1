// planner.cpp: placing a logical graph's values on a device, with to_layout enforcers and L1
// lifetimes.
#include "tilesat/cost/planner.h"

#include "tilesat/cost/legality.h"
#include "tilesat/cost/matmul_z3.h"
#include "tilesat/cost/placement.h"
#include "tilesat/graph/diagnostic.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <optional>
#include <set>

namespace tilesat::cost {
namespace {

constexpr size_t kForever = std::numeric_limits<size_t>::max();
// How far back (in ops) the planner re-plans to put an evicted L1 value in DRAM from the start.
constexpr size_t kMaxReplan = 512;

std::string suffix_of(const Placement& p) {
  if (p.layout == Layout::RowMajor) return "row_major";
  return p.buffer == BufferType::DRAM ? "dram" : "l1";
}

class Planner {
public:
  Planner(const Graph& g, const CostModel& model) : g_(g), model_(model), dev_(model.device()) {}

  // Places every op in order. When an op fits nowhere, the largest L1 value alive there is
  // moved to DRAM and planning resumes where that value was made: the plan before that point
  // does not depend on it, so the result is the plan a restart from scratch would give. A
  // value made more than kMaxReplan positions back is spilled instead (copied to DRAM here,
  // its L1 freed), so that long-lived values (an unrolled recurrence's per-step outputs, all
  // read by one final concat) do not make planning quadratic in the graph's size.
  Plan run() {
    plan_.device = dev_.name;
    plan_.traced = model_.options().trace;
    plan_.graph = g_;
    std::vector<NodeId> order = g_.topological_order();
    position_.assign(g_.num_nodes(), kForever);
    std::vector<size_t>& position = position_;
    for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
    // Last use of each node's value, as a position in `order` (results live to the end).
    last_use_.assign(g_.num_nodes(), 0);
    for (NodeId n : order)
      for (NodeId o : g_.node(n).operands) last_use_[o] = std::max(last_use_[o], position[n]);
    for (const GraphResult& r : g_.results()) last_use_[r.value] = kForever;
    value_of_.assign(g_.num_nodes(), kNone);
    Placement arg = argument_placement(model_.options().arguments_on_device);
    bool const_eval = model_.options().const_eval;
    for (NodeId a : g_.arguments())
      value_of_[a] = add_value(a, arg, const_eval && g_.node(a).role == ArgRole::Weight);
    values_at_.assign(order.size(), 0);
    ops_at_.assign(order.size(), 0);
    for (size_t t = 0; t < order.size(); ++t) {
      NodeId n = order[t];
      const Node& node = g_.node(n);
      now_ = t;
      values_at_[t] = plan_.values.size();
      ops_at_[t] = plan_.ops.size();
      if (node.kind == OpKind::Argument) continue;
      if (node.kind == OpKind::Constant) {
        value_of_[n] = add_value(n, host_placement(), const_eval);
        continue;
      }
      std::optional<uint32_t> victim = place_op(n, t);
      if (!victim) continue;
      // Resume where the value's node was placed (forcing it to DRAM changes that choice) or
      // where this copy of it was made, whichever is first.
      NodeId demoted = plan_.values[*victim].node;
      size_t from = std::min(value_made_at_[*victim], position[demoted]);
      // A node already forced to DRAM cannot be forced again: its L1 value is a copy a
      // conversion made (an operand moved to L1 for one op, cached for later users), spilled.
      if (t - from > kMaxReplan || forced_dram_.count(demoted)) {
        // Spill this value and, while L1 is still short, the next largest far-back ones.
        spill(*victim, t);
        int64_t freed = value_l1_bytes_[*victim];
        for (std::optional<uint32_t> v;
             freed < deficit_ && (v = largest_l1_value(t, kMaxReplan + 1));
             freed += value_l1_bytes_[*v])
          spill(*v, t);
        t -= 1; // place op n again
        continue;
      }
      forced_dram_.insert(demoted);
      unspill(from);
      for (size_t p = from; p <= t; ++p)
        if (g_.node(order[p]).kind != OpKind::Argument) value_of_[order[p]] = kNone;
      rollback(values_at_[from], ops_at_[from]);
      t = from - 1; // the loop's ++t resumes at `from` (unsigned: from 0 wraps around to 0)
    }
    for (const GraphResult& r : g_.results()) {
      uint32_t v = value_of_[r.value];
      if (plan_.values[v].placement.buffer != BufferType::DRAM)
        v = convert(v, dram_tile_placement(), order.size());
      plan_.results.push_back(v);
    }
    finish();
    return std::move(plan_);
  }

private:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

  uint32_t add_value(NodeId node, const Placement& p, bool one_time = false) {
    plan_.values.push_back(PlannedValue{node, p, one_time});
    value_last_use_.push_back(last_use_[node]);
    value_made_at_.push_back(now_);
    value_l1_bytes_.push_back(
        p.buffer == BufferType::L1 ? model_.l1_bytes_per_core(g_.node(node).type, p) : 0);
    const auto v = static_cast<uint32_t>(plan_.values.size() - 1);
    if (value_l1_bytes_[v] > 0) l1_values_.push_back(v);
    return v;
  }

  // The largest L1 value alive at t made at least `age` positions before t (of a node forced
  // to DRAM, a conversion's copy in L1).
  std::optional<uint32_t> largest_l1_value(size_t t, size_t age) const {
    std::optional<uint32_t> victim;
    int64_t victim_bytes = 0;
    for (uint32_t v : l1_values_) {
      NodeId node = plan_.values[v].node;
      size_t made = std::min(value_made_at_[v], position_[node]);
      if (value_last_use_[v] < t || t - made < age) continue;
      if (value_l1_bytes_[v] > victim_bytes) {
        victim = v;
        victim_bytes = value_l1_bytes_[v];
      }
    }
    return victim;
  }

  // Copies L1 value `v` to DRAM at position t and frees its L1 there: later users of its node
  // read the copy, and no conversion reuses `v`. A conversion's copy (not the value its node's
  // users read) is only freed: they convert the node's value again where they need it.
  void spill(uint32_t v, size_t t) {
    Spill s{t, v, plan_.values[v].node, value_of_[plan_.values[v].node], value_last_use_[v], {}};
    for (auto it = conversions_.begin(); it != conversions_.end();)
      if (it->second == v) {
        s.cached.push_back(*it);
        it = conversions_.erase(it);
      } else {
        ++it;
      }
    if (value_of_[s.node] == v) value_of_[s.node] = convert(v, dram_tile_placement(), t);
    value_last_use_[v] = t - 1; // dead once copied
    spills_.push_back(std::move(s));
  }

  // Undoes the spills made at position `from` or later (planning resumes there).
  void unspill(size_t from) {
    while (!spills_.empty() && spills_.back().at >= from) {
      Spill& s = spills_.back();
      value_of_[s.node] = s.value_of;
      value_last_use_[s.value] = s.last_use;
      for (auto& kv : s.cached) conversions_.insert(kv);
      spills_.pop_back();
    }
  }

  // Forgets the values and ops made after the first `values` and `ops`.
  void rollback(size_t values, size_t ops) {
    plan_.values.resize(values);
    value_last_use_.resize(values);
    value_made_at_.resize(values);
    value_l1_bytes_.resize(values);
    // Values that died before the old position may be alive again at the earlier one.
    l1_values_.clear();
    for (uint32_t v = 0; v < values; ++v)
      if (value_l1_bytes_[v] > 0) l1_values_.push_back(v);
    plan_.ops.resize(ops);
    std::erase_if(conversions_,
                  [&](const auto& kv) { return kv.first.first >= values || kv.second >= values; });
  }

  // L1 bytes per core of values alive at position t other than those in `except`.
  // Positions only grow between rollbacks, so values dead at t are dropped from the L1 list
  // for good: each query costs the values alive, not all values (linear planning).
  int64_t live_others(size_t t, const std::vector<uint32_t>& except) {
    std::erase_if(l1_values_, [&](uint32_t v) { return value_last_use_[v] < t; });
    int64_t bytes = 0;
    for (uint32_t v : l1_values_)
      if (std::find(except.begin(), except.end(), v) == except.end()) bytes += value_l1_bytes_[v];
    return bytes;
  }

  // Microseconds a user spends reading a value of `type` placed at `p`.
  double read_cost(const TensorType& type, const Placement& p) const {
    double bytes = static_cast<double>(CostModel::tensor_bytes(type, p.layout));
    if (p.buffer == BufferType::DRAM) return bytes / (dev_.dram_stream_gb_s * 1e3);
    double cores = static_cast<double>(
        p.memory == MemoryLayout::Interleaved ? dev_.grid_usable.cores() : p.grid.cores());
    double per_cycle = p.memory == MemoryLayout::Interleaved ? dev_.noc_bytes_per_cycle_per_link
                                                             : dev_.unpack_bytes_per_cycle;
    // Without trace, a user reading a sharded operand is dispatched through the host's slower
    // sharded path (CostModel::finish): it pays the difference of the two floors.
    double sharded_dispatch =
        p.memory != MemoryLayout::Interleaved && !model_.options().trace
            ? std::max(0.0, dev_.host_dispatch_sharded_us - dev_.host_dispatch_us)
            : 0.0;
    return dev_.cycles_to_us(bytes / cores / per_cycle) + sharded_dispatch;
  }

  // The placement `rule` accepts that a value of `type` at `from` converts to most cheaply,
  // and the conversion's time; nullopt if none of its type's variants is accepted.
  std::optional<std::pair<Placement, double>>
  cheapest_accepted(const TensorType& type, const Placement& from,
                    const rewrites::OperandRule& rule) const {
    std::optional<std::pair<Placement, double>> best;
    for (const LayoutVariant& variant : layout_variants(type, dev_, model_.layouts())) {
      if (!accepts(rule, variant.placement)) continue;
      double us = model_.to_layout(type, from, variant.placement).us;
      if (!best || us < best->second) best = std::make_pair(variant.placement, us);
    }
    return best;
  }

  // What the users of `n` pay to read it from `p` beyond the read itself: a row-major result
  // is tilized once for users that compute on tiles; a user whose `reads` line does not
  // accept `p` converts it.
  double user_conversions(NodeId n, const Placement& p) const {
    const TensorType& type = g_.node(n).type;
    double us = 0;
    bool tilize = false;
    for (NodeId u : g_.users(n)) {
      OpKind kind = g_.node(u).kind;
      if (p.layout == Layout::RowMajor && !model_.layouts().reads_row_major(kind)) tilize = true;
      const rewrites::OperandRule* rule = model_.layouts().operand_rule(kind);
      if (rule && p.layout == Layout::Tile && !accepts(*rule, p))
        if (auto to = cheapest_accepted(type, p, *rule)) us += to->second;
    }
    if (tilize) us += model_.to_layout(type, p, dram_tile_placement()).us;
    return us;
  }

  // The value `v` converted to `to` (made once, then shared). A one-time value converts to DRAM
  // once at load; into L1, it is tilized into DRAM once and moved to L1 in every inference.
  uint32_t convert(uint32_t v, const Placement& to, size_t t) {
    auto key = std::make_pair(v, placement_str(to));
    if (auto it = conversions_.find(key); it != conversions_.end()) return it->second;
    bool once = plan_.values[v].one_time && to.buffer == BufferType::DRAM;
    if (plan_.values[v].one_time && !once && to.layout == Layout::Tile &&
        plan_.values[v].placement != dram_tile_placement()) {
      uint32_t tiled = convert(v, dram_tile_placement(), t);
      if (tiled != v) {
        uint32_t out = convert(tiled, to, t);
        conversions_[key] = out;
        return out;
      }
    }
    const PlannedValue src = plan_.values[v];
    const TensorType& type = g_.node(src.node).type;
    OpEstimate e = model_.to_layout(type, src.placement, to);
    uint32_t out = add_value(src.node, to, once);
    PlannedOp op;
    op.node = src.node;
    op.kind = "to_layout";
    op.one_time = once;
    op.name = fmt::format("{}.{}", value_name(g_, src.node), suffix_of(to));
    op.operands = {v};
    op.result = out;
    op.grid = e.grid;
    op.cores = e.cores;
    op.fidelity = model_.options().fidelity;
    op.predicted_us = e.us;
    op.l1_bytes_per_core = e.l1_bytes_per_core;
    op.cost = e.cost;
    op.circular_buffers = e.circular_buffers;
    plan_.ops.push_back(op);
    (void)t;
    conversions_[key] = out;
    return out;
  }

  // Where row-major value `v` is tilized for the ops that compute on tiles: the interleaved
  // tile placement (DRAM, or L1 when a layout rule offers it) with the least conversion time
  // plus its users' reads, among those that fit beside the L1 values alive at t. A value
  // tilized once keeps that copy for every later user; one-time values and values forced to
  // DRAM go to DRAM (a one-time value moved to L1 would be moved in every inference).
  Placement tile_home(uint32_t v, size_t t) {
    const PlannedValue& src = plan_.values[v];
    if (src.one_time || forced_dram_.count(src.node)) return dram_tile_placement();
    const TensorType& type = g_.node(src.node).type;
    std::optional<Placement> best;
    double best_score = 0;
    for (const LayoutVariant& variant : layout_variants(type, dev_, model_.layouts())) {
      const Placement& p = variant.placement;
      if (p.layout != Layout::Tile || p.memory != MemoryLayout::Interleaved) continue;
      if (converted(v, p)) return p;
      if (p.buffer == BufferType::L1 && !conversion_fits(v, p, t, 0)) continue;
      double score = model_.to_layout(type, src.placement, p).us +
                     static_cast<double>(g_.use_count(src.node)) * read_cost(type, p) +
                     user_conversions(src.node, p);
      if (!best || score < best_score - 1e-9) {
        best = p;
        best_score = score;
      }
    }
    return best ? *best : dram_tile_placement();
  }

  // Whether value `v` was converted to `p` already (the copy is shared).
  bool converted(uint32_t v, const Placement& p) const {
    return conversions_.count(std::make_pair(v, placement_str(p))) > 0;
  }

  // Whether converting value `v` to `to` at position t fits L1 beside the other values alive
  // there and `more` bytes of results made for the same op: the conversion holds its source,
  // its result and its circular buffers at once. A conversion made before is free.
  bool conversion_fits(uint32_t v, const Placement& to, size_t t, int64_t more) {
    if (converted(v, to)) return true;
    const PlannedValue& src = plan_.values[v];
    OpEstimate e = model_.to_layout(g_.node(src.node).type, src.placement, to);
    return live_others(t, {v}) + more + e.l1_bytes_per_core <= dev_.usable_l1_bytes() &&
           e.circular_buffers <= dev_.max_circular_buffers;
  }

  // Whether the operand moves of an op at t fit, made one after another (each result stays
  // alive for the op).
  bool moves_fit(const std::vector<std::optional<Placement>>& moves,
                 const std::vector<uint32_t>& ins, size_t t) {
    int64_t made = 0;
    for (size_t i = 0; i < ins.size(); ++i) {
      if (!moves[i]) continue;
      if (converted(ins[i], *moves[i])) continue;
      if (!conversion_fits(ins[i], *moves[i], t, made)) return false;
      made += model_.l1_bytes_per_core(g_.node(plan_.values[ins[i]].node).type, *moves[i]);
    }
    return true;
  }

  // Places op `n` at position t; when it fits nowhere, returns the L1 value to move to DRAM.
  std::optional<uint32_t> place_op(NodeId n, size_t t) {
    const Node& node = g_.node(n);
    std::vector<uint32_t> ins;
    // A data-movement op that may produce rows keeps the layout it reads when every operand
    // is row-major; otherwise operands are tiles (only to_layout converts).
    bool is_result = last_use_[n] == kForever;
    // Const-eval: an op reading only one-time values runs once at load, leaving its result in
    // DRAM (nothing else is in L1 then).
    bool once = model_.options().const_eval &&
                std::all_of(node.operands.begin(), node.operands.end(),
                            [&](NodeId o) { return plan_.values[value_of_[o]].one_time; });
    bool to_dram = is_result || once || forced_dram_.count(n);
    // A one-time op may keep rows too (in DRAM): tiling a conv2d's 3x3 kernel pads it 100-fold.
    bool rows = model_.layouts().reads_row_major(node.kind) && !node.operands.empty() &&
                (!to_dram || (once && !is_result && !forced_dram_.count(n)));
    for (size_t i = 0; i < node.operands.size(); ++i)
      rows = rows && plan_.values[value_of_[node.operands[i]]].placement.layout == Layout::RowMajor;
    for (size_t i = 0; i < node.operands.size(); ++i) {
      uint32_t v = value_of_[node.operands[i]];
      if (plan_.values[v].placement.layout == Layout::RowMajor && !reads_as_stored(node.kind, i) &&
          !rows)
        v = convert(v, tile_home(v, t), t);
      ins.push_back(v);
    }
    // Where the operands are read, in three rounds tried in turn until the op fits: a `reads`
    // line's placements (operands go where the op must read them, if they can be there); the
    // operands where they are; and, when the op fits no placement so, each operand of the
    // result's shape moved into L1 beside the result (a norm over rows too wide for L1 fits
    // only with its operand sharded, where the extraction priced it): to the result's placement,
    // or for a result in DRAM, to each of the result's L1 placements. Two sharded operands must
    // share one shard spec (seed 001), others go to DRAM. The moves are planned first and made
    // once the op's placement is chosen.
    const rewrites::OperandRule* rule =
        rows || once ? nullptr : model_.layouts().operand_rule(node.kind);
    auto one_shard_spec = [&](std::vector<std::optional<Placement>>& to) {
      std::optional<Placement> shard;
      for (size_t i = 0; i < ins.size(); ++i) {
        const Placement p = to[i] ? *to[i] : plan_.values[ins[i]].placement;
        if (p.memory == MemoryLayout::Interleaved) continue;
        if (!shard)
          shard = p;
        else if (!(p == *shard))
          to[i] = dram_tile_placement();
      }
    };
    auto moves_by_rule = [&] {
      std::vector<std::optional<Placement>> to(ins.size());
      for (size_t i = 0; i < ins.size(); ++i)
        if (!reads_as_stored(node.kind, i) && !accepts(*rule, plan_.values[ins[i]].placement))
          if (auto a = cheapest_accepted(g_.node(plan_.values[ins[i]].node).type,
                                         plan_.values[ins[i]].placement, *rule))
            to[i] = a->first;
      one_shard_spec(to);
      return to;
    };
    auto moves_beside = [&](const Placement& p) {
      std::vector<std::optional<Placement>> to(ins.size());
      for (size_t i = 0; i < ins.size(); ++i) {
        const PlannedValue& in = plan_.values[ins[i]];
        if (!reads_as_stored(node.kind, i) && in.placement.layout == Layout::Tile &&
            !(in.placement == p) && g_.node(in.node).type.shape == node.type.shape)
          to[i] = p;
      }
      one_shard_spec(to);
      return to;
    };
    std::vector<Placement> cands;
    if (to_dram)
      cands = {rows ? host_placement() : dram_tile_placement()};
    else
      cands = candidate_placements(node.type, dev_, node.kind, model_.layouts());
    std::erase_if(cands,
                  [&](const Placement& p) { return (p.layout == Layout::RowMajor) != rows; });
    if (cands.empty()) cands = {dram_tile_placement()};
    int64_t others = once ? 0 : live_others(t, ins);
    std::optional<OpEstimate> best;
    Placement best_p;
    std::vector<std::optional<Placement>> moves, best_moves;
    std::vector<TensorUse> uses, best_uses;
    int64_t least_bytes = std::numeric_limits<int64_t>::max();
    // The fewest circular buffers of a variant whose bytes fit (when only those are short).
    std::optional<int64_t> least_cbs;
    enum class Reads { ByRule, AsStored, BesideResult };
    double best_score = 0;
    for (Reads round : {Reads::ByRule, Reads::AsStored, Reads::BesideResult}) {
      if (best || (round == Reads::ByRule && !rule)) continue;
      if (round == Reads::ByRule) {
        moves = moves_by_rule();
        // Moves into L1 that do not fit beside what is live: read the operands where they are.
        if (!moves_fit(moves, ins, t)) continue;
      } else {
        moves.assign(ins.size(), std::nullopt);
        one_shard_spec(moves);
      }
      // (result placement, where operands of its shape are moved) pairs to try.
      std::vector<std::pair<Placement, std::optional<Placement>>> tries;
      for (const Placement& p : cands) {
        if (round != Reads::BesideResult)
          tries.emplace_back(p, std::nullopt);
        else if (rows || once)
          continue;
        else if (p.buffer == BufferType::L1)
          tries.emplace_back(p, p);
        else
          for (const Placement& q :
               candidate_placements(node.type, dev_, node.kind, model_.layouts()))
            if (q.buffer == BufferType::L1 && q.layout == Layout::Tile) tries.emplace_back(p, q);
      }
      for (const auto& [p, beside] : tries) {
        double moves_us = 0;
        if (beside) {
          moves = moves_beside(*beside);
          if (std::none_of(moves.begin(), moves.end(),
                           [](const auto& m) { return m.has_value(); }) ||
              !moves_fit(moves, ins, t))
            continue;
          for (size_t i = 0; i < ins.size(); ++i)
            if (moves[i] && !converted(ins[i], *moves[i]))
              moves_us += model_
                              .to_layout(g_.node(plan_.values[ins[i]].node).type,
                                         plan_.values[ins[i]].placement, *moves[i])
                              .us;
        }
        uses.clear();
        for (size_t i = 0; i < ins.size(); ++i)
          uses.push_back(TensorUse{g_.node(plan_.values[ins[i]].node).type,
                                   moves[i] ? *moves[i] : plan_.values[ins[i]].placement});
        OpEstimate e = model_.op(node.kind, node.attrs, uses, TensorUse{node.type, p});
        least_bytes = std::min(least_bytes, e.l1_bytes_per_core);
        if (others + e.l1_bytes_per_core > dev_.usable_l1_bytes()) continue;
        if (e.circular_buffers > dev_.max_circular_buffers) {
          least_cbs = std::min<int64_t>(least_cbs.value_or(e.circular_buffers), e.circular_buffers);
          continue;
        }
        // Rank by the op's time plus what its users will pay to read the result from there
        // (the model's time of the op itself is what the plan reports).
        double score = e.us + moves_us +
                       static_cast<double>(g_.use_count(n)) * read_cost(node.type, p) +
                       user_conversions(n, p);
        if (!best || score < best_score - 1e-9) {
          best = e;
          best_p = p;
          best_score = score;
          best_moves = moves;
          best_uses = uses;
        }
      }
    }
    moves = std::move(best_moves);
    uses = std::move(best_uses);
    if (!best) {
      // Free L1: move the largest L1 value alive here to DRAM and try again.
      std::optional<uint32_t> victim = once ? std::nullopt : largest_l1_value(t, 0);
      // What the cheapest placement lacks, for a caller that frees L1 for it.
      deficit_ = others + least_bytes - dev_.usable_l1_bytes();
      if (victim) return victim;
      if (least_cbs)
        throw Error(node.loc, fmt::format("op {} ({}) needs at least {} circular buffers but "
                                          "device '{}' allows {} (max_circular_buffers)",
                                          value_name(g_, n), op_name(node.kind), *least_cbs,
                                          dev_.name, dev_.max_circular_buffers));
      throw Error(node.loc,
                  fmt::format("op {} ({}) needs at least {} bytes of L1 per core (circular "
                              "buffers and L1 operands) but device '{}' has {} usable",
                              value_name(g_, n), op_name(node.kind), least_bytes, dev_.name,
                              dev_.usable_l1_bytes()));
    }
    for (size_t i = 0; i < ins.size(); ++i)
      if (moves[i]) ins[i] = convert(ins[i], *moves[i], t);
    uint32_t out = add_value(n, best_p, once);
    value_of_[n] = out;
    PlannedOp op;
    op.node = n;
    op.one_time = once;
    op.kind = std::string(op_name(node.kind));
    op.name = value_name(g_, n);
    op.operands = ins;
    op.result = out;
    op.grid = best->grid;
    op.cores = best->cores;
    op.fidelity = model_.options().fidelity;
    op.blocking = best->blocking;
    // Z3 picks the grid (unless a sharded result fixes it) and the blocking (matmul_z3.h),
    // minimising the model's own estimate; the op is estimated again with Z3's choice, so its
    // time, blocking and account are one record.
    // A 1-D multicast (CostModel::best_grid) is kept as the model chose it: Z3's statement is
    // the 2-D one.
    if (best->matmul && best->matmul->mcast == MatmulMcast::Block2D) {
      bool fixed = best_p.buffer == BufferType::L1 && best_p.memory != MemoryLayout::Interleaved;
      if (std::optional<MatmulChoice> z = choose_matmul_z3(
              *best->matmul, dev_, fixed ? GridFreedom::Fixed : GridFreedom::Free)) {
        OpEstimate e = model_.op_blocked(node.kind, node.attrs, uses, TensorUse{node.type, best_p},
                                         z->grid, z->blocking);
        if (others + e.l1_bytes_per_core <= dev_.usable_l1_bytes()) {
          best = e;
          op.grid = e.grid;
          op.cores = e.cores;
          op.blocking = e.blocking;
        }
      }
    }
    op.predicted_us = best->us;
    op.l1_bytes_per_core = best->l1_bytes_per_core;
    op.cost = best->cost;
    op.circular_buffers = best->circular_buffers;
    plan_.ops.push_back(op);
    return std::nullopt;
  }

  void finish() {
    // One-time ops run first, at load; the rest keep their order.
    std::stable_partition(plan_.ops.begin(), plan_.ops.end(),
                          [](const PlannedOp& op) { return op.one_time; });
    plan_.predicted_total_us = 0;
    plan_.predicted_one_time_us = 0;
    plan_.peak_l1_bytes_per_core = 0;
    const std::vector<int64_t> live = live_l1_bytes(plan_, model_);
    for (size_t i = 0; i < plan_.ops.size(); ++i) {
      (plan_.ops[i].one_time ? plan_.predicted_one_time_us : plan_.predicted_total_us) +=
          plan_.ops[i].predicted_us;
      plan_.peak_l1_bytes_per_core =
          std::max(plan_.peak_l1_bytes_per_core, plan_.ops[i].l1_bytes_per_core + live[i]);
    }
  }

  const Graph& g_;
  const CostModel& model_;
  const Device& dev_;
  std::set<NodeId> forced_dram_; // nodes whose results go to DRAM
  Plan plan_;
  size_t now_ = 0; // the position being planned
  // Per position of the order: how many values and ops existed before it was planned.
  std::vector<size_t> values_at_, ops_at_;
  // Per value: the position it was made at, and its L1 bytes per core (0 in DRAM).
  std::vector<size_t> value_made_at_;
  std::vector<int64_t> value_l1_bytes_;
  std::vector<uint32_t> l1_values_; // values in L1, possibly dead (live_others drops those)
  std::vector<size_t> last_use_;
  std::vector<size_t> value_last_use_;
  std::vector<uint32_t> value_of_;
  std::map<std::pair<uint32_t, std::string>, uint32_t> conversions_;
  // An L1 value copied to DRAM to free L1 (see run()), with what undoing it restores.
  struct Spill {
    size_t at;         // the position of the copy
    uint32_t value;    // the L1 value copied
    NodeId node;       // its node
    uint32_t value_of; // value_of_[node] before the copy
    size_t last_use;   // value_last_use_[value] before the copy
    std::vector<std::pair<std::pair<uint32_t, std::string>, uint32_t>> cached; // conversions to it
  };
  std::vector<Spill> spills_;
  std::vector<size_t> position_; // each node's position in the planning order
  int64_t deficit_ = 0;          // L1 bytes per core the last op that fit nowhere lacked
};

} // namespace

std::vector<int64_t> live_l1_bytes(const Plan& plan, const CostModel& model) {
  // Definition and last use of every value, in op positions (arguments: defined before 0).
  const size_t n = plan.ops.size();
  std::vector<int64_t> def(plan.values.size(), -1), last(plan.values.size(), -1);
  for (size_t i = 0; i < n; ++i) {
    def[plan.ops[i].result] = static_cast<int64_t>(i);
    for (uint32_t v : plan.ops[i].operands) last[v] = static_cast<int64_t>(i);
  }
  for (uint32_t v : plan.results) last[v] = static_cast<int64_t>(n);
  // Bytes of the L1 values alive at each position, by a difference array over [def, last].
  std::vector<int64_t> bytes(plan.values.size(), 0), live(n + 1, 0);
  for (uint32_t v = 0; v < plan.values.size(); ++v) {
    const PlannedValue& pv = plan.values[v];
    if (pv.placement.buffer != BufferType::L1 || last[v] < std::max<int64_t>(def[v], 0)) continue;
    bytes[v] = model.l1_bytes_per_core(plan.graph.node(pv.node).type, pv.placement);
    live[static_cast<size_t>(std::max<int64_t>(def[v], 0))] += bytes[v];
    live[static_cast<size_t>(std::min<int64_t>(last[v] + 1, static_cast<int64_t>(n)))] -= bytes[v];
  }
  for (size_t i = 1; i <= n; ++i) live[i] += live[i - 1];
  live.resize(n);
  // Less the op's own result and operands (each once), which its footprint counts.
  std::vector<uint32_t> own;
  for (size_t i = 0; i < n; ++i) {
    const PlannedOp& op = plan.ops[i];
    own.assign(op.operands.begin(), op.operands.end());
    own.push_back(op.result);
    std::sort(own.begin(), own.end());
    own.erase(std::unique(own.begin(), own.end()), own.end());
    const auto at = static_cast<int64_t>(i);
    for (uint32_t v : own)
      if (std::max<int64_t>(def[v], 0) <= at && last[v] >= at) live[i] -= bytes[v];
  }
  return live;
}

void require_fits_dram(const Graph& g, const Device& d) {
  for (NodeId n = 0; n < g.num_nodes(); ++n) {
    const Node& node = g.node(n);
    // The smaller of its two forms: a [O, I, 1, 1] conv weight is 1024 times larger padded
    // to tiles as written, and is never tiled so.
    int64_t bytes = std::min(CostModel::tensor_bytes(node.type, Layout::Tile),
                             CostModel::tensor_bytes(node.type, Layout::RowMajor));
    if (bytes <= d.dram_bytes) continue;
    std::string what =
        node.kind == OpKind::Argument
            ? fmt::format("argument {}", value_name(g, n))
            : fmt::format("op {} ({}): its result", value_name(g, n), op_name(node.kind));
    throw Error(node.loc, fmt::format("{} {} needs {} bytes but device '{}' has {} bytes of DRAM",
                                      what, node.type.str(), bytes, d.name, d.dram_bytes));
  }
}

Plan plan_graph(const Graph& g, const CostModel& model) {
  require_fits_dram(g, model.device());
  return Planner(g, model).run();
}

} // namespace tilesat::cost
