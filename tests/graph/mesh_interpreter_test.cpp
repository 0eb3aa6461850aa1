// Tests of mesh_interpreter.cpp: per-chip graphs written in TTIR text (data parallel, Megatron
// tensor parallel, all_gather and reduce_scatter variants, a 2-D mesh), each run by
// interpret_mesh on random inputs and compared with the plain interpreter on the one-chip
// graph; and the errors for a graph that does not fit its mesh.
#include "tilesat/graph/interpreter.h"
#include "tilesat/graph/mesh_interpreter.h"
#include "tilesat/graph/parser.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace tilesat {
namespace {

// The one-chip graph: relu(x @ w1) @ w2 with x 64x32, w1 32x64, w2 64x16.
constexpr const char* kMlp = R"(
func.func @main(%x: tensor<64x32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %0 = "ttir.matmul"(%x, %w1) : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  %1 = "ttir.relu"(%0) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %2 = "ttir.matmul"(%1, %w2) : (tensor<64x64xf32>, tensor<64x16xf32>) -> tensor<64x16xf32>
  return %2 : tensor<64x16xf32>
})";

// One mesh_shard line: `%name = mesh_shard(%in)` from `from` to `to`.
std::string shard(std::string_view name, std::string_view in, std::string_view from,
                  std::string_view to, std::string_view shape, std::string_view dims,
                  bool to_full = false) {
  bool replicate = shape == "1";
  return fmt::format(
      "  %{} = \"ttir.mesh_shard\"(%{}) <{{shard_dims = array<i64: {}>, shard_direction = "
      "#ttcore.shard_direction<{}>, shard_shape = array<i64: {}>, shard_type = "
      "#ttcore.shard_type<{}>}}> : (tensor<{}xf32>) -> tensor<{}xf32>\n",
      name, in, dims, to_full ? "shard_to_full" : "full_to_shard", shape,
      replicate ? "replicate" : "devices", from, to);
}

std::string per_chip(std::string_view body) {
  return fmt::format("func.func @main(%x: tensor<64x32xf32>, %w1: tensor<32x64xf32>, %w2: "
                     "tensor<64x16xf32>) -> tensor<64x16xf32> {{\n{}}}\n",
                     body);
}

Graph parse(const std::string& text) {
  return select_function(parse_text(text, "test.mlir"), "");
}

// interpret_mesh on `text` against evaluate() on the one-chip MLP, on random inputs.
void expect_matches_one_chip(const std::string& text, MeshShape mesh) {
  Graph g = parse(text), one = parse(kMlp);
  std::vector<Tensor> args = random_arguments(one, 7);
  std::vector<Tensor> want = evaluate(one, args);
  std::vector<Tensor> got = interpret_mesh(g, args, mesh);
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].shape(), want[0].shape());
  for (int64_t i = 0; i < want[0].numel(); ++i) {
    ASSERT_NEAR(got[0][i], want[0][i], 1e-4 * (1 + std::abs(want[0][i]))) << "element " << i;
  }
}

std::string mesh_error(const std::string& text, MeshShape mesh) {
  Graph g = parse(text);
  try {
    interpret_mesh(g, random_arguments(g, 1), mesh);
  } catch (const Error& e) {
    return e.diagnostic().message;
  }
  return "no error";
}

TEST(InterpretMesh, DataParallel) {
  // The batch split over 8 chips, the weights replicated, no collective.
  std::string body =
      shard("xs", "x", "64x32", "8x32", "8, 1", "-1, 0") +
      shard("w1r", "w1", "32x64", "32x64", "1", "-1") +
      shard("w2r", "w2", "64x16", "64x16", "1", "-1") +
      R"(  %0 = "ttir.matmul"(%xs, %w1r) : (tensor<8x32xf32>, tensor<32x64xf32>) -> tensor<8x64xf32>
  %1 = "ttir.relu"(%0) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %2 = "ttir.matmul"(%1, %w2r) : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
)" + shard("y", "2", "8x16", "64x16", "8, 1", "-1, 0", true) +
      "  return %y : tensor<64x16xf32>\n";
  expect_matches_one_chip(per_chip(body), {1, 8});
}

// Megatron: w1 split by columns, w2 by rows, one all_reduce of the partial products.
std::string megatron(int64_t n, std::string_view axis_dims_col, std::string_view axis_dims_row,
                     int64_t cluster_axis) {
  int64_t k = 64 / n;
  std::string col = fmt::format("1, {}", n);
  std::string row = fmt::format("{}, 1", n);
  return shard("xr", "x", "64x32", "64x32", "1", "-1") +
         shard("w1s", "w1", "32x64", fmt::format("32x{}", k), col, axis_dims_col) +
         shard("w2s", "w2", "64x16", fmt::format("{}x16", k), row, axis_dims_row) +
         fmt::format(
             R"(  %0 = "ttir.matmul"(%xr, %w1s) : (tensor<64x32xf32>, tensor<32x{0}xf32>) -> tensor<64x{0}xf32>
  %1 = "ttir.relu"(%0) : (tensor<64x{0}xf32>) -> tensor<64x{0}xf32>
  %2 = "ttir.matmul"(%1, %w2s) : (tensor<64x{0}xf32>, tensor<{0}x16xf32>) -> tensor<64x16xf32>
  %3 = "ttir.all_reduce"(%2) <{{cluster_axis = {1} : ui32, reduce_type = #ttcore.reduce_type<sum>}}> : (tensor<64x16xf32>) -> tensor<64x16xf32>
)",
             k, cluster_axis) +
         shard("y", "3", "64x16", "64x16", "1", "-1", true) + "  return %y : tensor<64x16xf32>\n";
}

TEST(InterpretMesh, MegatronAllReduce) {
  expect_matches_one_chip(per_chip(megatron(8, "-1, 1", "-1, 0", 1)), {1, 8});
  // The same split over the 4 chips of a column (cluster_axis 0) of a 4x2 mesh.
  expect_matches_one_chip(per_chip(megatron(4, "1, -1", "0, -1", 0)), {4, 2});
}

TEST(InterpretMesh, AllGatherResultEqualOnEveryChip) {
  // Column-parallel first linear, its shards gathered; the result is the same on every chip.
  std::string body =
      shard("xr", "x", "64x32", "64x32", "1", "-1") +
      shard("w1s", "w1", "32x64", "32x8", "1, 8", "-1, 1") +
      shard("w2r", "w2", "64x16", "64x16", "1", "-1") +
      R"(  %0 = "ttir.matmul"(%xr, %w1s) : (tensor<64x32xf32>, tensor<32x8xf32>) -> tensor<64x8xf32>
  %1 = "ttir.relu"(%0) : (tensor<64x8xf32>) -> tensor<64x8xf32>
  %2 = "ttir.all_gather"(%1) <{all_gather_dim = 1 : si32, cluster_axis = 1 : ui32}> : (tensor<64x8xf32>) -> tensor<64x64xf32>
  %3 = "ttir.matmul"(%2, %w2r) : (tensor<64x64xf32>, tensor<64x16xf32>) -> tensor<64x16xf32>
  return %3 : tensor<64x16xf32>
)";
  expect_matches_one_chip(per_chip(body), {1, 8});
}

TEST(InterpretMesh, ReduceScatter) {
  // Row-parallel first product (x split by columns, w1 by rows), its partial sums reduced and
  // scattered by rows, the rest data parallel.
  std::string body =
      shard("xs", "x", "64x32", "64x4", "1, 8", "-1, 1") +
      shard("w1s", "w1", "32x64", "4x64", "8, 1", "-1, 0") +
      shard("w2r", "w2", "64x16", "64x16", "1", "-1") +
      R"(  %0 = "ttir.matmul"(%xs, %w1s) : (tensor<64x4xf32>, tensor<4x64xf32>) -> tensor<64x64xf32>
  %1 = "ttir.reduce_scatter"(%0) <{cluster_axis = 1 : ui32, reduce_type = #ttcore.reduce_type<sum>, scatter_dim = 0 : si32}> : (tensor<64x64xf32>) -> tensor<8x64xf32>
  %2 = "ttir.relu"(%1) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %3 = "ttir.matmul"(%2, %w2r) : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
)" + shard("y", "3", "8x16", "64x16", "8, 1", "-1, 0", true) +
      "  return %y : tensor<64x16xf32>\n";
  expect_matches_one_chip(per_chip(body), {1, 8});
}

TEST(InterpretMesh, DataAndTensorParallelOnTwoAxes) {
  // 2x4: the batch split over the rows (axis 0), Megatron over the 4 chips of each row.
  std::string body =
      shard("xs", "x", "64x32", "32x32", "2, 1", "0, -1") +
      shard("w1s", "w1", "32x64", "32x16", "1, 4", "-1, 1") +
      shard("w2s", "w2", "64x16", "16x16", "4, 1", "-1, 0") +
      R"(  %0 = "ttir.matmul"(%xs, %w1s) : (tensor<32x32xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
  %1 = "ttir.relu"(%0) : (tensor<32x16xf32>) -> tensor<32x16xf32>
  %2 = "ttir.matmul"(%1, %w2s) : (tensor<32x16xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
  %3 = "ttir.all_reduce"(%2) <{cluster_axis = 1 : ui32, reduce_type = #ttcore.reduce_type<sum>}> : (tensor<32x16xf32>) -> tensor<32x16xf32>
)" + shard("y", "3", "32x16", "64x16", "2, 1", "0, -1", true) +
      "  return %y : tensor<64x16xf32>\n";
  expect_matches_one_chip(per_chip(body), {2, 4});
}

TEST(InterpretMesh, Errors) {
  // Without the all_reduce, each chip holds a partial product.
  std::string partial = per_chip(
      shard("xr", "x", "64x32", "64x32", "1", "-1") +
      shard("w1s", "w1", "32x64", "32x8", "1, 8", "-1, 1") +
      shard("w2s", "w2", "64x16", "8x16", "8, 1", "-1, 0") +
      R"(  %0 = "ttir.matmul"(%xr, %w1s) : (tensor<64x32xf32>, tensor<32x8xf32>) -> tensor<64x8xf32>
  %1 = "ttir.matmul"(%0, %w2s) : (tensor<64x8xf32>, tensor<8x16xf32>) -> tensor<64x16xf32>
  return %1 : tensor<64x16xf32>
)");
  EXPECT_EQ(mesh_error(partial, {1, 8}),
            "result 0 (%1) differs between chip 0 and chip 1 of the 1x8 mesh: a per-chip "
            "graph's result must come out of a shard_to_full mesh_shard or be equal on every "
            "chip");
  EXPECT_EQ(mesh_error(partial, {2, 4}), "'ttir.mesh_shard' %w1s: expected shard_shape[1] = 4 (the "
                                         "chips along mesh axis 1 of a 2x4 mesh), got 8");
  EXPECT_EQ(mesh_error(per_chip(megatron(4, "1, -1", "0, -1", 0)), {4, 1}), "no error");
  EXPECT_NE(mesh_error(partial, {0, 8}).find("expected a mesh of at least 1x1 chips, got 0x8"),
            std::string::npos);
}

} // namespace
} // namespace tilesat
