// conv_gather: what a sharded conv2d does on each core before the tile products of an inner
// block, as ttnn's sharded convs run it (height sharded below; block sharded at
// conv_block_sharded_parts; width sharded at conv_width_sharded_time), and the pipeline that
// overlaps it with the products of the blocks before (conv_pipeline_us).
//
// ttnn keeps a conv's input as row-major sticks (one output pixel's channels) in each core's L1
// shard. Before the products of an inner block, a reader gathers the activation block: for
// every output pixel of the core's block, one local NoC read per kernel row of `kernel_w`
// adjacent sticks (one per stick when the width is dilated); the compute kernel then tilizes
// the block (into the result's data format) and the weight reader fetches the inner block's
// weights from DRAM and multicasts them to every core. Tilizing a block frees its gather space,
// so the reader gathers the next block during the products; without double buffering (ttnn's
// default) the next block's weights wait for the products to free their buffer. A
// height-sharded conv's inner block is one kernel row (`kernel_w` x padded channels), so the
// gather is paid once per kernel row; with ttnn's activation reuse the block is the whole
// window, each pixel reads one new kernel row, and the two readers' rows are tilized as they
// arrive.
//
// The rates are ttnn's own empirical fits, which it uses to choose between one activation
// reader and two (tenstorrent/tt-metal ttnn/cpp/ttnn/operations/conv/conv2d/
// conv2d_op_program_factory_common.cpp: get_local_l1_noc_transfer_rate,
// get_all_dram_noc_transfer_rate, get_mcast_many_l1_linked_noc_transfer_rate,
// get_tilize_cycles_per_tile, is_split_reader_viable); the choice is the same here: two readers
// when that makes the phase shorter.
//
//   ConvGather g{.kernel_h = 3, .kernel_w = 3, .channels = 32};
//   ConvGatherTime t = conv_gather_time(device, g, {.act_block_h_tiles = 8, .block_w_tiles = 3,
//                                                  .weight_block_w_tiles = 16,
//                                                  .weight_tile_bytes = 1088});
//   // t.us: the time before the block's products; t.detail names the parts.
#pragma once

#include "tilesat/cost/device.h"
#include "tilesat/graph/dtype.h"

#include <cstdint>
#include <string>

namespace tilesat::cost {

/// A conv2d's window as its activation gather sees it.
struct ConvGather {
  int64_t kernel_h = 1, kernel_w = 1;
  /// Input channels after ttnn's padding (to 32 for a tiled input, 8 for row-major sticks).
  int64_t channels = 32;
  /// Bytes of one channel of a stick: 2 (ttnn's halo gives bf16 sticks), 4 for f32.
  int64_t element_bytes = 2;
  /// A dilated width: the sticks of a kernel row are not adjacent and are read one by one.
  bool dilated_w = false;
  /// ttnn's activation reuse: the inner block is the whole window and each output pixel reads
  /// one new kernel row (the others are the previous pixel row's).
  bool reuse = false;
  /// The result's data format, which the activation block is tilized into.
  DType out_dtype = DType::BF16;
  /// ttnn's enable_act_double_buffer and enable_weights_double_buffer: two blocks in the
  /// activation (weight) buffer, so the next block's transfer overlaps this block's products.
  bool act_double_buffer = false, weights_double_buffer = false;
  /// ttnn's act_block_h_override in tiles: the output rows a core computes at a time (0: all of
  /// its rows at once, ttnn's default when they fit).
  int64_t act_block_h_tiles = 0;
  /// Block sharded: the grid columns the input's channels are split over (its shard grid's;
  /// ttnn lets it differ from the result's). 0: the matmul grid's split.
  int64_t channel_slices = 0;
};

/// One inner block of a core's work.
struct ConvGatherBlock {
  int64_t act_block_h_tiles = 1; // output pixels / 32 on the core
  int64_t pixels = 0;            // the core's output pixels; 0: act_block_h_tiles x 32
  int64_t block_w_tiles = 1;     // the inner block's tiles of K
  int64_t weight_block_w_tiles = 1;
  int64_t weight_tile_bytes = 2048;
  bool fp32_accumulate = false;
};

struct ConvGatherTime {
  double us = 0;               // before the block's products start
  double read_us = 0;          // gathering the activation block (one reader)
  double tilize_us = 0;        // tilizing it
  double weights_us = 0;       // the weight block's DRAM read and multicast
  double weights_mcast_us = 0; // of which the multicast
  bool split_reader = false;
  std::string detail;
};

/// The most cores, at most `cores`, that `tiles` split over when padding `tiles` to a multiple of
/// them wastes less than one core's share: how ttnn splits a block-sharded conv's output pixel
/// rows over the grid's rows and its input channels over the grid's columns (tenstorrent/
/// tt-metal ttnn/cpp/ttnn/operations/conv/conv2d/conv2d_utils.cpp,
/// find_closest_largest_divisor_with_num_padding). 20 channel tiles over 8 columns: 7.
int64_t conv_split_with_padding(int64_t tiles, int64_t cores);

/// The kernel rows an inner block of `g` gathers per output pixel: one, or `kernel_h` when the
/// block is the whole window without reuse.
int64_t conv_gather_rows_per_pixel(const ConvGather& g, int64_t block_w_tiles);

/// The time each core spends on one inner block before its products.
ConvGatherTime conv_gather_time(const Device& d, const ConvGather& g, const ConvGatherBlock& b);

/// The time one core takes over its inner blocks, products included, when every block waits
/// for its gathered, tilized activations and its weights (conv_pipeline_us). The per-block
/// parts come from conv_gather_time (height sharded) or conv_block_sharded_parts.
struct ConvPipeline {
  int64_t output_blocks = 1;     // act_block_h blocks of the core's output rows, one after another
  int64_t gathers = 1;           // gathers (kernel rows) per output block
  int64_t blocks_per_gather = 1; // inner blocks per gather: 1, or a block-sharded row's slices
  double gather_us = 0;          // one gather, per reader (halved when split)
  bool split_reader = false;     // the weight reader gathers half of each block first
  double tilize_us = 0;          // tilizing one gather
  bool tilize_as_read = false;   // activation reuse: rows are tilized as they arrive
  double act_mcast_us = 0;     // block sharded: each slice's tilized block multicast along the row
  double weights_read_us = 0;  // one inner block's weights read from DRAM (the reader waits)
  double weights_mcast_us = 0; // then multicast (in flight while the reader reads the next)
  bool weights_resident = false; // all weights stay in L1 after the first output block
  double products_us = 0;        // one inner block's tile products (and reloads)
  /// The gather space is the activation buffer itself (block sharded): the next row's gather
  /// waits until the row's blocks have left it; otherwise (height sharded) tilizing a block
  /// frees its space.
  bool gather_in_act_buffer = false;
  int act_slots = 1, weight_slots = 1;
};

/// The core's time from its first gather to its last product: a timeline of the readers, the
/// weight reader and the compute (tilize, then products) over every inner block, each waiting
/// for the buffer space and data it needs (ttnn's conv kernels: reader_conv_activations_*,
/// writer_*_conv_weights_*, conv_bmm_tilize).
///
///   ConvPipeline p{.gathers = 3, .gather_us = 8.8, .tilize_us = 1.5, .weights_read_us = 3.4,
///                  .weights_mcast_us = 2.6, .products_us = 11};
///   double us = conv_pipeline_us(p); // later gathers hide behind the products before them
double conv_pipeline_us(const ConvPipeline& p);

/// A block-sharded conv's per-block parts (ttnn's 2-D conv: each core gathers one kernel row of
/// its channel slice for its pixels with two readers, tilizes it, then the cores of a row take
/// turns multicasting their tilized blocks along the row while the top row's cores read each
/// block's weights from DRAM and multicast them down their columns).
struct ConvBlockParts {
  double gather_us = 0; // per reader (always two)
  double tilize_us = 0;
  double act_mcast_us = 0;     // one slice's tilized block along the row
  double weights_read_us = 0;  // one block's weights read from DRAM by the column's top core
  double weights_mcast_us = 0; // then multicast down the column
  std::string detail;
};
ConvBlockParts conv_block_sharded_parts(const Device& d, const ConvGather& g,
                                        const ConvGatherBlock& b);

/// A width-sharded conv (ttnn's 1-D multicast of the activation; `channels` are one core's
/// slice): each core gathers its slice of every output pixel once, one read per stick (a
/// slice's sticks are not adjacent), and tilizes it; then in `rounds` turns, one per core, a
/// core multicasts its tilized block to all while every core reads the block's weights for its
/// output channels from DRAM, and the products wait for both (no double buffering).
///
///   ConvRounds r = conv_width_sharded_time(device, g, block, 18);
///   // r.once_us + 18 * r.round_us before (and between) the products
struct ConvRounds {
  double once_us = 0;  // gather and tilize
  double round_us = 0; // the slower of one block's multicast and its weight read
  std::string detail;
};
ConvRounds conv_width_sharded_time(const Device& d, const ConvGather& g, const ConvGatherBlock& b,
                                   int64_t rounds);

} // namespace tilesat::cost
