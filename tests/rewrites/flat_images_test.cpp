// Tests of rules/flat-images.rules: NCHW convs, pools and global means on ttnn's flattened
// NHWC images. A cost that prefers the flattened ops extracts a ResNet bottleneck block that
// runs flattened end to end (the moves between neighbours cancelled); the extracted graph is
// compared with the source on random inputs (the soundness evidence: conv2d and the pools
// have no Z3 encoding).
#include "rewrite_test_support.h"
#include "tilesat/egraph/runner.h"
#include "tilesat/graph/conv_attrs.h"
#include "tilesat/graph/printer.h"
#include "tilesat/rewrites/extract.h"
#include "tilesat/rewrites/payload.h"

#include <gmock/gmock.h>

namespace tilesat::rewrites::testing {
namespace {

constexpr const char* kRules = "flat-images,canonical,transpose-folding";

bool is_window_op(OpKind k) {
  return k == OpKind::Conv2d || k == OpKind::MaxPool2d || k == OpKind::AvgPool2d;
}

// Flattened convs and pools cost 1, their 4-D forms and means 100, moves 10, the rest 1.
Graph flatten(const Graph& g) {
  TensorEGraph teg = to_egraph(g);
  egraph::Runner().run(teg.egraph, rules_from(kRules));
  PerOpCost cost([&teg](OpKind kind, const egraph::ENode& node) {
    if (is_window_op(kind)) {
      Attrs a = complete_attrs(kind, teg.facts->attrs_of(teg.egraph, node));
      return flat_image(a).active() ? 1.0 : 100.0;
    }
    if (kind == OpKind::Mean) return 100.0;
    if (kind == OpKind::Permute || kind == OpKind::Reshape) return 10.0;
    return 1.0;
  });
  return to_graph(teg, select_cheapest(teg, cost));
}

size_t count(const Graph& g, OpKind kind) {
  size_t n = 0;
  for (NodeId id : g.topological_order()) n += g.node(id).kind == kind ? 1 : 0;
  return n;
}

// A stem conv and a ResNet bottleneck on a 7x7 plane (the tiles of an NCHW layer-4 tensor pad
// 21x), then a max pool and the global average pool and flatten of the classifier head.
void bottleneck(Builder& b) {
  Conv2dOptions relu{.activation = "relu"};
  Value x = b.conv2d(b.input("x", {2, 3, 7, 7}), b.weight("w0", {8, 3, 1, 1}), relu);
  Value h = b.conv2d(x, b.weight("w1", {4, 8, 1, 1}), b.weight("b1", {4}), relu);
  Conv2dOptions pad = relu;
  pad.padding = {1, 1, 1, 1};
  h = b.conv2d(h, b.weight("w2", {4, 4, 3, 3}), b.weight("b2", {4}), pad);
  h = b.conv2d(h, b.weight("w3", {8, 4, 1, 1}), b.weight("b3", {8}));
  Value y = b.add_relu(h, x);
  y = b.max_pool2d(y, {3, 3}, {.stride = {2, 2}, .padding = {1, 1, 1, 1}});
  b.output(b.reshape(b.mean(y, {.dims = {2, 3}, .keep_dim = true}), {2, 8}));
}

TEST(FlatImages, BottleneckRunsFlattenedEndToEnd) {
  Graph g;
  Builder b(g);
  bottleneck(b);
  Graph out = flatten(g);
  SCOPED_TRACE(print_graph(out));
  size_t windows = 0;
  for (NodeId id : out.topological_order()) {
    const Node& n = out.node(id);
    if (!is_window_op(n.kind)) continue;
    ++windows;
    EXPECT_TRUE(flat_image(complete_attrs(n.kind, n.attrs)).active()) << op_name(n.kind);
  }
  EXPECT_EQ(windows, 6u); // four convs, the max pool and the global pool
  EXPECT_EQ(count(out, OpKind::Mean), 0u);
  // One move into the flattened form (the input), none between the ops; the residual add
  // runs flattened.
  EXPECT_EQ(count(out, OpKind::Permute), 1u);
  EXPECT_TRUE(same_values(g, out));
}

// The 4-D forms stay in the e-graph: the default extractor (fewest ops) keeps them.
REWRITE_TEST(FlatImages, DefaultExtractionKeepsNchw, kRules, bottleneck,
             "conv2d conv2d conv2d conv2d add_relu max_pool2d mean reshape")

// A mean over other dims, or of a rank-3 tensor, is no global pool.
REWRITE_TEST(
    FlatImages, OtherMeansStay, kRules,
    [](Builder& b) {
      b.output(b.mean(b.input("x", {2, 3, 4, 5}), {.dims = {1, 2}, .keep_dim = true}));
      b.output(b.mean(b.input("y", {3, 4, 5}), {.dims = {1, 2}}));
    },
    "mean mean")

// A flattened conv is not flattened again.
TEST(FlatImages, FlatOpsDoNotMatch) {
  Graph g;
  Builder b(g);
  b.output(b.conv2d(b.input("x", {1, 1, 18, 4}), b.weight("w", {6, 4, 1, 1}),
                    {.dims = ConvDims{}, .flat = FlatImage{2, 3, 3}}));
  TensorEGraph teg = to_egraph(g);
  egraph::Report r = egraph::Runner().run(teg.egraph, rules_from(kRules));
  EXPECT_EQ(teg.egraph.num_classes(), 3u) << r.to_table();
}

} // namespace
} // namespace tilesat::rewrites::testing
