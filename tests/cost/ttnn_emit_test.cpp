// Tests of the TTNN-dialect emitter (ttnn_emit.h): layout attributes, conversions, constants,
// matmul activations, several modules sharing aliases.
#include "tilesat/cost/device.h"
#include "tilesat/cost/placement.h"
#include "tilesat/cost/planner.h"
#include "tilesat/cost/ttnn_emit.h"
#include "tilesat/graph/builder.h"
#include "tilesat/graph/diagnostic.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilesat::cost {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

Placement sharded(MemoryLayout m, CoreGrid grid, std::array<int64_t, 2> shard) {
  return Placement{Layout::Tile, BufferType::L1, m, grid, shard};
}

TEST(TtnnLayout, InterleavedCollapsesLeadingDims) {
  TensorType t{DType::BF16, Shape{2, 40, 96}};
  EXPECT_EQ(ttnn_layout_attr(t, dram_tile_placement()),
            "#ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 40 + d1, d2), <1x1>, "
            "memref<4x3x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>");
  EXPECT_EQ(ttnn_layout_attr(t, host_placement()),
            "#ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 40 + d1, d2), <1x1>, memref<80x96xbf16, "
            "#dram>, <interleaved>>");
  EXPECT_EQ(ttnn_layout_attr(TensorType{DType::F32, Shape{10}}, dram_tile_placement()),
            "#ttnn.ttnn_layout<(d0) -> (0, d0), <1x1>, memref<1x1x!ttcore.tile<32x32, f32>, "
            "#dram>, <interleaved>>");
}

TEST(TtnnLayout, ShardedGivesTheGridAndOneShard) {
  TensorType t{DType::BF16, Shape{256, 128}};
  EXPECT_EQ(ttnn_layout_attr(t, sharded(MemoryLayout::BlockSharded, {2, 4}, {128, 32})),
            "#ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <2x4, (d0, d1) -> (d0, d1)>, "
            "memref<4x1x!ttcore.tile<32x32, bf16>, #l1>, <block_sharded>>");
  // Height sharding over 2x4 physical cores: 8 virtual rows, each mapped to (row, column).
  EXPECT_EQ(ttnn_layout_attr(t, sharded(MemoryLayout::HeightSharded, {2, 4}, {32, 128})),
            "#ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <8x1, (d0, d1) -> (d0 floordiv 4, d0 mod "
            "4)>, memref<1x4x!ttcore.tile<32x32, bf16>, #l1>, <height_sharded>>");
  // Seven shards of 256x128 on a 2x4 grid: the virtual grid counts the shards, not the cores.
  TensorType tall{DType::BF16, Shape{224, 128}};
  EXPECT_EQ(ttnn_layout_attr(tall, sharded(MemoryLayout::HeightSharded, {2, 4}, {32, 128})),
            "#ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <7x1, (d0, d1) -> (d0 floordiv 4, d0 mod "
            "4)>, memref<1x4x!ttcore.tile<32x32, bf16>, #l1>, <height_sharded>>");
}

/// x (tile DRAM) and y (host rows) converted and added; the sum converted back to DRAM.
Plan conversion_plan(int64_t rows = 64) {
  Plan p;
  p.device = "test";
  Graph& g = p.graph;
  g.set_name("f");
  TensorType t{DType::BF16, Shape{rows, 64}};
  NodeId x = g.add_argument("x", t);
  NodeId y = g.add_argument("y", t);
  NodeId sum = g.add_op(OpKind::Add, {x, y});
  g.add_result(sum);
  Placement height = sharded(MemoryLayout::HeightSharded, {1, 2}, {32, 64});
  p.values = {
      {x, dram_tile_placement()},  {y, host_placement()}, {x, height}, {y, height}, {sum, height},
      {sum, dram_tile_placement()}};
  auto op = [](NodeId n, std::string kind, std::vector<uint32_t> ins, uint32_t out) {
    PlannedOp o;
    o.node = n;
    o.kind = std::move(kind);
    o.operands = std::move(ins);
    o.result = out;
    return o;
  };
  p.ops = {op(x, "to_layout", {0}, 2), op(y, "to_layout", {1}, 3), op(sum, "add", {2, 3}, 4),
           op(sum, "to_layout", {4}, 5)};
  p.results = {5};
  return p;
}

TEST(TtnnEmit, ConversionsAreToMemoryConfigOrToLayout) {
  std::string text = emit_ttnn(conversion_plan());
  EXPECT_THAT(text, HasSubstr("#dram = #ttnn.buffer_type<dram>\n#l1 = #ttnn.buffer_type<l1>\n"));
  EXPECT_THAT(text, HasSubstr("func.func @f(%arg0: tensor<64x64xbf16, #ttnn_layout>, %arg1: "
                              "tensor<64x64xbf16, #ttnn_layout1>) -> tensor<64x64xbf16, "
                              "#ttnn_layout>"));
  std::string height_config = "#ttnn.memory_config<#l1, <height_sharded>, #ttnn.shard_spec<<[#"
                              "ttnn.core_range<(0,0), (1,0)>]>, <32x64>, <row_major>>>";
  EXPECT_THAT(text,
              HasSubstr("%0 = \"ttnn.to_memory_config\"(%arg0) <{memory_config = " + height_config +
                        "}> : (tensor<64x64xbf16, #ttnn_layout>) -> "
                        "tensor<64x64xbf16, #ttnn_layout2>\n"));
  EXPECT_THAT(text, HasSubstr("%1 = \"ttnn.to_layout\"(%arg1) <{layout = #ttnn.layout<tile>, "
                              "memory_config = " +
                              height_config + "}>"));
  EXPECT_THAT(text, HasSubstr("%2 = \"ttnn.add\"(%0, %1) : (tensor<64x64xbf16, #ttnn_layout2>, "
                              "tensor<64x64xbf16, #ttnn_layout2>) -> tensor<64x64xbf16, "
                              "#ttnn_layout2>\n"));
  EXPECT_THAT(text, HasSubstr("%3 = \"ttnn.to_memory_config\"(%2) <{memory_config = "
                              "#ttnn.memory_config<#dram, <interleaved>>}>"));
  EXPECT_THAT(text, HasSubstr("return %3 : tensor<64x64xbf16, #ttnn_layout>\n"));
}

// A height sharding that leaves its grid's last row short converts to whole rows of cores and
// part of the next, as ttnn lays such core sets out.
TEST(TtnnEmit, PartRowShardsNameTheirCoreRanges) {
  Plan p = conversion_plan();
  Placement part = sharded(MemoryLayout::HeightSharded, {1, 3}, {32, 64});
  for (size_t v : {2, 3, 4}) p.values[v].placement = part;
  // 64 rows: two shards of one tile row on a 1x3 grid.
  std::string text = emit_ttnn(p);
  EXPECT_THAT(text, HasSubstr("#ttnn.shard_spec<<[#ttnn.core_range<(0,0), (1,0)>]>, <32x64>"));
  // 96 rows on a 2x2 grid: a row of two cores and one core of the next.
  p = conversion_plan(96);
  part = sharded(MemoryLayout::HeightSharded, {2, 2}, {32, 64});
  for (size_t v : {2, 3, 4}) p.values[v].placement = part;
  EXPECT_THAT(emit_ttnn(p), HasSubstr("#ttnn.shard_spec<<[#ttnn.core_range<(0,0), (1,0)>, "
                                      "#ttnn.core_range<(0,1), (0,1)>]>, <32x64>"));
}

Plan plan_of(const Graph& g, const std::string& device = "wormhole_b0") {
  return plan_graph(g, CostModel(load_device(device)));
}

TEST(TtnnEmit, ConstantsAreDefinedBeforeTheirFirstUse) {
  Graph g("scale");
  Builder b(g);
  b.output(b.multiply(b.input("x", {32, 32}), b.constant({32, 32}, {2.0})));
  std::string text = emit_ttnn(plan_of(g));
  // The constant is tiled once at load (const-eval), before the per-inference ops.
  EXPECT_THAT(text, HasSubstr("%0 = \"ttnn.constant\"() <{value = dense<2.000000e+00> : "
                              "tensor<32x32xf32>}> : () -> tensor<32x32xf32, #ttnn_layout>\n"));
  EXPECT_THAT(text, HasSubstr("%1 = \"ttnn.to_layout\"(%0) <{layout = #ttnn.layout<tile>}>"));
}

TEST(TtnnEmit, LinearWithoutBiasIsAMatmulWithItsActivation) {
  Graph g("mm");
  Builder b(g);
  Value x = b.input("x", {64, 128}, DType::BF16);
  Value w = b.weight("w", {128, 256}, DType::BF16);
  Attrs act;
  act.set("activation", std::string("silu"));
  b.output(b.op(OpKind::Linear, {x, w}, act));
  b.output(b.op(OpKind::Linear, {x, w, b.weight("bias", {256}, DType::BF16)}));
  std::string text = emit_ttnn(plan_of(g));
  // The weights are tiled first, once at load (const-eval).
  EXPECT_THAT(text, HasSubstr("\"ttnn.matmul\"(%2, %0) <{activation = \"silu\", transpose_a = "
                              "false, transpose_b = false}>"));
  EXPECT_THAT(text, HasSubstr("\"ttnn.linear\"(%2, %0, %1) <{transpose_a = false, transpose_b = "
                              "false}>"));
}

TEST(TtnnEmit, ThreeHeadSplitsOfOneProjectionAreOneTtnnOp) {
  Graph g("attn");
  Builder b(g);
  Value qkv = b.input("qkv", {1, 64, 192});
  Value q = b.split_heads(qkv, 2, 3, 0), k = b.split_heads(qkv, 2, 3, 1, true);
  b.output(b.concatenate_heads(b.matmul(b.matmul(q, k), b.split_heads(qkv, 2, 3, 2))));
  std::string text = emit_ttnn(plan_of(g));
  EXPECT_THAT(text, HasSubstr(":3 = \"ttnn.split_query_key_value_and_split_heads\"(%0) "
                              "<{num_heads = 2 : ui32, transpose_key = true}>"));
  // The later ops read the parts as results 0 (query), 1 (key) and 2 (value) of that op.
  EXPECT_THAT(text, HasSubstr("\"ttnn.matmul\"(%1#0, "));
  EXPECT_THAT(text, HasSubstr("(%1#1)"));
  EXPECT_THAT(text, HasSubstr(", %1#2)"));
  EXPECT_THAT(text, HasSubstr("\"ttnn.concatenate_heads\""));
  EXPECT_THAT(text, Not(HasSubstr("ttnn.split_heads")));
}

// tt-mlir's TTNN dialect names the transformer ops of a Llama layer as tilesat does:
// ttnn.rms_norm (ttnn.rms_norm in Python) and ttnn.rotary_embedding
// (ttnn.experimental.rotary_embedding), with their operands in order.
TEST(TtnnEmit, RmsNormAndRotaryEmbeddingKeepTheirNames) {
  Graph g("llama");
  Builder b(g);
  Value x = b.input("x", {1, 64, 128}), w = b.input("w", {128});
  Value cos = b.input("cos", {64, 32}), sin = b.input("sin", {64, 32});
  Value heads = b.reshape(b.rms_norm(x, &w, -1, 1e-6), {1, 64, 4, 32});
  b.output(b.rotary_embedding(b.transpose(heads, 1, 2), cos, sin));
  std::string text = emit_ttnn(plan_of(g));
  EXPECT_THAT(text, HasSubstr("\"ttnn.rms_norm\"(%0, %1) <{epsilon = 1.000000e-06 : f32}>"));
  EXPECT_THAT(text, ContainsRegex("\"ttnn.rotary_embedding\"\\(%[0-9]+, %[0-9]+, %[0-9]+\\) :"));
}

TEST(TtnnEmit, ModulesShareOneSetOfAliases) {
  Plan p = conversion_plan();
  SourceFile file;
  file.aliases = {{"#any_device", "#tt.operand_constraint<any_device>"},
                  {"#ttnn_layout", "#ttnn.ttnn_layout<stale>"}};
  for (int i = 0; i < 2; ++i) {
    file.modules.emplace_back();
    file.modules.back().functions.push_back(p.graph);
  }
  std::vector<Plan> plans = {p, p};
  std::string text = emit_ttnn(file, plans);
  EXPECT_TRUE(text.starts_with("#any_device = #tt.operand_constraint<any_device>\n#dram = "));
  EXPECT_THAT(text, Not(HasSubstr("stale")));
  size_t first = text.find("#ttnn_layout2 = ");
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(text.find("#ttnn_layout2 = ", first + 1), std::string::npos);
  size_t modules = 0;
  for (size_t at = text.find("module {"); at != std::string::npos;
       at = text.find("module {", at + 1))
    ++modules;
  EXPECT_EQ(modules, 2u);
  plans.pop_back();
  EXPECT_THROW(emit_ttnn(file, plans), InternalError);
}

} // namespace
} // namespace tilesat::cost
