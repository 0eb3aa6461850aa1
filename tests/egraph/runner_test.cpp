#include "math_language.h"
#include "tilesat/egraph/all.h"
#include "tilesat/egraph/runner.h"

#include <gtest/gtest.h>

namespace tilesat::egraph {
namespace {

std::vector<Rewrite> comm_assoc() {
  std::vector<Rewrite> r;
  r.push_back(rewrite("comm-add", "(+ ?a ?b)", "(+ ?b ?a)"));
  for (auto& x : Rewrite::parse("assoc-add", "(+ ?a (+ ?b ?c)) <=> (+ (+ ?a ?b) ?c)"))
    r.push_back(std::move(x));
  return r;
}

RunnerConfig simple() {
  return RunnerConfig().with_scheduler(SimpleScheduler()).with_invariant_checks();
}

} // namespace

TEST(Runner, DefaultsAreStated) {
  RunnerConfig c;
  EXPECT_EQ(c.iter_limit(), 30u);
  EXPECT_EQ(c.node_limit(), 10'000u);
  EXPECT_EQ(c.time_limit_seconds(), 5.0);
  EXPECT_EQ(c.scheduler().name(), "backoff");
  EXPECT_TRUE(c.staged_apply());
  EXPECT_FALSE(RunnerConfig(c).with_staged_apply(false).staged_apply());
}

TEST(Runner, CommutativityAndAssociativitySaturate) {
  EGraph eg;
  Id root = eg.add_term(RecExpr::parse("(+ a (+ b (+ c d)))"));
  auto rules = comm_assoc();
  Report r = Runner(simple()).run(eg, rules);
  EXPECT_EQ(r.stop.reason, StopReason::kSaturated) << r.to_table();
  // Every association and order of four summands: (2*4-3)!! ... the class count is exact.
  EXPECT_EQ(eg.find(root), eg.lookup_term(RecExpr::parse("(+ (+ d c) (+ b a))")));
  EXPECT_EQ(eg.num_classes(), 15u); // 4 leaves + 11 non-empty proper subsets of size >= 2
  EXPECT_EQ(r.iterations.back().applied, 0u);
}

TEST(Runner, IterationLimit) {
  EGraph eg;
  eg.add_term(RecExpr::parse("(+ a (+ b (+ c (+ d (+ e f)))))"));
  auto rules = comm_assoc();
  Report r = Runner(simple().with_iter_limit(2)).run(eg, rules);
  EXPECT_EQ(r.stop.reason, StopReason::kIterationLimit);
  EXPECT_EQ(r.stop.limit, 2);
  EXPECT_EQ(r.iterations.size(), 2u);
  EXPECT_EQ(r.stop.to_string(), "iteration-limit (2)");
}

TEST(Runner, NodeLimit) {
  EGraph eg;
  eg.add_term(RecExpr::parse("(+ a (+ b (+ c (+ d (+ e (+ f g))))))"));
  auto rules = comm_assoc();
  Report r = Runner(simple().with_node_limit(100)).run(eg, rules);
  EXPECT_EQ(r.stop.reason, StopReason::kNodeLimit);
  EXPECT_EQ(r.stop.limit, 100);
  EXPECT_GT(eg.num_nodes(), 100u);
}

TEST(Runner, NodeLimitStopsWithinARule) {
  // The limit is checked after every applied match, so a rule with many matches cannot
  // overshoot it by more than one match's nodes.
  EGraph eg;
  eg.add_term(RecExpr::parse("(+ a (+ b (+ c (+ d (+ e (+ f (+ g (+ h i))))))))"));
  auto rules = comm_assoc();
  Report r = Runner(simple().with_node_limit(500)).run(eg, rules);
  EXPECT_EQ(r.stop.reason, StopReason::kNodeLimit);
  // One comm/assoc application adds at most two e-nodes; the rebuild only removes some.
  EXPECT_LE(eg.num_nodes(), 502u);
  EXPECT_LE(r.iterations.back().egraph_nodes, 502u);
  std::size_t applied = 0;
  for (const auto& rule : r.iterations.back().rules) applied += rule.applied;
  EXPECT_EQ(applied, r.iterations.back().applied);
}

TEST(Runner, TimeLimit) {
  EGraph eg;
  eg.add_term(RecExpr::parse("(+ a (+ b (+ c (+ d (+ e (+ f g))))))"));
  auto rules = comm_assoc();
  Report r = Runner(simple().with_time_limit(std::chrono::duration<double>(0))).run(eg, rules);
  EXPECT_EQ(r.stop.reason, StopReason::kTimeLimit);
  EXPECT_EQ(r.stop.limit, 0);
}

// A deadline stops a search and an apply part-way (the runner's time limit inside an
// iteration): the clock is read every 256 steps, so a passed deadline leaves most work undone.
TEST(Runner, DeadlineStopsSearchAndApplyWithinARule) {
  EGraph eg;
  Id sum = eg.add_term(RecExpr::parse("x0"));
  for (int i = 1; i < 2000; ++i)
    sum = eg.add(Symbol::intern("+"), {sum, eg.add_term(RecExpr::parse("x" + std::to_string(i)))});
  eg.rebuild();
  Rewrite comm = rewrite("comm-add", "(+ ?a ?b)", "(+ ?b ?a)");
  Matches all, cut;
  comm.search(eg, all, 100'000);
  EXPECT_EQ(all.size(), 1999u);
  const Deadline passed(Deadline::Clock::now() - std::chrono::seconds(1));
  EXPECT_TRUE(passed.passed());
  EXPECT_FALSE(Deadline().passed());
  comm.search(eg, cut, 100'000, passed);
  EXPECT_LE(cut.size(), 256u);
  ApplyResult applied =
      comm.apply(eg, all, nullptr, std::numeric_limits<std::size_t>::max(), passed);
  EXPECT_LT(applied.applied, 256u);
  EXPECT_EQ(applied.applied + comm.apply(eg, all).applied, 1999u); // the rest, without one
}

TEST(Runner, HookStopsTheRunAndProgressIsReported) {
  EGraph eg;
  eg.add_term(RecExpr::parse("(+ a (+ b (+ c (+ d (+ e f)))))"));
  auto rules = comm_assoc();
  std::vector<std::size_t> seen;
  auto cfg = simple()
                 .with_progress([&](const Iteration& it) { seen.push_back(it.index); })
                 .with_hook([](const EGraph& g, const Iteration&) -> std::optional<std::string> {
                   if (g.num_classes() > 20) return std::string("big enough");
                   return std::nullopt;
                 });
  Report r = Runner(cfg).run(eg, rules);
  EXPECT_EQ(r.stop.reason, StopReason::kOther);
  EXPECT_EQ(r.stop.message, "big enough");
  EXPECT_EQ(seen.size(), r.iterations.size());
  EXPECT_EQ(seen.front(), 0u);
}

TEST(Runner, ReportPrintsTableAndJson) {
  EGraph eg;
  eg.add_term(RecExpr::parse("(+ a b)"));
  auto rules = comm_assoc();
  Report r = Runner(simple()).run(eg, rules);
  ASSERT_EQ(r.iterations.size(), 2u);
  EXPECT_EQ(r.iterations[0].rules[0].applied, 1u); // comm-add once
  EXPECT_EQ(r.iterations[0].egraph_nodes, 4u);
  std::string table = r.to_table();
  EXPECT_NE(table.find("iter     enodes"), std::string::npos) << table;
  EXPECT_NE(table.find("stop: saturated after 2 iterations"), std::string::npos) << table;
  EXPECT_NE(table.find("comm-add"), std::string::npos);
  std::string json = r.to_json();
  EXPECT_EQ(json.rfind("{\"stop\":{\"reason\":\"saturated\"", 0), 0u) << json;
  EXPECT_NE(json.find("\"rules\":[\"comm-add\",\"assoc-add\",\"assoc-add-rev\"]"),
            std::string::npos);
  EXPECT_NE(json.find("\"union_pass_applied\":0,\"congruence_restores\":0,"), std::string::npos)
      << json;
}

TEST(Scheduler, BackoffBansAnExplodingRule) {
  EGraph eg;
  eg.add_term(RecExpr::parse("(+ a (+ b (+ c (+ d (+ e (+ f (+ g h)))))))"));
  auto rules = comm_assoc();
  BackoffScheduler backoff = BackoffScheduler().with_match_limit(8).with_ban_length(2);
  Report r =
      Runner(RunnerConfig().with_scheduler(backoff).with_iter_limit(6).with_node_limit(1'000'000))
          .run(eg, rules);
  std::size_t banned = 0;
  for (const auto& it : r.iterations)
    for (const auto& rule : it.rules) banned += rule.banned ? 1 : 0;
  EXPECT_GT(banned, 0u);

  EGraph eg2;
  eg2.add_term(RecExpr::parse("(+ a (+ b (+ c (+ d (+ e (+ f (+ g h)))))))"));
  Report r2 = Runner(simple().with_iter_limit(6).with_node_limit(1'000'000)).run(eg2, rules);
  for (const auto& it : r2.iterations)
    for (const auto& rule : it.rules) EXPECT_FALSE(rule.banned);
  EXPECT_GT(eg2.num_nodes(), eg.num_nodes()); // throttling kept the graph smaller
}

TEST(Scheduler, BackoffUnbansBeforeSaturating) {
  BackoffScheduler s = BackoffScheduler().with_match_limit(1).with_ban_length(3).do_not_ban("b");
  std::vector<Rewrite> rules;
  rules.push_back(rewrite("a", "(f ?x)", "(g ?x)"));
  rules.push_back(rewrite("b", "(g ?x)", "(h ?x)"));
  s.start(rules);
  EXPECT_EQ(s.search_limit(0, 0), 2u);
  EXPECT_FALSE(s.accept(0, 0, 2)); // more than 1 match: banned for 3 iterations
  EXPECT_TRUE(s.is_banned(1, 0));
  EXPECT_EQ(s.search_limit(1, 0), 0u);
  EXPECT_TRUE(s.accept(0, 1, 1000)); // never banned
  EXPECT_FALSE(s.can_stop(1));       // a ban is pending: lifted early, run continues
  EXPECT_FALSE(s.is_banned(2, 0));
  EXPECT_EQ(s.search_limit(2, 0), 3u); // threshold doubled: 2, search one more
  EXPECT_EQ(s.times_banned(0), 1u);
}

} // namespace tilesat::egraph
