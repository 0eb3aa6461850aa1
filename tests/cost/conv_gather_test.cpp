// A sharded conv2d's activation gather, tilize and weight fetch before each inner block
// (conv_gather.h): the parts, the pipeline that overlaps them with the products, and the
// conv's estimate on each sharded path.
#include "tilesat/cost/conv_gather.h"
#include "tilesat/cost/op_cost.h"
#include "tilesat/cost/placement.h"

#include <fmt/format.h>
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

// Every output pixel's kernel row is gathered, tilized and its weights fetched before the
// block's products; the reader gathers the next row while the compute multiplies (tilizing a
// block frees its gather space), but the single-buffered weights of the next row wait for the
// products to release the buffer. The conv keeps a streaming kernel's fixed time instead of a
// matmul's launch. SDXL-VAE's conv as ttnn's perf test runs it (no packer accumulation: every
// row after the first reloads the partial sums) lands within 15% of its kernel time on both
// devices (bench/cost/op_measured.csv: 67 us on Wormhole, 24 us on Blackhole p150).
TEST(ConvGather, HeightShardedConvWaitsForEachKernelRow) {
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
    Attrs a = conv_window(128, 128);
    a.set("packer_l1_acc", int64_t{0});
    OpEstimate e = m.op(OpKind::Conv2d, a, in, {out, out_place});
    ASSERT_TRUE(e.blocking.has_value()) << name;
    EXPECT_EQ(e.blocking->in0_block_w, 3) << name;
    EXPECT_THAT(e.cost.detail, ::testing::HasSubstr("3 inner blocks each waiting")) << name;
    EXPECT_THAT(e.cost.detail, ::testing::HasSubstr("reloading partial sums")) << name;
    EXPECT_DOUBLE_EQ(e.cost.dispatch_us, stream_launch_us(d)) << name;
    EXPECT_NEAR(e.us - d.op_gap_us, measured_us, 0.15 * measured_us) << name;
  }
}

// The pipeline by hand: gathers of 8 us, tilize 1, weights read 3 then multicast 2, products 10.
// Block 0: gathered at 8, tilized at 9, weights in at 5: products 9-19. Block 1: the reader
// gathers 9-17 (once block 0's tilize frees its space), the compute tilizes 19-20, the weights
// wait for block 0's products to free their buffer (read 19-22, in at 24): products 24-34.
// Block 2 likewise: tilized 35, weights in at 39, products 39-49.
TEST(ConvPipeline, LaterGathersHideBehindTheProducts) {
  ConvPipeline p{.gathers = 3,
                 .gather_us = 8,
                 .tilize_us = 1,
                 .weights_read_us = 3,
                 .weights_mcast_us = 2,
                 .products_us = 10};
  EXPECT_DOUBLE_EQ(conv_pipeline_us(p), 49);
  // Double-buffered weights arrive during the products before them: block 1 starts when its
  // tilize ends (20-30), block 2's weights (read 19-22, in at 24) beat its tilize (30-31).
  p.weight_slots = 2;
  EXPECT_DOUBLE_EQ(conv_pipeline_us(p), 41);
  // Weights kept whole in L1: a second output block fetches none.
  ConvPipeline resident = p;
  resident.gathers = 1;
  resident.output_blocks = 2;
  resident.weights_resident = true;
  resident.weights_read_us = 100;
  // Block 0 waits for the weights (read 0-100, in at 102): products 102-112. Block 1: gathered
  // 9-17, tilized 112-113, no weights: products 113-123.
  EXPECT_DOUBLE_EQ(conv_pipeline_us(resident), 123);
  // A long run of output blocks is the first four's timeline plus the fourth's length for each
  // further block, and never less than its products back to back.
  ConvPipeline many = p;
  many.output_blocks = 3;
  double three = conv_pipeline_us(many);
  many.output_blocks = 4;
  double four = conv_pipeline_us(many);
  many.output_blocks = 40;
  EXPECT_DOUBLE_EQ(conv_pipeline_us(many), four + 36 * (four - three));
  EXPECT_GE(conv_pipeline_us(many), 40 * 3 * p.products_us);
}

// A block-sharded row: one gather (two readers, 2 us each) and tilize (1) for two slices, each
// multicast along the row (3) before its products (10); weights read 1, multicast 1, double
// buffered. Slice 0: tilized at 3, multicast 3-6, products 6-16. Slice 1: multicast 6-9 (its
// slot is free), products 16-26. The next row's gather needs a slot of the activation buffer:
// with one slot, after the row's last products.
TEST(ConvPipeline, BlockShardedSlicesTakeTurns) {
  ConvPipeline p{.gathers = 1,
                 .blocks_per_gather = 2,
                 .gather_us = 2,
                 .split_reader = true,
                 .tilize_us = 1,
                 .act_mcast_us = 3,
                 .weights_read_us = 1,
                 .weights_mcast_us = 1,
                 .products_us = 10,
                 .gather_in_act_buffer = true,
                 .act_slots = 2,
                 .weight_slots = 2};
  EXPECT_DOUBLE_EQ(conv_pipeline_us(p), 26);
  // Two rows with one activation slot: each multicast waits for the products before it to free
  // the slot. Row 0: slice 0 multicast 3-6, products 6-16; slice 1 multicast 16-19, products
  // 19-29. Row 1 gathers 29-31 (its rows land in that slot too), tilizes 31-32; slice 0
  // multicast 32-35, products 35-45; slice 1 multicast 45-48, products 48-58.
  p.gathers = 2;
  p.act_slots = 1;
  EXPECT_DOUBLE_EQ(conv_pipeline_us(p), 58);
}

TEST(ConvGather, BlockShardedSplitAsTtnnDoes) {
  EXPECT_EQ(conv_split_with_padding(20, 8), 7);   // 640 channels on Wormhole's 8 columns
  EXPECT_EQ(conv_split_with_padding(20, 13), 10); // on Blackhole p150's 13
  EXPECT_EQ(conv_split_with_padding(32, 10), 8);  // 1024 pixels over 10 rows
  EXPECT_EQ(conv_split_with_padding(2, 8), 2);    // never more cores than tiles
  EXPECT_EQ(conv_split_with_padding(80, 5), 5);
}

// SDXL's 640-channel stride-2 conv, block sharded on the grid ttnn picks (7 channel columns of
// 3 tiles, 640 padded to 672, on Wormhole; 10 of 2 on Blackhole; 8 rows of 4 pixel tiles): each
// of the 3 kernel rows is one block per channel column, the block of one kernel row of that
// column's channels. Within 25% of ttnn's kernel time (115 us and 53 us); the products and the
// partial-sum reloads alone are over Wormhole's measured time (cost/README.md).
TEST(ConvGather, BlockShardedConvMulticastsEachColumnsRow) {
  struct Case {
    const char* device;
    uint32_t cols;
    int64_t block_w, k_tiles;
    double measured_us;
  };
  for (const Case& c :
       {Case{"wormhole_b0", 7, 9, 189, 115.0}, Case{"blackhole_p150", 10, 6, 180, 53.0}}) {
    Device d = load_device(c.device);
    CostModel m(d, {.fidelity = MathFidelity::HiFi2});
    TensorType x{DType::BF16, Shape{1, 1, 64 * 64, 640}};
    TensorType out{DType::BF16, Shape{1, 1, 32 * 32, 640}};
    CoreGrid grid{8, c.cols};
    auto on_grid = [&](const TensorType& t) {
      return Placement{Layout::Tile,
                       BufferType::L1,
                       MemoryLayout::BlockSharded,
                       grid,
                       {t.shape[2] / 8, (t.shape[3] + c.cols - 1) / c.cols}};
    };
    std::vector<TensorUse> in{
        {x, on_grid(x)},
        {TensorType{DType::BFP8_B, Shape{640, 640, 3, 3}}, dram_tile_placement()},
        {TensorType{DType::BFP8_B, Shape{640}}, dram_tile_placement()}};
    Attrs a = conv_window(64, 64);
    a.set("stride", std::vector<int64_t>{2, 2});
    for (const char* key : {"fp32_accumulate", "act_double_buffer", "weights_double_buffer"})
      a.set(key, int64_t{1});
    a.set("packer_l1_acc", int64_t{0});
    OpEstimate e = m.op(OpKind::Conv2d, a, in, {out, on_grid(out)});
    ASSERT_TRUE(e.matmul.has_value() && e.blocking.has_value()) << c.device;
    EXPECT_EQ(e.cores, 8 * c.cols) << c.device;
    EXPECT_EQ(e.blocking->in0_block_w, c.block_w) << c.device;
    EXPECT_THAT(e.cost.detail, ::testing::HasSubstr(fmt::format("x{}x", c.k_tiles))) << c.device;
    EXPECT_THAT(e.cost.detail,
                ::testing::HasSubstr(fmt::format("{} inner blocks of {} tiles over the kernel rows",
                                                 3 * c.cols, c.block_w)))
        << c.device;
    EXPECT_NEAR(e.us - d.op_gap_us, c.measured_us, 0.25 * c.measured_us) << c.device;
  }
}

// A width-sharded conv: each core gathers its channel slice (one read per 64-byte stick) and
// tilizes it once, then the cores multicast their blocks in turn while each reads its weights
// for the block from DRAM. Segformer's depthwise 3x3 conv of 576 channels on an 8x8 image
// (dense weights, 18 cores of 32 channels; no packer accumulation, as measured) lands within
// 8% of ttnn's kernel time on both devices (bench/cost/op_measured.csv: 74 us on Wormhole, 37 us
// on Blackhole p150).
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
    a.set("packer_l1_acc", int64_t{0});
    std::vector<TensorUse> in{{x, width_in},
                              {TensorType{DType::BF16, Shape{576, 1, 3, 3}}, dram_tile_placement()},
                              {TensorType{DType::BF16, Shape{576}}, dram_tile_placement()}};
    OpEstimate e = m.op(OpKind::Conv2d, a, in, {out, width_out});
    ASSERT_TRUE(e.matmul.has_value() && e.blocking.has_value()) << name;
    EXPECT_EQ(e.matmul->mcast, MatmulMcast::In0Row1D) << name;
    EXPECT_EQ(e.cores, 18u) << name;
    EXPECT_EQ(e.blocking->in0_block_w, 9) << name; // 32 channels x 9 window positions
    EXPECT_THAT(e.cost.detail, ::testing::HasSubstr("then 18 rounds")) << name;
    EXPECT_NEAR(e.us - d.op_gap_us, measured_us, 0.08 * measured_us) << name;
  }
}

// ttnn lets a block-sharded conv's image and result sit on different grids (SDXL's
// 2560-to-1280 conv: the image on 8x8, 320 channels a column; the result on 8x5): the image's
// columns split the channels, so each grid row takes 8 multicast turns per kernel row, each
// block one kernel row of 320 channels (30 tiles), while 5 columns compute.
TEST(ConvGather, BlockShardedImageGridSplitsTheChannels) {
  Device d = load_device("wormhole_b0");
  CostModel m(d, {.fidelity = MathFidelity::HiFi2});
  TensorType x{DType::BF16, Shape{1, 1, 32 * 32, 2560}};
  TensorType out{DType::BF16, Shape{1, 1, 32 * 32, 1280}};
  auto on_grid = [](const TensorType& t, uint32_t cols) {
    return Placement{Layout::Tile,
                     BufferType::L1,
                     MemoryLayout::BlockSharded,
                     CoreGrid{8, cols},
                     {t.shape[2] / 8, t.shape[3] / cols}};
  };
  std::vector<TensorUse> in{
      {x, on_grid(x, 8)},
      {TensorType{DType::BFP8_B, Shape{1280, 2560, 3, 3}}, dram_tile_placement()},
      {TensorType{DType::BFP8_B, Shape{1280}}, dram_tile_placement()}};
  OpEstimate e = m.op(OpKind::Conv2d, conv_window(32, 32), in, {out, on_grid(out, 5)});
  ASSERT_TRUE(e.blocking.has_value());
  EXPECT_EQ(e.cores, 40u);
  EXPECT_EQ(e.blocking->in0_block_w, 30);
  EXPECT_THAT(e.cost.detail, ::testing::HasSubstr("24 inner blocks of 30 tiles"));
  // With the image on the result's 5 columns a kernel row is 512 channels, 48 tiles, whose
  // blocks do not fit L1 beside a whole 4x8-tile output block: halves of it, 30 blocks.
  in[0].placement = on_grid(x, 5);
  OpEstimate five = m.op(OpKind::Conv2d, conv_window(32, 32), in, {out, on_grid(out, 5)});
  ASSERT_TRUE(five.blocking.has_value());
  EXPECT_EQ(five.blocking->in0_block_w, 24);
  EXPECT_THAT(five.cost.detail, ::testing::HasSubstr("30 inner blocks of 24 tiles"));
  EXPECT_LE(five.l1_bytes_per_core, d.usable_l1_bytes());
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
