// Const-eval end to end: the planner marks work on weights one-time, lowering puts it first,
// and the runtime runs it on the first inference and again only when a weight changes.
#include "tilesat/cost/device.h"
#include "tilesat/cost/extract.h"
#include "tilesat/cost/planner.h"
#include "tilesat/graph/builder.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/interpreter.h"
#include "tilesat/lowering/device_summary.h"
#include "tilesat/lowering/lower.h"
#include "tilesat/rewrites/rule_sets.h"
#include "tilesat/runtime/compare.h"
#include "tilesat/runtime/mesh_run.h"
#include "tilesat/runtime/run.h"

#include <algorithm>
#include <gmock/gmock.h>

namespace tilesat::runtime {
namespace {

using ::testing::HasSubstr;

// y = relu(x @ transpose(w) + b): the weight's transpose and tiling depend on weights only.
Graph linear_layer() {
  Graph g("layer");
  Builder b(g);
  Value x = b.input("x", {64, 128});
  Value w = b.weight("w", {96, 128});
  Value bias = b.weight("b", {96});
  Attrs perm;
  perm.set("permutation", std::vector<int64_t>{1, 0});
  Value wt = b.op(OpKind::Permute, {w}, perm);
  b.output(b.relu(b.add(b.matmul(x, wt), bias)));
  return g;
}

cost::Plan plan_of(const Graph& g, bool const_eval) {
  cost::CostOptions o;
  o.const_eval = const_eval;
  cost::CostModel model(cost::load_device("wormhole_b0"), o);
  static const std::vector<egraph::Rewrite> rules =
      rewrites::load_rule_sets(rewrites::default_rule_set_names());
  return cost::optimize_for_device(g, rules, {}, model, {}).plan;
}

TEST(ConstEval, WorkOnWeightsIsOneTimeAndComesFirst) {
  Graph g = linear_layer();
  cost::Plan with = plan_of(g, true);
  cost::Plan without = plan_of(g, false);
  size_t one_time = 0;
  for (const cost::PlannedOp& op : with.ops) one_time += op.one_time ? 1 : 0;
  // The weight's permute and the tiling of w and b, never x's.
  EXPECT_GE(one_time, 2u);
  EXPECT_TRUE(std::is_partitioned(with.ops.begin(), with.ops.end(),
                                  [](const cost::PlannedOp& op) { return op.one_time; }));
  for (const cost::PlannedOp& op : with.ops) {
    if (!op.one_time) continue;
    EXPECT_NE(with.graph.node(op.node).name, "x") << op.name;
    EXPECT_EQ(with.values[op.result].placement.buffer, cost::BufferType::DRAM) << op.name;
  }
  EXPECT_TRUE(std::none_of(without.ops.begin(), without.ops.end(),
                           [](const cost::PlannedOp& op) { return op.one_time; }));
  EXPECT_EQ(without.predicted_one_time_us, 0);
  EXPECT_GT(with.predicted_one_time_us, 0);
  // Per inference, const-eval saves at least the one-time work it moved out.
  EXPECT_LT(with.predicted_total_us, without.predicted_total_us);
  double sum = 0;
  for (const cost::PlannedOp& op : with.ops) sum += op.predicted_us;
  EXPECT_NEAR(sum, with.predicted_total_us + with.predicted_one_time_us, 1e-9);
}

struct Loaded {
  Graph g;
  Program program;
};

Loaded load(const Graph& g) {
  cost::Plan plan = plan_of(g, true);
  std::vector<uint8_t> bytes =
      lowering::lower_plan(plan, lowering::DeviceSummary::of(cost::load_device("wormhole_b0")));
  return {g, Program::parse(std::move(bytes), "layer.tsprog")};
}

TEST(ConstEval, RunsOnceAndAgainWhenAWeightChanges) {
  Loaded l = load(linear_layer());
  std::vector<Tensor> args = random_arguments(l.g, 3);
  Runner r(l.program);
  RunResult first = r.run(args);
  EXPECT_TRUE(first.profile.const_eval_ran);
  EXPECT_GT(first.profile.one_time_device_us, 0);
  EXPECT_TRUE(compare(first.outputs[0], evaluate(l.g, args)[0], DType::F32).ok);

  // A new x only: the one-time results are reused, bit for bit the same computation.
  std::vector<Tensor> next = args;
  next[0] = random_arguments(l.g, 4)[0];
  RunResult second = r.run(next);
  EXPECT_FALSE(second.profile.const_eval_ran);
  EXPECT_TRUE(std::none_of(second.profile.ops.begin(), second.profile.ops.end(),
                           [](const OpProfile& op) { return op.one_time; }));
  EXPECT_LT(second.profile.ops.size(), first.profile.ops.size());
  EXPECT_TRUE(compare(second.outputs[0], evaluate(l.g, next)[0], DType::F32).ok);
  EXPECT_EQ(first.profile.device_total_us, second.profile.device_total_us);

  // A new weight: const-eval runs again.
  next[1] = random_arguments(l.g, 5)[1];
  RunResult third = r.run(next);
  EXPECT_TRUE(third.profile.const_eval_ran);
  EXPECT_TRUE(compare(third.outputs[0], evaluate(l.g, next)[0], DType::F32).ok);
  EXPECT_THAT(profile_json(third.profile), HasSubstr("\"const_eval_ran\": true"));
}

// run_consuming frees the inputs as it writes them to DRAM; its results and the const-eval
// reuse across calls are those of run().
TEST(ConstEval, RunConsumingMatchesRun) {
  Loaded l = load(linear_layer());
  std::vector<Tensor> args = random_arguments(l.g, 3);
  Runner by_span(l.program), consuming(l.program);
  RunResult want = by_span.run(args);
  RunResult first = consuming.run_consuming(args);
  EXPECT_TRUE(first.profile.const_eval_ran);
  EXPECT_EQ(first.outputs[0].data(), want.outputs[0].data());
  std::vector<Tensor> next = args;
  next[0] = random_arguments(l.g, 4)[0];
  RunResult second = consuming.run_consuming(next);
  EXPECT_FALSE(second.profile.const_eval_ran);
  EXPECT_EQ(second.outputs[0].data(), by_span.run(next).outputs[0].data());
  next[1] = random_arguments(l.g, 5)[1];
  EXPECT_TRUE(consuming.run_consuming(next).profile.const_eval_ran);
  MeshRunner mesh(l.program);
  EXPECT_EQ(mesh.run_consuming(args).outputs[0].data(), want.outputs[0].data());
}

TEST(ConstEval, ConstantOnlyGraphsRunOnce) {
  Graph g("consts");
  Builder b(g);
  b.output(b.relu(b.constant({1, 2}, {-1.5, 2.0})));
  Loaded l = load(g);
  Runner r(l.program);
  RunResult first = r.run({});
  RunResult second = r.run({});
  EXPECT_TRUE(first.profile.const_eval_ran);
  EXPECT_FALSE(second.profile.const_eval_ran);
  EXPECT_EQ(first.outputs[0].data(), second.outputs[0].data());
  EXPECT_TRUE(compare(second.outputs[0], evaluate(g, {})[0], DType::F32).ok);
}

TEST(ConstEval, VerifierRejectsAOneTimeOpAfterAPerInferenceOp) {
  cost::Plan plan = plan_of(linear_layer(), true);
  fb::ProgramT p = lowering::lower_to_object(
      plan, lowering::DeviceSummary::of(cost::load_device("wormhole_b0")));
  ASSERT_FALSE(p.ops.back()->one_time);
  p.ops.back()->one_time = true; // the last op reads x's per-inference values
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(fb::Program::Pack(fbb, &p), fb::ProgramIdentifier());
  std::vector<uint8_t> bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  try {
    Program::parse(std::move(bytes), "bad.tsprog");
    FAIL() << "expected the verifier to reject the program";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("one_time"));
  }
}

} // namespace
} // namespace tilesat::runtime
