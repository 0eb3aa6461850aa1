// extract.cpp: the dynamic program over (e-class, placement), and plan extraction.
#include "tilesat/cost/extract.h"

#include "components.h"
#include "post_order.h"
#include "projection.h"
#include "tilesat/cost/extract_exact.h"
#include "tilesat/cost/extract_problem.h"
#include "tilesat/cost/extract_share.h"
#include "tilesat/cost/legality.h"
#include "tilesat/cost/nchw_convs.h"
#include "tilesat/cost/placement.h"
#include "tilesat/cost/planner.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/rewrites/extract.h"
#include "tilesat/rewrites/payload.h"
#include "tilesat/rewrites/repeat_interleave.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <unordered_map>
#include <unordered_set>

namespace tilesat::cost {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMaxFinite = std::numeric_limits<double>::max();
// Const-eval: one-time work (on weights and constants, once at load) weighs this much against
// per-inference work, so the DP minimises per-inference time first and one-time time second.
constexpr double kOnce = 1e-6;

constexpr uint32_t kNoConfig = std::numeric_limits<uint32_t>::max();

struct ClassState {
  /// The candidate placements and the layout rules offering each.
  std::vector<LayoutVariant> variants;
  /// variants[0] is the host's placement (row-major DRAM), where arguments and constants
  /// start, and no rule lets an op produce it.
  bool host_only = false;
  std::vector<double> cost;
  std::vector<Choice> choice;
  /// With recording: the index in the class's recorded configurations of each choice's.
  std::vector<uint32_t> made;
  /// With recording: where the last pass's configurations start (earlier passes' come first).
  uint32_t last_pass = 0;

  const Placement& at(size_t k) const { return variants[k].placement; }
};

// What the DP needs of an op's estimate (model_.op), kept per e-node and placements: the
// passes evaluate the same op and placements again and again, and extract_plan's two starts
// differ only in their reshapes.
struct Estimate {
  double us = 0;
  int64_t l1_bytes_per_core = 0, circular_buffers = 0;
  bool view = false;
};
// Estimates by e-node and placements (the result's, then each operand's). Placements are
// numbered when first seen, so a key is a node and a few small numbers held in place (no heap
// allocation per lookup): a million-op graph keeps tens of millions of estimates.
//   EstimateCache cache;
//   const std::optional<Estimate>& e = cache.get(n, out, uses, [&] { return price(); });
class EstimateCache {
public:
  template <class Compute>
  const std::optional<Estimate>& get(egraph::NodeId n, const Placement& out,
                                     std::span<const TensorUse> uses, Compute compute) {
    if (uses.size() + 1 <= kInline) {
      Key key{n, {}};
      key.ids.fill(kNone);
      key.ids[0] = id_of(out);
      for (size_t i = 0; i < uses.size(); ++i) key.ids[i + 1] = id_of(uses[i].placement);
      auto it = small_.find(key);
      if (it == small_.end()) it = small_.emplace(key, compute()).first;
      return it->second;
    }
    std::pair<egraph::NodeId, std::vector<uint32_t>> key{n, {id_of(out)}};
    for (const TensorUse& u : uses) key.second.push_back(id_of(u.placement));
    auto it = large_.find(key);
    if (it == large_.end()) it = large_.emplace(std::move(key), compute()).first;
    return it->second;
  }

private:
  static constexpr size_t kInline = 6; // the result and up to five operands
  static constexpr uint32_t kNone = ~uint32_t{0};
  struct Key {
    egraph::NodeId node;
    std::array<uint32_t, kInline> ids;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = 0xcbf29ce484222325ULL ^ k.node;
      for (uint32_t id : k.ids) h = (h ^ id) * 0x100000001b3ULL;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  struct PlacementHash {
    size_t operator()(const Placement& p) const {
      uint64_t h = 0xcbf29ce484222325ULL;
      for (uint64_t v :
           {static_cast<uint64_t>(p.layout) | static_cast<uint64_t>(p.buffer) << 4 |
                static_cast<uint64_t>(p.memory) << 8,
            uint64_t{p.grid.rows} << 32 | p.grid.cols, static_cast<uint64_t>(p.shard_shape[0]),
            static_cast<uint64_t>(p.shard_shape[1])})
        h = (h ^ v) * 0x100000001b3ULL;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  uint32_t id_of(const Placement& p) {
    return ids_.try_emplace(p, static_cast<uint32_t>(ids_.size())).first->second;
  }

  std::unordered_map<Placement, uint32_t, PlacementHash> ids_;
  std::unordered_map<Key, std::optional<Estimate>, KeyHash> small_;
  std::map<std::pair<egraph::NodeId, std::vector<uint32_t>>, std::optional<Estimate>> large_;
};

// Adds the wall time of its scope to `seconds` (the report's phase times).
class AddSeconds {
public:
  explicit AddSeconds(double& seconds) : seconds_(seconds) {}
  AddSeconds(const AddSeconds&) = delete;
  AddSeconds& operator=(const AddSeconds&) = delete;
  ~AddSeconds() {
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

private:
  double& seconds_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

class Dp {
public:
  /// `shared` keeps estimates of every op but reshapes (whose price depends on
  /// CostOptions::reshape_views) for another run over the same e-graph and device.
  Dp(const rewrites::TensorEGraph& teg, const CostModel& model, EstimateCache* shared = nullptr)
      : teg_(teg), model_(model.device(), figures_only(model.options())),
        shared_(shared ? shared : &own_) {}

  /// With `record`, each pass also records every configuration it evaluates (the last pass's,
  /// at the fixed point, stay: problem(), with those of earlier passes that a choice still
  /// uses).
  void run(bool record) {
    const egraph::EGraph& eg = teg_.egraph;
    for (egraph::Id c : eg.classes()) {
      ClassState& s = state_[c];
      const TensorType& type = teg_.facts_of(c).type;
      s.variants = layout_variants(type, model_.device(), model_.layouts());
      if (std::none_of(s.variants.begin(), s.variants.end(),
                       [](const LayoutVariant& v) { return v.placement == host_placement(); })) {
        s.variants.insert(s.variants.begin(), LayoutVariant{host_placement(), {}});
        s.host_only = true;
      }
      s.cost.assign(s.variants.size(), kInf);
      s.choice.assign(s.variants.size(), Choice{});
      if (record) s.made.assign(s.variants.size(), kNoConfig);
    }
    // Bellman-Ford style: costs only decrease, so this reaches a fixed point. Classes are
    // visited operands first, a component of classes that read each other (a cycle through
    // merged reshapes and permutes) at a time: a class outside a cycle reads only settled
    // classes and is settled in one pass; a cycle's classes are passed over until none
    // changes (at most one pass more than it has classes). Passing over the whole e-graph
    // instead, each pass settled one more cycle downstream: a deep model took about as many
    // passes as it has layers.
    order_ = operands_first();
    if (model_.options().const_eval) find_constants(order_);
    for (size_t begin = 0, end = 0; begin < order_.size(); begin = end) {
      end = begin + 1;
      while (end < order_.size() && component_[end] == component_[begin]) ++end;
      for (size_t pass = 0; pass <= end - begin; ++pass) {
        bool changed = false;
        for (size_t i = begin; i < end; ++i) {
          const egraph::Id c = order_[i];
          ProblemClass* pc = nullptr;
          if (record) {
            pc = &recorded_.classes[c];
            start_pass(state_[c], *pc);
          }
          for (egraph::NodeId n : eg.eclass(c).nodes) changed |= relax(c, n, pc);
        }
        // A class never reads itself (relax), so a component of one is settled.
        if (!changed || end - begin == 1) break;
      }
    }
  }

  // The configuration of each e-node and placement at the fixed point (recorded by run), and
  // the conversions their reads and the results need.
  ExtractionProblem problem() {
    ExtractionProblem out = std::move(recorded_);
    out.teg = &teg_;
    out.order = order_;
    for (egraph::Id r : teg_.results) out.results.push_back(teg_.egraph.find(r));
    for (egraph::Id c : order_) {
      ProblemClass& pc = out.classes[c];
      const ClassState& s = state_.at(c);
      for (const LayoutVariant& v : s.variants) pc.placements.push_back(v.placement);
      pc.dram_tile = index_of(c, dram_tile_placement());
      // The last pass's configurations, and an earlier one a choice still uses when the last
      // pass has none of its e-node (it no longer derived it: its operands had cheaper
      // placements by then): the problem must hold a configuration of every chosen e-node.
      std::vector<NodeConfig> missing;
      for (uint32_t j : s.made)
        if (j < s.last_pass &&
            std::none_of(pc.configs.begin() + s.last_pass, pc.configs.end(),
                         [&](const NodeConfig& x) { return x.node == pc.configs[j].node; }))
          missing.push_back(std::move(pc.configs[j]));
      pc.configs.erase(pc.configs.begin(), pc.configs.begin() + s.last_pass);
      std::move(missing.begin(), missing.end(), std::back_inserter(pc.configs));
    }
    // Each class converts from the placements it is computed in to those it is read in.
    std::unordered_map<egraph::Id, std::unordered_set<uint32_t>> read;
    for (egraph::Id r : out.results) read[r].insert(out.classes.at(r).dram_tile);
    for (const auto& [c, pc] : out.classes)
      for (const NodeConfig& cfg : pc.configs) {
        std::vector<egraph::Id> ch = out.children(cfg);
        for (size_t i = 0; i < ch.size(); ++i) read[ch[i]].insert(cfg.reads[i]);
      }
    for (auto& [c, pc] : out.classes) {
      std::unordered_set<uint32_t> made;
      for (const NodeConfig& cfg : pc.configs) made.insert(cfg.out);
      const TensorType& type = teg_.facts_of(c).type;
      for (uint32_t from : made)
        for (uint32_t to : read[c])
          if (from != to)
            pc.convert.push_back(
                {from, to, convert_us(c, type, pc.placements[from], pc.placements[to])});
    }
    return out;
  }

  // The index of placement `p` among class `c`'s candidates (the count when it is not one).
  uint32_t index_of(egraph::Id c, const Placement& p) const {
    const ClassState& s = state(c);
    for (uint32_t k = 0; k < s.variants.size(); ++k)
      if (s.at(k) == p) return k;
    return static_cast<uint32_t>(s.variants.size());
  }

  // The classes const-eval computes once: weight arguments, constants, and classes with an
  // e-node reading only such classes.
  void find_constants(const std::vector<egraph::Id>& order) {
    const egraph::EGraph& eg = teg_.egraph;
    const Graph& src = teg_.source;
    for (NodeId a : src.arguments())
      if (src.node(a).role == ArgRole::Weight && teg_.class_of_node[a] != egraph::kNoId)
        constant_.insert(eg.find(teg_.class_of_node[a]));
    for (bool changed = true; changed;) {
      changed = false;
      for (egraph::Id c : order) {
        if (constant_.count(c)) continue;
        for (egraph::NodeId n : eg.eclass(c).nodes)
          if (reads_constants(eg.node(n))) {
            constant_.insert(c);
            changed = true;
            break;
          }
      }
    }
  }

  // Whether `node` is an op whose operands are all one-time values (a constant has none).
  bool reads_constants(const egraph::ENode& node) const {
    std::optional<OpKind> kind = rewrites::op_of(node.op);
    if (!kind || *kind == OpKind::Argument) return false;
    return std::all_of(node.children.begin(), node.children.end(),
                       [&](egraph::Id ch) { return constant_.count(teg_.egraph.find(ch)) > 0; });
  }

  // What converting class `c` (of `type`) from `from` to `to` costs per inference: a one-time
  // value converts into DRAM once at load; into L1 it is tilized once and moved every time.
  double convert_us(egraph::Id c, const TensorType& type, const Placement& from,
                    const Placement& to) const {
    if (!constant_.count(teg_.egraph.find(c))) return model_.to_layout(type, from, to).us;
    if (to.buffer == BufferType::DRAM) return kOnce * model_.to_layout(type, from, to).us;
    return kOnce * model_.to_layout(type, from, dram_tile_placement()).us +
           model_.to_layout(type, dram_tile_placement(), to).us;
  }

  // Every class, each after the classes its e-nodes read: components of classes that read
  // each other (components.h) in order, the classes of one in a depth-first post-order (an
  // edge back into a class on the current path is skipped). Sets component_, each class's
  // component by position.
  std::vector<egraph::Id> operands_first() {
    const egraph::EGraph& eg = teg_.egraph;
    std::vector<egraph::Id> roots;
    for (egraph::Id c : eg.classes()) roots.push_back(eg.find(c));
    std::unordered_map<egraph::Id, std::vector<egraph::Id>> reads;
    for (egraph::Id c : roots) {
      std::vector<egraph::Id>& out = reads[c];
      for (egraph::NodeId n : eg.eclass(c).nodes)
        for (egraph::Id ch : eg.node(n).children) out.push_back(eg.find(ch));
    }
    std::vector<egraph::Id> order = post_order(roots, [&](egraph::Id c) { return reads.at(c); });
    std::unordered_map<egraph::Id, uint32_t> index;
    for (uint32_t i = 0; i < order.size(); ++i) index.emplace(order[i], i);
    std::vector<std::vector<uint32_t>> edges(order.size());
    for (uint32_t i = 0; i < order.size(); ++i)
      for (egraph::Id ch : reads.at(order[i])) edges[i].push_back(index.at(ch));
    const std::vector<uint32_t> of = components_operands_first(edges);
    std::vector<uint32_t> by(order.size());
    for (uint32_t i = 0; i < by.size(); ++i) by[i] = i;
    std::stable_sort(by.begin(), by.end(), [&](uint32_t a, uint32_t b) { return of[a] < of[b]; });
    std::vector<egraph::Id> out(order.size());
    component_.resize(order.size());
    for (uint32_t i = 0; i < by.size(); ++i) {
      out[i] = order[by[i]];
      component_[i] = of[by[i]];
    }
    return out;
  }

  // The cheapest candidate of class `c` counting `extra(placement)` on top of its cost: its
  // index and the total.
  template <class Extra>
  std::pair<uint32_t, double> best_of(egraph::Id c, Extra extra) const {
    const ClassState& s = state_.at(teg_.egraph.find(c));
    uint32_t best = 0;
    double cost = kInf;
    for (uint32_t k = 0; k < s.variants.size(); ++k) {
      if (s.cost[k] == kInf) continue;
      const double x = extra(s.at(k));
      if (x == kInf) continue;
      double total = std::min(s.cost[k] + x, kMaxFinite);
      if (total < cost) {
        cost = total;
        best = k;
      }
    }
    return {best, cost};
  }

  // The cheapest candidate of class `c` once converted to DRAM tile where `ready` says it is
  // not usable as it is.
  template <class Ready>
  std::pair<uint32_t, double> best_converted(egraph::Id c, Ready ready) const {
    const TensorType& type = teg_.facts_of(c).type;
    return best_of(c, [&](const Placement& p) {
      return ready(p) ? 0 : convert_us(c, type, p, dram_tile_placement());
    });
  }

  // The cheapest candidate of class `c` among those `usable` accepts as they are.
  template <class Usable>
  std::pair<uint32_t, double> best_among(egraph::Id c, Usable usable) const {
    return best_of(c, [&](const Placement& p) { return usable(p) ? 0 : kInf; });
  }

  // The cheapest way to have class `c` where `rule` (a `reads` line) accepts it: a candidate
  // it accepts as it is, or one converted to the placement it accepts; the candidate's index,
  // the cost and the placement read. Nullopt when no placement of the class is accepted.
  std::optional<std::tuple<uint32_t, double, Placement>>
  best_accepted(egraph::Id c, const rewrites::OperandRule& rule) const {
    const ClassState& s = state_.at(teg_.egraph.find(c));
    const TensorType& type = teg_.facts_of(c).type;
    std::optional<std::tuple<uint32_t, double, Placement>> best;
    for (uint32_t t = 0; t < s.variants.size(); ++t) {
      if (!accepts(rule, s.at(t))) continue;
      for (uint32_t k = 0; k < s.variants.size(); ++k) {
        if (s.cost[k] == kInf) continue;
        double cost =
            std::min(s.cost[k] + (k == t ? 0 : convert_us(c, type, s.at(k), s.at(t))), kMaxFinite);
        if (!best || cost < std::get<1>(*best)) best = std::make_tuple(k, cost, s.at(t));
      }
    }
    return best;
  }

  // The cheapest way to have class `c` in tile layout for a consumer: its index and cost.
  std::pair<uint32_t, double> best_input(egraph::Id c) const {
    return best_converted(c, [](const Placement& p) { return p.layout == Layout::Tile; });
  }

  // The result's placement: cheapest counting the way back to DRAM.
  std::pair<uint32_t, double> best_result(egraph::Id c) const {
    return best_converted(c, [](const Placement& p) { return p.buffer == BufferType::DRAM; });
  }

  const ClassState& state(egraph::Id c) const { return state_.at(teg_.egraph.find(c)); }

  /// Whether class `c` has a placement with a finite cost.
  bool feasible(egraph::Id c) const {
    const ClassState& s = state(c);
    return std::any_of(s.cost.begin(), s.cost.end(), [](double x) { return x < kInf; });
  }

  /// An op that has no feasible variant although each of its operands has one (the place a
  /// failed DP starts from): "conv2d 16x512x14x14 -> 16x512x14x14 needs 2113536 bytes of L1 per
  /// core", or empty when there is none.
  std::string first_infeasible() const {
    const egraph::EGraph& eg = teg_.egraph;
    for (egraph::Id c : eg.classes()) {
      if (feasible(c)) continue;
      for (egraph::NodeId n : eg.eclass(c).nodes) {
        egraph::ENode node = eg.node(n);
        std::optional<OpKind> kind = rewrites::op_of(node.op);
        if (!kind) continue;
        bool ready = std::all_of(node.children.begin(), node.children.end(),
                                 [&](egraph::Id ch) { return feasible(ch); });
        if (!ready) continue;
        std::string operands;
        for (egraph::Id ch : node.children)
          operands += (operands.empty() ? "" : ", ") + teg_.facts_of(ch).type.str();
        return fmt::format("op '{}' ({}) -> {}", op_name(*kind), operands,
                           teg_.facts_of(c).type.str());
      }
    }
    return "";
  }

private:
  // How an e-node reads its operands: the child placements chosen, the operands as the op
  // sees them, and what they cost (children plus conversions).
  struct Operands {
    Choice choice;
    std::vector<TensorUse> uses;
    double cost = 0;
    /// The placement each operand is read in (index into its class's candidates).
    std::vector<uint32_t> read;
  };

  // Records `node` computing placement `k` from `in` at op cost `us`: its index in the class's
  // configurations, kNoConfig when it reads a placement that is no candidate of its operand
  // (left out).
  uint32_t record(ProblemClass& rec, egraph::NodeId n, uint32_t k, const Operands& in,
                  double us) const {
    const egraph::ENode& node = teg_.egraph.node(n);
    for (size_t i = 0; i < in.read.size(); ++i)
      if (in.read[i] >= state(node.children[i]).variants.size()) return kNoConfig;
    rec.configs.push_back(NodeConfig{n, k, in.read, us});
    return static_cast<uint32_t>(rec.configs.size() - 1);
  }

  // model_.op of e-node `n` (rethrowing its Error on every call), remembered.
  Estimate estimate(egraph::NodeId n, OpKind kind, const Attrs& attrs,
                    std::span<const TensorUse> uses, const TensorUse& out) {
    EstimateCache& cache = kind == OpKind::Reshape ? own_ : *shared_;
    const std::optional<Estimate>& value = cache.get(n, out.placement, uses, [&] {
      std::optional<Estimate> v;
      try {
        OpEstimate e = model_.op(kind, attrs, uses, out);
        v = Estimate{e.us, e.l1_bytes_per_core, e.circular_buffers, is_view(e.cost)};
      } catch (const Error&) {
      }
      return v;
    });
    if (!value) throw Error("no kernel for this variant");
    return *value;
  }

  // Starts a pass over class `s`'s e-nodes: its recorded configurations are dropped but for
  // those its choices use, which move to the front (the pass records after them). In place:
  // the buffers stay for the pass to fill again.
  static void start_pass(ClassState& s, ProblemClass& pc) {
    std::vector<uint32_t*> used; // the choices' configurations, by index (one per placement)
    for (uint32_t& j : s.made)
      if (j != kNoConfig) used.push_back(&j);
    std::sort(used.begin(), used.end(), [](uint32_t* a, uint32_t* b) { return *a < *b; });
    for (uint32_t i = 0; i < used.size(); ++i) {
      std::swap(pc.configs[i], pc.configs[*used[i]]);
      *used[i] = i;
    }
    pc.configs.resize(used.size());
    s.last_pass = static_cast<uint32_t>(used.size());
  }

  // Whether an op estimated at `e` fits the device's L1 and circular buffers.
  bool fits(const Estimate& e) const {
    return e.l1_bytes_per_core <= model_.device().usable_l1_bytes() &&
           e.circular_buffers <= model_.device().max_circular_buffers;
  }

  // The cheapest operands of `node` for an op reading tiles (`mode` Tile: anything else is
  // converted to DRAM tile) or rows as they are (RowMajor: row-major placements only); an
  // operand read as stored (a conv2d weight) takes any placement. Nullopt when one has none.
  // With `in_dram`, every operand is read from DRAM (converted there if it is elsewhere): the
  // fallback for an op that does not fit L1 beside L1-resident operands.
  std::optional<Operands> operands(egraph::NodeId n, const egraph::ENode& node, OpKind kind,
                                   Layout mode, bool in_dram = false) const {
    Operands out{Choice{n, {}}, {}, 0, {}};
    std::optional<Placement> shard;
    for (size_t i = 0; i < node.children.size(); ++i) {
      egraph::Id ch = node.children[i];
      bool as_stored = reads_as_stored(kind, i);
      auto [k, cost] = as_stored ? best_converted(ch, [](const Placement&) { return true; })
                       : mode == Layout::RowMajor
                           ? best_among(ch,
                                        [&](const Placement& p) {
                                          return p.layout == Layout::RowMajor &&
                                                 (!in_dram || p.buffer == BufferType::DRAM);
                                        })
                       : in_dram ? best_converted(ch,
                                                  [](const Placement& p) {
                                                    return p.layout == Layout::Tile &&
                                                           p.buffer == BufferType::DRAM &&
                                                           p.memory == MemoryLayout::Interleaved;
                                                  })
                                 : best_input(ch);
      if (cost == kInf) return std::nullopt;
      const ClassState& cs = state(ch);
      Placement p = cs.at(k).layout == mode || as_stored ? cs.at(k) : dram_tile_placement();
      if (in_dram && !as_stored && mode == Layout::Tile && p.buffer != BufferType::DRAM)
        p = dram_tile_placement();
      // A `reads` line puts the operand where the op must read it (if it can be there).
      if (const rewrites::OperandRule* rule = model_.layouts().operand_rule(kind);
          rule && !as_stored && mode == Layout::Tile && !in_dram)
        if (auto a = best_accepted(ch, *rule)) std::tie(k, cost, p) = *a;
      const TensorType& type = teg_.facts_of(ch).type;
      // Two sharded operands must share a shard spec; otherwise the enforcer moves one.
      if (p.memory != MemoryLayout::Interleaved) {
        if (!shard)
          shard = p;
        else if (!(p == *shard)) {
          cost += convert_us(ch, type, p, dram_tile_placement());
          p = dram_tile_placement();
        }
      }
      out.cost += cost;
      out.choice.child_placement.push_back(k);
      out.uses.push_back(TensorUse{type, p});
      out.read.push_back(index_of(ch, p));
    }
    return out;
  }

  bool relax(egraph::Id c, egraph::NodeId n, ProblemClass* rec = nullptr) {
    const egraph::EGraph& eg = teg_.egraph;
    egraph::ENode node = eg.node(n);
    std::optional<OpKind> kind = rewrites::op_of(node.op);
    if (!kind) return false;
    // A node reading its own class (a reshape to the same shape, merged with its operand) can
    // only move the value between placements, which to_layout does; selected for one
    // placement, it would make the class its own operand.
    for (egraph::Id ch : node.children)
      if (eg.find(ch) == eg.find(c)) return false;
    ClassState& s = state_[c];
    if (*kind == OpKind::Argument || *kind == OpKind::Constant) {
      // Constants come from the host; arguments too unless they are device tensors.
      Placement at = *kind == OpKind::Argument
                         ? argument_placement(model_.options().arguments_on_device)
                         : host_placement();
      auto k = static_cast<size_t>(
          std::find_if(s.variants.begin(), s.variants.end(),
                       [&](const LayoutVariant& v) { return v.placement == at; }) -
          s.variants.begin());
      uint32_t cfg = kNoConfig;
      if (rec && k < s.variants.size()) cfg = record(*rec, n, static_cast<uint32_t>(k), {}, 0);
      if (k < s.variants.size() && s.cost[k] > 0) {
        s.cost[k] = 0;
        s.choice[k] = Choice{n, {}};
        if (rec) s.made[k] = cfg;
        return true;
      }
      return false;
    }
    const TensorType& out_type = teg_.facts_of(c).type;
    const Attrs& attrs = teg_.facts->attrs_of(eg, node);
    bool changed = false;
    // Const-eval runs it once at load, into DRAM.
    bool once = reads_constants(node);
    // A data-movement op that may produce rows keeps the layout it reads: row-major operands
    // give a row-major result, tiles give tiles (only to_layout converts).
    std::vector<Layout> modes{Layout::Tile};
    if (model_.layouts().reads_row_major(*kind)) modes.push_back(Layout::RowMajor);
    for (Layout mode : modes) {
      std::optional<Operands> in = operands(n, node, *kind, mode);
      if (!in) continue;
      std::optional<std::optional<Operands>> from_dram; // the fallback, made when needed
      for (uint32_t k = s.host_only ? 1 : 0; k < s.variants.size(); ++k) {
        const Placement& p = s.at(k);
        if (p.layout != mode || !s.variants[k].allows(*kind)) continue;
        if (once && p.buffer != BufferType::DRAM) continue;
        Estimate e;
        const Operands* used = &*in;
        try {
          e = estimate(n, *kind, attrs, in->uses, TensorUse{out_type, p});
          if (e.l1_bytes_per_core > model_.device().usable_l1_bytes()) {
            // Too big beside its L1-resident operands: read them from DRAM instead.
            if (!from_dram) from_dram = operands(n, node, *kind, mode, true);
            if (!*from_dram) continue;
            used = &**from_dram;
            e = estimate(n, *kind, attrs, used->uses, TensorUse{out_type, p});
          }
        } catch (const Error&) {
          return changed; // no kernel for this variant
        }
        if (!fits(e)) continue;
        const double weight = once ? kOnce : 1.0;
        const uint32_t cfg = rec ? record(*rec, n, k, *used, weight * e.us) : kNoConfig;
        // Every operand is feasible: a sum that overflows (tree costs over a DAG that shares
        // much) stays feasible at the largest finite cost.
        double total = std::min(weight * e.us + used->cost, kMaxFinite);
        if (total < s.cost[k] - 1e-12) {
          s.cost[k] = total;
          s.choice[k] = used->choice;
          if (rec) s.made[k] = cfg;
          changed = true;
        }
        if (*kind == OpKind::Reshape && !once) changed |= relax_view(c, n, node, attrs, k, rec);
      }
    }
    return changed;
  }

  // A reshape that ttnn runs as a view (no kernel) when its operand is already where the
  // result goes: besides the operand's best placement (operands()), read it in the result's
  // own placement `k` when the operand's class offers it.
  bool relax_view(egraph::Id c, egraph::NodeId n, const egraph::ENode& node, const Attrs& attrs,
                  uint32_t k, ProblemClass* rec) {
    ClassState& s = state_[c];
    const egraph::Id ch = teg_.egraph.find(node.children[0]);
    const uint32_t kc = index_of(ch, s.at(k));
    const ClassState& cs = state(ch);
    if (kc >= cs.variants.size() || cs.cost[kc] == kInf) return false;
    Operands in;
    in.choice.node = n;
    in.choice.child_placement = {kc};
    in.uses = {TensorUse{teg_.facts_of(ch).type, cs.at(kc)}};
    in.read = {kc};
    in.cost = cs.cost[kc];
    Estimate e;
    try {
      e = estimate(n, OpKind::Reshape, attrs, in.uses, TensorUse{teg_.facts_of(c).type, s.at(k)});
    } catch (const Error&) {
      return false; // no kernel for this variant
    }
    if (!e.view || !fits(e)) return false;
    const uint32_t cfg = rec ? record(*rec, n, k, in, e.us) : kNoConfig;
    double total = std::min(e.us + in.cost, kMaxFinite);
    if (total >= s.cost[k] - 1e-12) return false;
    s.cost[k] = total;
    s.choice[k] = in.choice;
    if (rec) s.made[k] = cfg;
    return true;
  }

  static CostOptions figures_only(CostOptions o) {
    o.details = false;
    return o;
  }

  const rewrites::TensorEGraph& teg_;
  const CostModel model_; // the caller's without the accounts in words
  EstimateCache own_;
  EstimateCache* shared_;
  std::unordered_map<egraph::Id, ClassState> state_;
  std::unordered_set<egraph::Id> constant_; // classes const-eval computes (find_constants)
  std::vector<egraph::Id> order_;           // operands first (operands_first)
  std::vector<uint32_t> component_;         // per position of order_: its class's component
  ExtractionProblem recorded_;              // the configurations run() records
};

// The dynamic program's selection, and with `record` the problem its configurations make and
// the DP's choice as an assignment of it.
struct DpOutcome {
  CostSelection selection;
  ExtractionProblem problem;
  Assignment assignment;
};

// The configuration of `problem` for e-node `n` computing placement `k` of class `c`, else
// the cheapest of `n` (the class's count when `n` has none).
uint32_t dp_config(const ExtractionProblem& problem, egraph::Id c, egraph::NodeId n, uint32_t k) {
  const std::vector<NodeConfig>& configs = problem.classes.at(c).configs;
  auto rank = [&](const NodeConfig& x) { return std::make_tuple(x.node != n, x.out != k, x.cost); };
  auto best = std::min_element(configs.begin(), configs.end(),
                               [&](auto& a, auto& b) { return rank(a) < rank(b); });
  if (best == configs.end() || best->node != n) return static_cast<uint32_t>(configs.size());
  return static_cast<uint32_t>(best - configs.begin());
}

// A finished DP's choices as the projection reads them.
class DpChoices final : public ChoiceTable {
public:
  DpChoices(const rewrites::TensorEGraph& teg, const Dp& dp) : teg_(teg), dp_(dp) {}
  uint32_t placements(egraph::Id c) const override {
    return static_cast<uint32_t>(dp_.state(c).variants.size());
  }
  double cost(egraph::Id c, uint32_t k) const override { return dp_.state(c).cost[k]; }
  const Choice& choice(egraph::Id c, uint32_t k) const override { return dp_.state(c).choice[k]; }
  std::optional<uint32_t> cheapest(egraph::Id c) const override {
    if (!dp_.feasible(c)) return std::nullopt;
    return dp_.best_among(c, [](const Placement&) { return true; }).first;
  }
  bool computes(egraph::NodeId n) const override {
    std::optional<OpKind> kind = rewrites::op_of(teg_.egraph.node(n).op);
    return kind && *kind != OpKind::Argument;
  }

private:
  const rewrites::TensorEGraph& teg_;
  const Dp& dp_;
};

DpOutcome run_dp(const rewrites::TensorEGraph& teg, const CostModel& model, bool record,
                 EstimateCache* estimates = nullptr) {
  Dp dp(teg, model, estimates);
  dp.run(record);
  DpOutcome out;
  std::vector<std::pair<egraph::Id, uint32_t>> demands; // each result's class and placement
  for (size_t i = 0; i < teg.results.size(); ++i) {
    egraph::Id r = teg.results[i];
    auto [k, cost] = dp.best_result(r);
    if (cost == kInf) {
      std::string where = dp.first_infeasible();
      throw Error(fmt::format("no plan computes result {} on device '{}' (every variant of it "
                              "needs more L1 or circular buffers than the device has{})",
                              i, model.device().name, where.empty() ? "" : ": first " + where));
    }
    out.selection.cost_us += cost;
    demands.emplace_back(teg.egraph.find(r), k);
  }
  if (record) out.problem = dp.problem();
  // One e-node per class (projection.h); with `record`, each class's configuration of it.
  DpChoices table(teg, dp);
  Projection projected = project_choices(teg.egraph, table, demands);
  auto chosen = std::make_shared<std::unordered_map<egraph::Id, egraph::NodeId>>();
  for (const auto& [c, at] : projected.chosen) {
    (*chosen)[c] = at.first;
    // A choice without a configuration in the problem leaves its class unassigned (the
    // objective of the assignment is then unknown) rather than naming one that is not there.
    if (record)
      if (uint32_t j = dp_config(out.problem, c, at.first, at.second);
          j < out.problem.classes.at(c).configs.size())
        out.assignment[c] = j;
  }
  const egraph::EGraph* eg = &teg.egraph;
  out.selection.select = [chosen, eg](egraph::Id cls) {
    auto it = chosen->find(eg->find(cls));
    return it == chosen->end() ? egraph::kNoId : it->second;
  };
  return out;
}

// The plan of `select`, or nullopt when it does not rebuild or plan (a cycle, a missing
// choice, an op that fits nowhere).
std::optional<Plan> plan_selection(const rewrites::TensorEGraph& teg, const CostModel& model,
                                   const rewrites::Selection& select) {
  try {
    return plan_graph(rewrites::to_graph(teg, select), model);
  } catch (const InternalError&) {
    return std::nullopt;
  } catch (const Error&) {
    return std::nullopt;
  }
}

// `a`, an assignment of `from` (the copy start's problem), as an assignment of `to` (the
// real one, over the same classes and placements): each class's configuration with the same
// node, placement and reads, added to `to` where it is missing. Only reshapes are priced
// differently by the two models, so a missing one keeps its cost unless it is a view under
// `model`. Nullopt when a class or placement has no counterpart.
std::optional<Assignment> adopt(const rewrites::TensorEGraph& teg, const CostModel& model,
                                const ExtractionProblem& from, const Assignment& a,
                                ExtractionProblem& to) {
  const egraph::EGraph& eg = teg.egraph;
  Assignment out;
  for (const auto& [c, j] : a) {
    const NodeConfig& x = from.classes.at(c).configs[j];
    auto it = to.classes.find(c);
    if (it == to.classes.end() || x.out >= it->second.placements.size()) return std::nullopt;
    std::vector<NodeConfig>& configs = it->second.configs;
    auto same = std::find_if(configs.begin(), configs.end(), [&](const NodeConfig& y) {
      return y.node == x.node && y.out == x.out && y.reads == x.reads;
    });
    if (same == configs.end()) {
      NodeConfig y = x;
      const egraph::ENode& node = eg.node(x.node);
      if (rewrites::op_of(node.op) == OpKind::Reshape && x.reads.size() == 1) {
        auto child = to.classes.find(eg.find(node.children[0]));
        if (child == to.classes.end() || x.reads[0] >= child->second.placements.size())
          return std::nullopt;
        std::array<TensorUse, 1> in{
            TensorUse{teg.facts_of(child->first).type, child->second.placements[x.reads[0]]}};
        if (is_view(model
                        .op(OpKind::Reshape, teg.facts->attrs_of(eg, node), in,
                            TensorUse{teg.facts_of(c).type, it->second.placements[x.out]})
                        .cost))
          y.cost = 0;
      }
      configs.push_back(std::move(y));
      same = configs.end() - 1;
    }
    out[c] = static_cast<uint32_t>(same - configs.begin());
  }
  return out;
}

} // namespace

CostSelection select_by_cost(const rewrites::TensorEGraph& teg, const CostModel& model) {
  return run_dp(teg, model, false).selection;
}

Plan extract_plan(const rewrites::TensorEGraph& teg, const CostModel& model,
                  const ExtractOptions& options, ExtractionReport* report) {
  const bool exact = options.exact_time_limit_s > 0;
  // Bounds cost a fifth more time and half more memory on a 100k-op graph: without exact
  // extraction, graphs beyond kMaxBoundedClasses go without (gap 1).
  const bool record = exact || teg.egraph.num_classes() <= kMaxBoundedClasses;
  DpOutcome dp;
  EstimateCache estimates; // both starts' op estimates but their reshapes
  ExtractionReport rep;
  try {
    AddSeconds timed(rep.dp_seconds);
    dp = run_dp(teg, model, record, &estimates);
  } catch (const Error&) {
    // No variant of some op fits: planning the shortest program names the op and its bytes.
    plan_graph(rewrites::extract_fewest_ops(teg), model);
    throw;
  }
  // Planning a candidate selection (placing it, Z3's matmul blockings), timed.
  auto plan_of = [&](auto&& plan_it) {
    AddSeconds timed(rep.plan_seconds);
    return plan_it();
  };
  Plan plan =
      plan_of([&] { return plan_graph(rewrites::to_graph(teg, dp.selection.select), model); });
  std::optional<double> dp_objective;
  if (record) {
    dp_objective = objective(dp.problem, dp.assignment);
    rep.tree_objective = dp_objective.value_or(kInf);
    // The tree cost counts a shared value once per reader: refine with shares of the readers
    // (extract_share.h), and keep the refined selection when it also plans faster.
    SharedRefinement shared;
    if (options.share_refinement) {
      AddSeconds timed(rep.shared_seconds);
      shared = refine_shared(dp.problem, dp.assignment);
    }
    rep.shared_rounds = shared.rounds;
    if (shared.rounds > 0)
      if (std::optional<Plan> refined = plan_of([&] {
            return plan_selection(teg, model, selection_of(dp.problem, shared.assignment));
          });
          refined && refined->predicted_total_us <= plan.predicted_total_us + 1e-9) {
        plan = std::move(*refined);
        dp_objective = shared.objective;
        dp.assignment = std::move(shared.assignment);
      }
    rep.lower_bound = path_lower_bound(dp.problem);
    rep.bound = "path";
    if (double m = mandatory_lower_bound(dp.problem); m > rep.lower_bound) {
      rep.lower_bound = m;
      rep.bound = "mandatory";
    }
  }
  // A second start: the same extraction with every reshape priced as a copy. Views make a
  // layout change free wherever it keeps the bytes in place, and the tree cost can then trade
  // an early conversion for several later ones that only look cheaper; the plan of this start
  // (under the real model) is kept when it is faster.
  if (record && options.copy_start && model.options().reshape_views) {
    CostOptions copies = model.options();
    copies.reshape_views = false;
    const CostModel coarse(model.device(), copies);
    std::optional<DpOutcome> alt;
    try {
      AddSeconds timed(rep.dp_seconds);
      alt = run_dp(teg, coarse, true, &estimates);
    } catch (const Error&) {
      // Reshapes as copies may not fit where views did: the first start stands.
    }
    std::optional<Plan> other;
    if (alt)
      other = plan_of(
          [&] { return plan_selection(teg, model, selection_of(alt->problem, alt->assignment)); });
    if (other && other->predicted_total_us < plan.predicted_total_us - 1e-9) {
      plan = std::move(*other);
      rep.copy_start_taken = true;
      // Its configurations in the real problem, for the objective, the gap and exact
      // extraction's starting point.
      if (std::optional<Assignment> same =
              adopt(teg, model, alt->problem, alt->assignment, dp.problem)) {
        dp_objective = objective(dp.problem, *same);
        dp.assignment = std::move(*same);
      } else {
        dp_objective.reset(); // not known in the real problem
      }
    }
  }
  rep.dp_planned_us = plan.predicted_total_us;
  rep.dp_objective = dp_objective.value_or(kInf);
  double chosen = rep.dp_objective;
  plan.extraction_method = "dp";
  if (exact) {
    // The time limit covers encoding and solving.
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(std::min(options.exact_time_limit_s, 1e6)));
    ExactResult z3 = solve_exact(dp.problem, dp.assignment, deadline);
    rep.status = z3.status;
    rep.exact_seconds = z3.seconds;
    // A proven optimum is the bound (up to the rounding of Z3's decimal weights).
    if (z3.status == "optimal" || z3.lower_bound > rep.lower_bound) {
      rep.lower_bound = std::max(rep.lower_bound, z3.lower_bound);
      rep.bound = z3.bound;
    }
    if (z3.assignment) {
      rep.exact_objective = z3.objective;
      if (std::optional<Plan> better = plan_of([&] {
            return plan_selection(teg, model, selection_of(dp.problem, *z3.assignment));
          })) {
        rep.exact_planned_us = better->predicted_total_us;
        if (better->predicted_total_us < plan.predicted_total_us - 1e-9) {
          plan = std::move(*better);
          plan.extraction_method = "z3";
          chosen = z3.objective;
        }
      }
    }
  }
  // The gap of the plan's selection in the extraction objective to the best lower bound (1
  // when its objective is unknown: nothing is proven).
  plan.extraction_cost = std::isfinite(chosen) ? chosen : plan.predicted_total_us;
  plan.optimality_gap = !std::isfinite(chosen) ? 1.0
                        : chosen > 0 ? std::clamp((chosen - rep.lower_bound) / chosen, 0.0, 1.0)
                                     : 0.0;
  rep.gap = plan.optimality_gap;
  {
    AddSeconds timed(rep.legality_seconds);
    require_legal(plan, model);
  }
  if (report) *report = rep;
  return plan;
}

DevicePlanResult optimize_for_device(const Graph& g, std::span<const egraph::Rewrite> rules,
                                     const egraph::RunnerConfig& runner, const CostModel& model,
                                     const ExtractOptions& options) {
  require_fits_dram(g, model.device()); // named with its source location
  // The runtime's conv2d kernel takes NCHW: other layouts are planned with permutes around it.
  rewrites::TensorEGraph teg = rewrites::to_egraph(nchw_convs(rewrites::fold_repeat_interleave(g)));
  DevicePlanResult out;
  out.report = egraph::Runner(runner).run(teg.egraph, rules);
  out.plan = extract_plan(teg, model, options, &out.extraction);
  out.plan.graph.set_name(g.name());
  return out;
}

} // namespace tilesat::cost
