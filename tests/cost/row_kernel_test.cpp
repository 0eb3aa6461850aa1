// ttnn's row kernels (layer_norm, rms_norm, softmax): the passes per tile counted by hand, the
// split by tile rows, the shards' combine rounds, and the large-tensor variant.
#include "tilesat/cost/op_cost.h"
#include "tilesat/cost/row_kernel.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilesat::cost {
namespace {

TensorType rk_bf16(std::initializer_list<int64_t> dims) {
  return TensorType{DType::BF16, Shape(dims)};
}
Placement rk_interleaved(BufferType b) {
  return Placement{Layout::Tile, b, MemoryLayout::Interleaved, {}, {0, 0}};
}
Placement rk_sharded(MemoryLayout m, CoreGrid g, std::array<int64_t, 2> shard) {
  return Placement{Layout::Tile, BufferType::L1, m, g, shard};
}

TEST(RowKernel, PassesAtLeastTheMeasuredFloor) {
  // bf16 on Wormhole (unpack 64 B/cycle, eltwise 8 cycles, HiFi4 4 passes): every pass of an
  // rms_norm with gamma is under the floor (square 64 + 32, mean square 32 + 32 + 16,
  // x 1/sigma 32 + 32 + 32, gamma 32 + 32 + 32), so four passes of 156 cycles; the row step
  // is the eps add and one rsqrt tile (8 + 31 x 32).
  Device d = load_device("wormhole_b0");
  RowKernel rms = row_kernel(d, {.kind = OpKind::RmsNorm, .gamma = true});
  EXPECT_DOUBLE_EQ(rms.cycles_per_tile, 4 * kFpuPassFloorCycles);
  EXPECT_DOUBLE_EQ(rms.cycles_per_row, 8 + 32 * kTranscendentalSfpuPasses);
  EXPECT_EQ(rms.combine_rounds, 1);
  EXPECT_EQ(rms.interm_tile_bytes, 2048);
  EXPECT_THAT(rms.what, ::testing::HasSubstr("4 passes: square, mean square, x 1/sigma, gamma"));
  // Layer norm in f32 intermediates: the square reads two 4 KB tiles (128 cycles) and
  // multiplies (32), over the floor; the normalization reads the 4 KB row and the 4 KB
  // statistic (128) and multiplies (32); the other four passes sit at the floor.
  RowKernel ln = row_kernel(d, {.kind = OpKind::LayerNorm, .gamma = true, .fp32_accumulate = true});
  EXPECT_DOUBLE_EQ(ln.cycles_per_tile, 160 + 160 + 4 * kFpuPassFloorCycles);
  EXPECT_EQ(ln.combine_rounds, 2);
  EXPECT_EQ(ln.interm_tile_bytes, 4096);
  // Softmax: the exp pass is SFPU work (31 passes of 32 cycles) beside its unpack and subtract.
  RowKernel sm = row_kernel(d, {.kind = OpKind::Softmax});
  EXPECT_DOUBLE_EQ(sm.cycles_per_tile,
                   3 * kFpuPassFloorCycles + (64 + 8 + 32 * kTranscendentalSfpuPasses));
  EXPECT_DOUBLE_EQ(sm.cycles_per_row, 32 * kTranscendentalSfpuPasses);
}

TEST(RowKernel, InterleavedRowsSplitOverCores) {
  // 256 x 1536 bf16: 8 tile rows of 48 tiles, so 8 cores each take one whole row (ttnn never
  // splits the width); an elementwise op on the same tensor spreads over all 64.
  CostModel m(load_device("wormhole_b0"));
  TensorType x = rk_bf16({256, 1536}), w = rk_bf16({1536});
  Placement dram = rk_interleaved(BufferType::DRAM);
  std::vector<TensorUse> in{{x, dram}, {w, dram}};
  OpEstimate e = m.op(OpKind::RmsNorm, {}, in, {x, dram});
  EXPECT_EQ(e.cores, 8u);
  EXPECT_THAT(e.cost.detail, ::testing::HasSubstr("8 rows of 48 tiles on 8 cores"));
  // One row of 48 tiles at 624 cycles plus one row step, at 1 GHz.
  EXPECT_NEAR(e.cost.compute_us, (48 * 624 + 8 + 32 * kTranscendentalSfpuPasses) / 1e3, 1e-9);
  std::vector<TensorUse> one{{x, dram}};
  EXPECT_EQ(m.op(OpKind::Exp, {}, one, {x, dram}).cores, 64u);
  // Twice the rows, twice the cores, the same time per core.
  TensorType x2 = rk_bf16({512, 1536});
  std::vector<TensorUse> in2{{x2, dram}, {w, dram}};
  OpEstimate e2 = m.op(OpKind::RmsNorm, {}, in2, {x2, dram});
  EXPECT_EQ(e2.cores, 16u);
  EXPECT_DOUBLE_EQ(e2.cost.compute_us, e.cost.compute_us);
}

TEST(RowKernel, ShardedRowsCombineAcrossTheirCores) {
  // 1536 x 512 block sharded on 4x4: each core holds 12 rows of 4 tiles; a row spans the 4
  // cores of a grid row, which exchange partial statistics: once for rms_norm, twice for
  // layer norm. Height sharded on 16 cores, each core has its rows whole: no exchange.
  CostModel m(load_device("wormhole_b0"));
  TensorType x = rk_bf16({1536, 512}), w = rk_bf16({512});
  Placement block = rk_sharded(MemoryLayout::BlockSharded, {4, 4}, {384, 128});
  Placement height = rk_sharded(MemoryLayout::HeightSharded, {4, 4}, {96, 512});
  std::vector<TensorUse> bin{{x, block}, {w, rk_interleaved(BufferType::L1)}};
  std::vector<TensorUse> hin{{x, height}, {w, rk_interleaved(BufferType::L1)}};
  OpEstimate rms = m.op(OpKind::RmsNorm, {}, bin, {x, block});
  OpEstimate ln = m.op(OpKind::LayerNorm, {}, bin, {x, block});
  EXPECT_EQ(rms.cores, 16u);
  EXPECT_THAT(rms.cost.detail, ::testing::HasSubstr("12 rows x 4 tiles per core"));
  EXPECT_THAT(rms.cost.detail, ::testing::HasSubstr("1 rounds combining 4 cores' partials"));
  EXPECT_THAT(ln.cost.detail, ::testing::HasSubstr("2 rounds combining 4 cores' partials"));
  // The owners of a grid row's 12 rows are its 4 cores, 3 rows each: 3 row steps per core.
  EXPECT_THAT(rms.cost.detail, ::testing::HasSubstr("+ 3 row steps"));
  OpEstimate hs = m.op(OpKind::RmsNorm, {}, hin, {x, height});
  EXPECT_THAT(hs.cost.detail, ::testing::HasSubstr("3 rows x 16 tiles per core"));
  EXPECT_THAT(hs.cost.detail, ::testing::Not(::testing::HasSubstr("combining")));
}

TEST(RowKernel, RowsTooWideForL1ReadXAgain) {
  // A 32 x 262144 bf16 row is 8192 tiles: its row buffers (x, two intermediates) would need
  // 48 MiB, so ttnn's large variant reads x once per pass needing it: three times for layer
  // norm; a row that fits reads it once.
  CostModel m(load_device("wormhole_b0"));
  Placement dram = rk_interleaved(BufferType::DRAM);
  TensorType wide = rk_bf16({32, 262144}), narrow = rk_bf16({32, 4096});
  std::vector<TensorUse> w{{wide, dram}}, n{{narrow, dram}};
  OpEstimate ew = m.op(OpKind::LayerNorm, {}, w, {wide, dram});
  OpEstimate en = m.op(OpKind::LayerNorm, {}, n, {narrow, dram});
  EXPECT_THAT(ew.cost.detail, ::testing::HasSubstr("x read 3 times"));
  EXPECT_THAT(en.cost.detail, ::testing::Not(::testing::HasSubstr("x read")));
  // DRAM: x three times and the result once, against x and the result once, per byte.
  EXPECT_NEAR(ew.cost.dram_us / en.cost.dram_us, 4.0 / 2.0 * 64, 1e-6);
}

} // namespace
} // namespace tilesat::cost
