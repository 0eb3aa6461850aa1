// A height-sharded conv2d's activation gather, tilize and weight fetch before each inner
// block (conv_gather.h), alone and inside the conv's estimate.
#include "tilesat/cost/conv_gather.h"
#include "tilesat/cost/op_cost.h"
#include "tilesat/cost/placement.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilesat::cost {
namespace {

// SDXL-VAE's 4-channel 3x3 conv to 512 channels on Wormhole: 64 cores, 8 tile rows each; an
// inner block is one kernel row (3 sticks of 32 padded channels, 3 tiles of K), its weights
// 3 x 16 bfp8_b tiles.
const ConvGather kVae{.kernel_h = 3, .kernel_w = 3, .channels = 32};
const ConvGatherBlock kVaeBlock{.act_block_h_tiles = 8,
                                .block_w_tiles = 3,
                                .weight_block_w_tiles = 16,
                                .weight_tile_bytes = 1088};

TEST(ConvGather, RatesAreTtnnsFits) {
  Device wh = load_device("wormhole_b0");
  ConvGatherTime t = conv_gather_time(wh, kVae, kVaeBlock);
  // 256 pixels x one 192-byte read; at 192 bytes the local-L1 fit gives
  // 0.868 + (192 - 16) / (1024 - 16) x (27.84 - 0.868) GB/s.
  double rate = 0.868 + (192.0 - 16) / (1024 - 16) * (27.84 - 0.868);
  EXPECT_NEAR(t.read_us, 256 * 192 / (rate * 1e3), 1e-9);
  EXPECT_NEAR(t.tilize_us, wh.cycles_to_us(61 * 8 * 3), 1e-9); // bf16 into bf16: 61 cycles
  // 48 bfp8_b tiles: read from DRAM at the fit for one tile, then multicast at the fit for the
  // whole block.
  double bytes = 48 * 1088;
  double dram = 0.436 + (1088.0 - 16) / (2048 - 16) * (28.411 - 0.436);
  double mcast = 0.318 + (bytes - 16) / (65536 - 16) * (25.345 - 0.318);
  EXPECT_NEAR(t.weights_us, bytes / (dram * 1e3) + bytes / (mcast * 1e3), 1e-9);
  // One reader: read, then tilize, beside the weights; two readers would take longer here.
  EXPECT_FALSE(t.split_reader);
  EXPECT_NEAR(t.us, std::max(t.read_us + t.tilize_us, t.weights_us), 1e-12);
  EXPECT_THAT(t.detail, ::testing::HasSubstr("1 reader, 192-byte reads"));
}

TEST(ConvGather, BlackholeSplitsTheReaderWhenThatIsShorter) {
  // ttnn's own choice on a p150 for the same conv (128 cores, 4 tile rows each): two readers.
  Device bh = load_device("blackhole_p150");
  ConvGatherBlock block = kVaeBlock;
  block.act_block_h_tiles = 4;
  ConvGatherTime t = conv_gather_time(bh, kVae, block);
  EXPECT_TRUE(t.split_reader);
  EXPECT_NEAR(t.us, t.read_us / 2 + std::max(t.weights_us, t.tilize_us), 1e-12);
  EXPECT_LT(t.us, std::max(t.read_us + t.tilize_us, t.weights_us));
  // A block of one tile row has nothing to split.
  block.act_block_h_tiles = 1;
  EXPECT_FALSE(conv_gather_time(bh, kVae, block).split_reader);
}

TEST(ConvGather, RowsPerPixel) {
  // One kernel row per inner block; a block holding the whole window gathers every row; with
  // activation reuse each pixel reads only its new row.
  EXPECT_EQ(conv_gather_rows_per_pixel(kVae, 3), 1);
  EXPECT_EQ(conv_gather_rows_per_pixel(kVae, 9), 3);
  ConvGather reuse = kVae;
  reuse.reuse = true;
  EXPECT_EQ(conv_gather_rows_per_pixel(reuse, 9), 1);
  // Reuse tilizes the rows as they arrive: the slower of half the reads and the tilize.
  Device wh = load_device("wormhole_b0");
  ConvGatherBlock block{.act_block_h_tiles = 83,
                        .block_w_tiles = 9,
                        .weight_block_w_tiles = 1,
                        .weight_tile_bytes = 1088};
  ConvGatherTime t = conv_gather_time(wh, reuse, block);
  EXPECT_TRUE(t.split_reader);
  EXPECT_NEAR(t.us, std::max(t.read_us / 2, t.tilize_us) + t.weights_us, 1e-12);
  // A result in bfp8_b is tilized at its own rate (40 cycles a tile instead of 61).
  ConvGather bfp8 = reuse;
  bfp8.out_dtype = DType::BFP8_B;
  EXPECT_NEAR(conv_gather_time(wh, bfp8, block).tilize_us / t.tilize_us, 40.0 / 61.0, 1e-9);
}

Attrs conv_window(int64_t h, int64_t w) {
  Attrs a;
  a.set("batch_size", int64_t{1});
  a.set("input_height", h);
  a.set("input_width", w);
  a.set("padding", std::vector<int64_t>{1, 1, 1, 1});
  return a;
}

Placement sharded(const TensorType& t, const Device& d, MemoryLayout memory) {
  auto layouts = LayoutChoice::shipped();
  for (const LayoutVariant& v : layout_variants(t, d, *layouts))
    if (v.placement.memory == memory) return v.placement;
  ADD_FAILURE() << "no such sharded variant";
  return {};
}
Placement height_sharded(const TensorType& t, const Device& d) {
  return sharded(t, d, MemoryLayout::HeightSharded);
}

// The conv's estimate pays the gather before each of its three kernel rows, serially with the
// products, and a streaming kernel's fixed time instead of a matmul's launch: SDXL-VAE's conv
// lands within 5% of ttnn's kernel time on both devices (bench/cost/op_measured.csv: 67 us on
// Wormhole, 24 us on Blackhole p150).
TEST(ConvGather, HeightShardedConvPaysItPerKernelRow) {
  for (auto [name, measured_us] : {std::pair{"wormhole_b0", 67.0}, {"blackhole_p150", 24.0}}) {
    Device d = load_device(name);
    CostModel m(d, {.fidelity = MathFidelity::LoFi});
    TensorType x{DType::BF16, Shape{1, 1, 128 * 128, 4}};
    TensorType out{DType::BF16, Shape{1, 1, 128 * 128, 512}};
    Placement in_place = height_sharded(x, d), out_place = height_sharded(out, d);
    std::vector<TensorUse> in{
        {x, in_place},
        {TensorType{DType::BFP8_B, Shape{512, 4, 3, 3}}, dram_tile_placement()},
        {TensorType{DType::BFP8_B, Shape{512}}, dram_tile_placement()}};
    OpEstimate e = m.op(OpKind::Conv2d, conv_window(128, 128), in, {out, out_place});
    ASSERT_TRUE(e.blocking.has_value()) << name;
    EXPECT_EQ(e.blocking->in0_block_w, 3) << name;
    EXPECT_THAT(e.cost.detail, ::testing::HasSubstr("before each of 3 inner blocks")) << name;
    EXPECT_DOUBLE_EQ(e.cost.dispatch_us, stream_launch_us(d)) << name;
    EXPECT_NEAR(e.us - d.op_gap_us, measured_us, 0.05 * measured_us) << name;
  }
}

// A width-sharded conv: each core gathers its channel slice (one read per 64-byte stick) and
// tilizes it once, then the cores multicast their blocks in turn while each reads its weights
// for the block from DRAM. Segformer's depthwise 3x3 conv of 576 channels on an 8x8 image
// (dense weights, 18 cores of 32 channels) lands within 5% of ttnn's kernel time on both
// devices (bench/cost/op_measured.csv: 74 us on Wormhole, 37 us on Blackhole p150).
TEST(ConvGather, WidthShardedConvMulticastsEachSliceInTurn) {
  for (auto [name, measured_us] : {std::pair{"wormhole_b0", 74.0}, {"blackhole_p150", 37.0}}) {
    Device d = load_device(name);
    CostModel m(d, {.fidelity = MathFidelity::LoFi});
    TensorType x{DType::BF16, Shape{1, 1, 8 * 8, 576}};
    TensorType out{DType::BF16, Shape{1, 1, 6 * 6, 576}};
    Placement width_in = sharded(x, d, MemoryLayout::WidthSharded);
    Placement width_out = sharded(out, d, MemoryLayout::WidthSharded);
    Attrs a = conv_window(8, 8);
    a.set("padding", std::vector<int64_t>{0, 0, 0, 0});
    a.set("groups", int64_t{576});
    std::vector<TensorUse> in{{x, width_in},
                              {TensorType{DType::BF16, Shape{576, 1, 3, 3}}, dram_tile_placement()},
                              {TensorType{DType::BF16, Shape{576}}, dram_tile_placement()}};
    OpEstimate e = m.op(OpKind::Conv2d, a, in, {out, width_out});
    ASSERT_TRUE(e.matmul.has_value() && e.blocking.has_value()) << name;
    EXPECT_EQ(e.matmul->mcast, MatmulMcast::In0Row1D) << name;
    EXPECT_EQ(e.cores, 18u) << name;
    EXPECT_EQ(e.blocking->in0_block_w, 9) << name; // 32 channels x 9 window positions
    EXPECT_THAT(e.cost.detail, ::testing::HasSubstr("then 18 rounds")) << name;
    EXPECT_NEAR(e.us - d.op_gap_us, measured_us, 0.05 * measured_us) << name;
  }
}

// A kernel row whose blocks do not fit L1 is split as any matmul's inner block is: a 3x3 conv
// of 2048 channels (a kernel row is 192 tiles of K) still has a plan.
TEST(ConvGather, WideKernelRowsFallBackToWhatFits) {
  Device wh = load_device("wormhole_b0");
  CostModel m(wh);
  TensorType x{DType::BF16, Shape{1, 1, 64 * 64, 2048}};
  TensorType out{DType::BF16, Shape{1, 1, 64 * 64, 64}};
  std::vector<TensorUse> in{
      {x, height_sharded(x, wh)},
      {TensorType{DType::BF16, Shape{64, 2048, 3, 3}}, dram_tile_placement()}};
  OpEstimate e = m.op(OpKind::Conv2d, conv_window(64, 64), in, {out, height_sharded(out, wh)});
  ASSERT_TRUE(e.blocking.has_value());
  EXPECT_LT(e.blocking->in0_block_w, 192);
  EXPECT_LE(e.l1_bytes_per_core, wh.usable_l1_bytes());
}

} // namespace
} // namespace tilesat::cost
