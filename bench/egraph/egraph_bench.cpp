// Micro-benchmarks of the e-graph engine: hash-cons insertion and lookup, union + rebuild,
// e-matching on the math workload's e-graph.
//
//   egraph_bench --benchmark_filter=HashCons
#include "../../tests/egraph/math_language.h"

#include <benchmark/benchmark.h>
#include <random>

using namespace tilesat::egraph;

namespace {

/// Inserts `n` fresh e-nodes (every node is new): binary nodes over a growing set of classes.
void BM_HashConsInsertFresh(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  Symbol f = Symbol::intern("f");
  for (auto _ : state) {
    EGraph eg;
    Id leaf = eg.add(Symbol::intern("x"));
    Id prev = leaf;
    for (std::uint32_t i = 0; i < n; ++i) {
      Id kids[2] = {prev, static_cast<Id>(i / 2)};
      prev = eg.add(f, kids);
    }
    benchmark::DoNotOptimize(prev);
    state.PauseTiming();
    eg = EGraph(); // free outside the timed region
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * n);
}
BENCHMARK(BM_HashConsInsertFresh)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

/// Inserts a complete binary term bottom-up: `n` leaves with distinct payloads, then n - 1
/// internal nodes; every node is new and every class gets exactly one parent.
void BM_HashConsInsertTree(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  Symbol leaf = Symbol::intern("x"), f = Symbol::intern("f");
  std::vector<Id> level, next;
  for (auto _ : state) {
    state.PauseTiming();
    EGraph eg;
    std::vector<AttrId> payloads;
    for (std::uint32_t i = 0; i < n; ++i)
      payloads.push_back(eg.intern_attrs(Attrs::literal(AttrValue(static_cast<std::int64_t>(i)))));
    state.ResumeTiming();
    level.clear();
    for (std::uint32_t i = 0; i < n; ++i) level.push_back(eg.add(leaf, {}, payloads[i]));
    while (level.size() > 1) {
      next.clear();
      for (std::size_t i = 0; i + 1 < level.size(); i += 2) {
        Id kids[2] = {level[i], level[i + 1]};
        next.push_back(eg.add(f, kids));
      }
      level.swap(next);
    }
    benchmark::DoNotOptimize(level);
    state.PauseTiming();
    eg = EGraph();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * (2 * n - 1));
}
BENCHMARK(BM_HashConsInsertTree)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

/// Adds nodes that already exist (pure hash-cons hits).
void BM_HashConsLookupExisting(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  Symbol f = Symbol::intern("f");
  EGraph eg;
  std::vector<std::array<Id, 2>> keys;
  Id prev = eg.add(Symbol::intern("x"));
  for (std::uint32_t i = 0; i < n; ++i) {
    keys.push_back({prev, static_cast<Id>(i / 2)});
    prev = eg.add(f, keys.back());
  }
  for (auto _ : state)
    for (const auto& k : keys) benchmark::DoNotOptimize(eg.add(f, k));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * n);
}
BENCHMARK(BM_HashConsLookupExisting)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

/// Merges pairs of leaves under a layer of parents, then rebuilds (congruence cascades).
void BM_UnionRebuild(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  Symbol f = Symbol::intern("f"), g = Symbol::intern("g");
  std::mt19937 rng(1);
  for (auto _ : state) {
    state.PauseTiming();
    EGraph eg;
    std::vector<Id> leaves;
    for (std::uint32_t i = 0; i < n; ++i)
      leaves.push_back(
          eg.add(Symbol::intern("x"), {},
                 eg.intern_attrs(Attrs::literal(AttrValue(static_cast<std::int64_t>(i))))));
    for (std::uint32_t i = 0; i < n; ++i) {
      Id a = eg.add(f, {leaves[i], leaves[(i + 1) % n]});
      eg.add(g, {a});
    }
    eg.rebuild();
    state.ResumeTiming();
    for (std::uint32_t i = 0; i + 1 < n; i += 2) eg.merge(leaves[i], leaves[i + 1]);
    std::size_t unions = eg.rebuild();
    benchmark::DoNotOptimize(unions);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * n / 2);
}
BENCHMARK(BM_UnionRebuild)->Arg(100'000)->Unit(benchmark::kMillisecond);

/// E-matching every math rule's left side against the workload's e-graph after 6 iterations.
void BM_EMatchMathRules(benchmark::State& state) {
  EGraph eg;
  eg.add_analysis<math::ConstantFold>();
  for (const auto& t : math::workload_terms()) eg.add_term(RecExpr::parse(t));
  auto rules = math::rules();
  Runner(RunnerConfig()
             .with_scheduler(SimpleScheduler())
             .with_iter_limit(6)
             .with_node_limit(10'000'000)
             .with_time_limit(std::chrono::seconds(60)))
      .run(eg, rules);
  Matches m;
  std::size_t total = 0;
  for (auto _ : state) {
    total = 0;
    for (const Rewrite& r : rules) {
      r.search(eg, m, std::numeric_limits<std::size_t>::max());
      total += m.size();
    }
    benchmark::DoNotOptimize(total);
  }
  state.counters["matches"] = static_cast<double>(total);
  state.counters["enodes"] = static_cast<double>(eg.num_nodes());
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * total));
}
BENCHMARK(BM_EMatchMathRules)->Unit(benchmark::kMillisecond);

/// One pattern: (* ?a (+ ?b ?c)) (distribute), using the operator index.
void BM_EMatchOnePattern(benchmark::State& state) {
  EGraph eg;
  eg.add_analysis<math::ConstantFold>();
  for (const auto& t : math::workload_terms()) eg.add_term(RecExpr::parse(t));
  auto rules = math::rules();
  Runner(RunnerConfig()
             .with_scheduler(SimpleScheduler())
             .with_iter_limit(6)
             .with_node_limit(10'000'000))
      .run(eg, rules);
  auto p = Pattern::parse("(* ?a (+ ?b ?c))");
  Matches m;
  for (auto _ : state) {
    p.search(eg, m);
    benchmark::DoNotOptimize(m.size());
  }
  state.counters["matches"] = static_cast<double>(m.size());
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * m.size()));
}
BENCHMARK(BM_EMatchOnePattern)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
