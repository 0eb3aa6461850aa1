// Tests on the real-model fixtures (tests/models/README.md): each model imports, is optimized
// with every shipped rule set and planned for wormhole_b0, and the plan's graph shows the
// fusions the model-fusion rules exist for (op counts before and after) and computes what the
// imported graph computes (reference interpreter; parameters drawn with RandomInit::FanIn).
#include "tilesat/cost/device.h"
#include "tilesat/cost/extract.h"
#include "tilesat/graph/interpreter.h"
#include "tilesat/onnx/import.h"
#include "tilesat/rewrites/rule_sets.h"

#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <string>

namespace tilesat {
namespace {

using OpCounts = std::map<std::string, int>;

/// How many ops of each kind `g` computes (arguments are not ops).
OpCounts op_counts(const Graph& g) {
  OpCounts c;
  for (NodeId id : g.topological_order()) {
    if (g.node(id).kind != OpKind::Argument) ++c[std::string(op_name(g.node(id).kind))];
  }
  return c;
}

/// The ops of kind `kind` in `g` whose attribute `attr` is the string `value`.
int ops_with(const Graph& g, OpKind kind, std::string_view attr, std::string_view value) {
  int n = 0;
  for (NodeId id : g.topological_order()) {
    const Node& node = g.node(id);
    if (node.kind == kind && node.attrs.get_or<std::string>(std::string(attr), "") == value) ++n;
  }
  return n;
}

/// Every op of kind `kind` in `g` has `n` operands.
void expect_operands(const Graph& g, OpKind kind, size_t n) {
  for (NodeId id : g.topological_order()) {
    if (g.node(id).kind == kind) {
      EXPECT_EQ(g.node(id).operands.size(), n) << op_name(kind);
    }
  }
}

struct Compiled {
  onnx::ImportedModel model;
  cost::DevicePlanResult planned;
};

Compiled compile(const std::string& name) {
  Compiled c;
  c.model = onnx::import_file(std::string(TILESAT_MODELS_DIR) + "/" + name + ".onnx");
  std::vector<egraph::Rewrite> rules = rewrites::load_rule_sets(rewrites::rule_set_names());
  cost::CostModel model(cost::load_device("wormhole_b0"));
  c.planned = cost::optimize_for_device(c.model.graph, rules, egraph::RunnerConfig{}, model,
                                        cost::ExtractOptions{});
  return c;
}

/// Normwise relative difference ||a - b|| / ||b||.
double relative_error(const Tensor& a, const Tensor& b) {
  double diff = 0, norm = 0;
  for (int64_t i = 0; i < b.numel(); ++i) {
    diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    norm += double(b[i]) * b[i];
  }
  return std::sqrt(diff / std::max(norm, 1e-300));
}

/// The plan's graph computes what the imported graph computes, to f32 rounding; and the drawn
/// parameters keep the output finite and of moderate size.
void expect_same_values(const Compiled& c) {
  std::vector<Tensor> args = onnx::arguments(c.model, 1, RandomInit::FanIn);
  std::vector<Tensor> want = evaluate(c.model.graph, args);
  std::vector<Tensor> got = evaluate(c.planned.plan.graph, args);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].shape(), want[i].shape());
    EXPECT_LE(relative_error(got[i], want[i]), 1e-5) << "result " << i;
    float biggest = 0;
    for (float v : want[i].data()) {
      ASSERT_TRUE(std::isfinite(v));
      biggest = std::max(biggest, std::fabs(v));
    }
    EXPECT_GT(biggest, 1e-2f);
    EXPECT_LT(biggest, 1e3f);
  }
}

void expect_counts(const OpCounts& got, const OpCounts& want, const char* when) {
  for (const auto& [op, n] : want) {
    auto it = got.find(op);
    EXPECT_EQ(it == got.end() ? 0 : it->second, n) << op << " " << when;
  }
}

TEST(ResNet18, ConvBiasAndReluFuse) {
  Compiled c = compile("resnet18");
  expect_counts(
      op_counts(c.model.graph),
      {{"conv2d", 20}, {"relu", 17}, {"add", 8}, {"max_pool2d", 1}, {"mean", 1}, {"linear", 1}},
      "before");
  const Graph& after = c.planned.plan.graph;
  // 8 relus follow a residual add (add_relu), the other 9 run in their conv's kernel.
  expect_counts(op_counts(after), {{"conv2d", 20}, {"relu", 0}, {"add", 0}, {"add_relu", 8}},
                "after");
  EXPECT_EQ(ops_with(after, OpKind::Conv2d, "activation", "relu"), 9);
  expect_operands(after, OpKind::Conv2d, 3); // the bias folded in
  EXPECT_EQ(c.planned.report.stop.reason, egraph::StopReason::kSaturated);
  expect_same_values(c);
}

TEST(MobileNetV2, Relu6FusesIntoOneKernel) {
  Compiled c = compile("mobilenet_v2");
  const Graph& before = c.model.graph;
  // Clip(0, 6) imports as relu then minimum.
  expect_counts(op_counts(before),
                {{"conv2d", 52}, {"relu", 35}, {"minimum", 35}, {"add", 10}, {"linear", 1}},
                "before");
  int depthwise = 0;
  for (NodeId id : before.topological_order()) {
    const Node& n = before.node(id);
    if (n.kind == OpKind::Conv2d && n.attrs.get_or<int64_t>("groups", 1) > 1) ++depthwise;
  }
  EXPECT_EQ(depthwise, 17);
  // Each ReLU6 is one kernel (a fused relu + minimum, or relu in the conv then minimum).
  OpCounts after = op_counts(c.planned.plan.graph);
  expect_counts(after, {{"conv2d", 52}, {"add", 10}}, "after");
  EXPECT_EQ(after["relu"], 0);
  EXPECT_EQ(after["fused_eltwise"] + after["minimum"], 35);
  expect_same_values(c);
}

TEST(BertLayer, LayerNormGeluAndLinearAreRecognized) {
  Compiled c = compile("bert_layer");
  // Opset 14: LayerNorm arrives decomposed, GELU in its erf form.
  expect_counts(op_counts(c.model.graph),
                {{"matmul", 8},
                 {"mean", 4},
                 {"pow", 2},
                 {"sqrt", 2},
                 {"erf", 1},
                 {"softmax", 1},
                 {"layer_norm", 0},
                 {"gelu", 0},
                 {"linear", 0}},
                "before");
  const Graph& after = c.planned.plan.graph;
  OpCounts counts = op_counts(after);
  // The attention (scores, scale, mask, softmax, values) is one op, its heads joined by one.
  // Q, K and V are one linear on concatenated weights (parallel-merge; the weights are inputs
  // of this fixture, so the concats run in every inference and still pay), then the output
  // projection and the two of the feed-forward block.
  expect_counts(counts,
                {{"layer_norm", 2},
                 {"linear", 4},
                 {"concat", 2},
                 {"scaled_dot_product_attention", 1},
                 {"concatenate_heads", 1},
                 {"matmul", 0},
                 {"softmax", 0},
                 {"mean", 0},
                 {"pow", 0},
                 {"sqrt", 0},
                 {"erf", 0},
                 {"subtract", 0}},
                "after");
  // GELU runs in the kernel of the linear before it.
  EXPECT_EQ(counts["gelu"], 0);
  EXPECT_EQ(ops_with(after, OpKind::Linear, "activation", "gelu"), 1);
  expect_operands(after, OpKind::LayerNorm, 3); // the scale and bias folded in
  expect_same_values(c);
}

TEST(Gpt2Block, GeluAndLinearAreRecognized) {
  Compiled c = compile("gpt2_block");
  // Opset 17: LayerNormalization imports as layer_norm; the causal mask is a where.
  expect_counts(
      op_counts(c.model.graph),
      {{"layer_norm", 2}, {"matmul", 6}, {"erf", 1}, {"where", 1}, {"softmax", 1}, {"slice", 3}},
      "before");
  const Graph& after = c.planned.plan.graph;
  OpCounts counts = op_counts(after);
  // The fused Q/K/V projection splits into heads as one ttnn op's three parts; the attention,
  // masked by the where, is one op.
  expect_counts(counts,
                {{"layer_norm", 2},
                 {"linear", 4},
                 {"split_heads", 3},
                 {"scaled_dot_product_attention", 1},
                 {"concatenate_heads", 1},
                 {"matmul", 0},
                 {"where", 0},
                 {"slice", 0},
                 {"erf", 0}},
                "after");
  // GELU runs in the kernel of the linear before it.
  EXPECT_EQ(counts["gelu"], 0);
  EXPECT_EQ(ops_with(after, OpKind::Linear, "activation", "gelu"), 1);
  expect_same_values(c);
}

} // namespace
} // namespace tilesat
