// Z3's matmul grid and blocking (cost/matmul_z3.h) against the cost model's own enumeration.
#include "tilesat/cost/device.h"
#include "tilesat/cost/matmul_z3.h"
#include "tilesat/cost/op_cost.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace tilesat::cost {
namespace {

// The model's best time over every sub-grid of the usable grid, and the grid it picks.
OpEstimate enumerated_best(const CostModel& model, MatmulConfig c) {
  std::optional<OpEstimate> best;
  for (uint32_t r = 1; r <= model.device().grid_usable.rows; ++r)
    for (uint32_t col = 1; col <= model.device().grid_usable.cols; ++col) {
      c.grid = CoreGrid{r, col};
      OpEstimate e = model.matmul(c);
      if (!best || e.us < best->us - 1e-9) best = e;
    }
  return *best;
}

double unpack_traffic(const MatmulConfig& c, const MatmulBlocking& b) {
  return matmul_unpack_bytes_per_product(c, b.out_subblock_h, b.out_subblock_w);
}

void expect_valid(const MatmulConfig& c, const MatmulChoice& z, const Device& d) {
  const MatmulBlocking& b = z.blocking;
  EXPECT_LE(z.grid.rows, d.grid_usable.rows);
  EXPECT_LE(z.grid.cols, d.grid_usable.cols);
  EXPECT_EQ(b.per_core_m % b.out_subblock_h, 0);
  EXPECT_EQ(b.per_core_n % b.out_subblock_w, 0);
  EXPECT_LE(b.out_subblock_h * b.out_subblock_w, d.dst_tiles / (c.fp32_accumulate ? 4 : 2));
  EXPECT_EQ(((c.k + 31) / 32) % b.in0_block_w, 0);
  EXPECT_GE(b.per_core_m * z.grid.rows, (c.m + 31) / 32);
  EXPECT_GE(b.per_core_n * z.grid.cols, (c.n + 31) / 32);
}

struct Case {
  int64_t m, k, n, tile_bytes;
  bool in0_l1, out_l1, f32;
  MathFidelity fidelity;
  double epilogue;
};

TEST(MatmulZ3, FreeGridMatchesTheModelsBestTime) {
  for (const char* dev : {"wormhole_b0", "blackhole_p150", "grayskull_e150"}) {
    Device d = load_device(dev);
    CostModel model(d);
    for (const Case& k : std::initializer_list<Case>{
             {32, 32, 32, 2048, false, false, false, MathFidelity::HiFi4, 0},
             {512, 1024, 1024, 2048, false, false, false, MathFidelity::HiFi2, 0},
             {1024, 1024, 2048, 1088, true, true, false, MathFidelity::LoFi, 0},
             {4096, 4096, 4096, 576, false, false, false, MathFidelity::LoFi, 0},
             {96, 800, 224, 4096, true, false, true, MathFidelity::HiFi4, 40},
             {128, 768, 3072, 2048, false, true, false, MathFidelity::HiFi2, 288},
             {2048, 64, 64, 2048, false, false, false, MathFidelity::HiFi4, 0},
         }) {
      MatmulConfig c;
      c.m = k.m;
      c.k = k.k;
      c.n = k.n;
      c.in0_tile_bytes = c.in1_tile_bytes = c.out_tile_bytes = k.tile_bytes;
      c.in0_l1 = k.in0_l1;
      c.out_l1 = k.out_l1;
      c.fp32_accumulate = k.f32;
      c.fidelity = k.fidelity;
      c.epilogue_cycles_per_tile = k.epilogue;
      SCOPED_TRACE(fmt::format("{} {}x{}x{} tile {} B", dev, k.m, k.k, k.n, k.tile_bytes));
      std::optional<MatmulChoice> z = choose_matmul_z3(c, d, GridFreedom::Free);
      ASSERT_TRUE(z.has_value());
      expect_valid(c, *z, d);
      OpEstimate best = enumerated_best(model, c);
      MatmulConfig chosen = c;
      chosen.grid = z->grid;
      OpEstimate at_z = model.matmul(chosen);
      EXPECT_NEAR(at_z.us, best.us, 1e-6 * best.us);
      EXPECT_EQ(at_z.grid, z->grid);
      EXPECT_EQ(z->grid, best.grid);
      // On its grid, Z3's sub-block is the model's: as few unpacker bytes, and among equals
      // the shortest, then the narrowest.
      EXPECT_DOUBLE_EQ(unpack_traffic(c, z->blocking), unpack_traffic(c, *at_z.blocking));
      EXPECT_EQ(z->blocking.out_subblock_h, at_z.blocking->out_subblock_h);
      EXPECT_EQ(z->blocking.out_subblock_w, at_z.blocking->out_subblock_w);
      EXPECT_EQ(z->blocking.in0_block_w, at_z.blocking->in0_block_w)
          << z->grid.rows << "x" << z->grid.cols << " pm " << z->blocking.per_core_m << " pn "
          << z->blocking.per_core_n << " h " << z->blocking.out_subblock_h << " w "
          << z->blocking.out_subblock_w;
    }
  }
}

TEST(MatmulZ3, FixedGridOnlyBlocks) {
  Device d = load_device("wormhole_b0");
  MatmulConfig c;
  c.m = c.k = c.n = 2048;
  c.grid = CoreGrid{8, 4};
  std::optional<MatmulChoice> z = choose_matmul_z3(c, d, GridFreedom::Fixed);
  ASSERT_TRUE(z.has_value());
  expect_valid(c, *z, d);
  EXPECT_EQ(z->grid, (CoreGrid{8, 4}));
  EXPECT_EQ(z->blocking.per_core_m, 8);
  EXPECT_EQ(z->blocking.per_core_n, 16);
  EXPECT_DOUBLE_EQ(unpack_traffic(c, z->blocking),
                   unpack_traffic(c, *CostModel(d).matmul(c).blocking));
}

// Sub-blocks that move as many bytes (1x4 and 4x1 of a 12x12 block, DST holding four tiles
// with f32 accumulation) are a tie Z3 would break by its own history (its context is kept
// between problems): it takes the model's, the shortest.
TEST(MatmulZ3, TiedSubBlocksAreTheModels) {
  Device d = load_device("wormhole_b0");
  MatmulConfig c;
  c.m = c.n = 3072;
  c.k = 1024;
  c.grid = CoreGrid{8, 8};
  c.in0_l1 = c.out_l1 = true;
  c.fp32_accumulate = true;
  c.epilogue_cycles_per_tile = 8;
  // Other problems first, so the context has a history when this one is asked.
  for (int64_t n : {256, 512, 768}) {
    MatmulConfig other = c;
    other.n = n;
    ASSERT_TRUE(choose_matmul_z3(other, d, GridFreedom::Free).has_value());
  }
  std::optional<MatmulChoice> z = choose_matmul_z3(c, d, GridFreedom::Fixed);
  ASSERT_TRUE(z.has_value());
  expect_valid(c, *z, d);
  EXPECT_EQ(z->blocking.per_core_m, 12);
  EXPECT_EQ(z->blocking.per_core_n, 12);
  MatmulBlocking own = *CostModel(d).matmul(c).blocking;
  EXPECT_EQ(z->blocking.out_subblock_h, own.out_subblock_h);
  EXPECT_EQ(z->blocking.out_subblock_w, own.out_subblock_w);
}

TEST(MatmulZ3, NoBlockingFitsIsNullopt) {
  Device d = load_device("tiny");
  MatmulConfig c;
  c.m = c.n = 32 * 64; // one core: a 64x64-tile output block cannot fit 112 KiB of L1
  c.k = 32;
  c.in0_tile_bytes = c.in1_tile_bytes = c.out_tile_bytes = 4096;
  EXPECT_FALSE(choose_matmul_z3(c, d, GridFreedom::Free).has_value());
}

} // namespace
} // namespace tilesat::cost
