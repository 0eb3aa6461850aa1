// conv_gather.cpp: a sharded conv2d's activation gather, tilize and weight fetch, at ttnn's own
// fitted rates.
#include "tilesat/cost/conv_gather.h"

#include <algorithm>
#include <fmt/format.h>
#include <vector>

namespace tilesat::cost {
namespace {

// A transfer rate that grows linearly with the transfer's size from `min_gb_s` at 16 bytes (the
// L1 alignment) to `peak_gb_s` at `peak_bytes`, then stays. ttnn's fits, per architecture
// (conv2d_op_program_factory_common.cpp).
struct RateFit {
  double peak_bytes, min_gb_s, peak_gb_s;
  double gb_s(double bytes) const {
    constexpr double kMinBytes = 16;
    double b = std::clamp(bytes, kMinBytes, peak_bytes);
    return min_gb_s + (peak_gb_s - min_gb_s) * (b - kMinBytes) / (peak_bytes - kMinBytes);
  }
  double us(double total_bytes, double transfer_bytes) const {
    return total_bytes / (gb_s(transfer_bytes) * 1e3);
  }
};

struct ArchRates {
  RateFit local_l1, dram, mcast;
  // Tilize cycles per tile from bf16 sticks into {f32, bf16, bfp8_b}, without and with f32
  // accumulation in DST; and from f32 sticks.
  double tilize_bf16[3][2], tilize_f32[3][2];
};

// Wormhole B0 and Blackhole as ttnn measured them. Other architectures (Grayskull) are assumed
// to move and tilize as Wormhole does.
constexpr ArchRates kWormhole{{1024, 0.868, 27.84},
                              {2048, 0.436, 28.411},
                              {65536, 0.318, 25.345},
                              {{92, 117}, {61, 68}, {40, 43}},
                              {{107, 128}, {74, 74}, {74, 70}}};
constexpr ArchRates kBlackhole{{4096, 1.124, 80.48},
                               {2048, 0.671, 80.885},
                               {65536, 0.182, 57.677},
                               {{105, 128}, {72, 72}, {60, 60}},
                               {{132, 132}, {132, 80}, {132, 77}}};

const ArchRates& rates(const Device& d) {
  return d.arch == "blackhole" ? kBlackhole : kWormhole;
}

size_t out_index(DType t) {
  switch (t) {
  case DType::BF16:
    return 1;
  case DType::BFP8_B:
    return 2;
  default:
    return 0;
  }
}

double pixels_of(const ConvGatherBlock& b) {
  return static_cast<double>(b.pixels > 0 ? b.pixels : b.act_block_h_tiles * 32);
}

// Tilizing the block's activation tiles into the result's format.
double tilize_us(const Device& d, const ConvGather& g, const ConvGatherBlock& b) {
  const ArchRates& r = rates(d);
  const auto& table = g.element_bytes == 4 ? r.tilize_f32 : r.tilize_bf16;
  double per_tile = table[out_index(g.out_dtype)][b.fp32_accumulate ? 1 : 0];
  return d.cycles_to_us(per_tile * static_cast<double>(b.act_block_h_tiles * b.block_w_tiles));
}

// The block's weights, read from DRAM a tile at a time.
double weight_bytes(const ConvGatherBlock& b) {
  return static_cast<double>(b.block_w_tiles * b.weight_block_w_tiles * b.weight_tile_bytes);
}
double weight_read_us(const ArchRates& r, const ConvGatherBlock& b) {
  return r.dram.us(weight_bytes(b), static_cast<double>(b.weight_tile_bytes));
}

} // namespace

int64_t conv_split_with_padding(int64_t tiles, int64_t cores) {
  int64_t n = std::max<int64_t>(tiles, 1);
  int64_t c = std::clamp<int64_t>(cores, 1, n);
  for (; c > 1; --c) {
    int64_t padded = (n + c - 1) / c * c;
    if (padded - n < padded / c) break;
  }
  return c;
}

int64_t conv_gather_rows_per_pixel(const ConvGather& g, int64_t block_w_tiles) {
  if (g.reuse) return 1;
  // A block of K wider than one kernel row holds several rows of the window.
  int64_t row_tiles = std::max<int64_t>(g.kernel_w * g.channels / 32, 1);
  return std::clamp<int64_t>(block_w_tiles / row_tiles, 1, g.kernel_h);
}

ConvGatherTime conv_gather_time(const Device& d, const ConvGather& g, const ConvGatherBlock& b) {
  const ArchRates& r = rates(d);
  ConvGatherTime t;
  // The activation block: every output pixel's kernel rows, one read per row of adjacent sticks.
  double stick = static_cast<double>(g.element_bytes * g.channels);
  double read_bytes = g.dilated_w ? stick : stick * static_cast<double>(g.kernel_w);
  double act_bytes = pixels_of(b) *
                     static_cast<double>(conv_gather_rows_per_pixel(g, b.block_w_tiles)) * stick *
                     static_cast<double>(g.kernel_w);
  t.read_us = r.local_l1.us(act_bytes, read_bytes);
  t.tilize_us = tilize_us(d, g, b);
  t.weights_mcast_us = r.mcast.us(weight_bytes(b), weight_bytes(b));
  t.weights_us = weight_read_us(r, b) + t.weights_mcast_us;
  if (g.reuse) {
    // Two readers, each half the pixels; the compute tilizes each pixel row as it arrives, and
    // the second reader fetches the weights after its rows.
    t.split_reader = true;
    t.us = std::max(t.read_us / 2, t.tilize_us) + t.weights_us;
  } else {
    // One reader: the compute tilizes after the whole block is read, the weights arrive beside
    // it. Two (a block of more than one tile row): each reads half, the weight reader fetches
    // the weights after its half.
    double one = std::max(t.read_us + t.tilize_us, t.weights_us);
    double two = t.read_us / 2 + std::max(t.weights_us, t.tilize_us);
    t.split_reader = b.act_block_h_tiles > 1 && two < one;
    t.us = t.split_reader ? two : one;
  }
  t.detail = fmt::format("gather {:.2f} us ({} reader{}, {:.0f}-byte reads), tilize {:.2f} us, "
                         "weights {:.2f} us",
                         t.read_us, t.split_reader ? 2 : 1, t.split_reader ? "s" : "", read_bytes,
                         t.tilize_us, t.weights_us);
  return t;
}

double conv_pipeline_us(const ConvPipeline& p) {
  // Output blocks repeat the same pattern once the pipeline is full: a long run is the first
  // few blocks' timeline plus the last one's length for each further block.
  constexpr int64_t kSimulatedOutputBlocks = 4;
  if (p.output_blocks > kSimulatedOutputBlocks) {
    ConvPipeline head = p;
    head.output_blocks = kSimulatedOutputBlocks - 1;
    double before = conv_pipeline_us(head);
    head.output_blocks = kSimulatedOutputBlocks;
    double last = conv_pipeline_us(head);
    return last + static_cast<double>(p.output_blocks - kSimulatedOutputBlocks) * (last - before);
  }
  const int64_t per_output_block = p.gathers * p.blocks_per_gather;
  const int64_t gathers = p.output_blocks * p.gathers;
  std::vector<double> products_end(static_cast<size_t>(gathers * p.blocks_per_gather), 0.0);
  std::vector<double> tilize_end(static_cast<size_t>(gathers), 0.0);
  auto at = [](const std::vector<double>& v, int64_t i) {
    return i >= 0 ? v[static_cast<size_t>(i)] : 0.0;
  };
  double reader = 0, weight_reader = 0, mcast = 0;
  for (int64_t j = 0; j < gathers; ++j) {
    const int64_t first = j * p.blocks_per_gather;
    // The gather needs a free block of the activation buffer: tilizing an earlier gather frees
    // one (height sharded), or the earlier blocks' products (block sharded, where the gathered
    // rows share the buffer the multicast blocks arrive in).
    double space = p.gather_in_act_buffer ? at(products_end, first - p.act_slots)
                                          : at(tilize_end, j - p.act_slots);
    double start = std::max({reader, p.split_reader ? weight_reader : 0.0, space});
    double gathered = start + p.gather_us;
    reader = gathered;
    if (p.split_reader) weight_reader = gathered;
    // The compute tilizes after the previous block's products, once the rows are in (with
    // reuse, as they arrive).
    double free_compute =
        std::max(at(products_end, first - 1), p.tilize_as_read ? start : gathered);
    double tilized = std::max(gathered, free_compute + p.tilize_us);
    tilize_end[static_cast<size_t>(j)] = tilized;
    for (int64_t c = 0; c < p.blocks_per_gather; ++c) {
      const int64_t i = first + c;
      double act_ready = tilized;
      if (p.act_mcast_us > 0) {
        // The slice's sender multicasts once every core of the row has room for the block.
        mcast = std::max({tilized, at(products_end, i - p.act_slots), mcast}) + p.act_mcast_us;
        act_ready = mcast;
      }
      double weights_ready = 0;
      if (!(p.weights_resident && i >= per_output_block)) {
        // The reader waits for its DRAM reads, not for the multicast it then starts.
        weight_reader =
            std::max(weight_reader, at(products_end, i - p.weight_slots)) + p.weights_read_us;
        weights_ready = weight_reader + p.weights_mcast_us;
      }
      products_end[static_cast<size_t>(i)] =
          std::max({act_ready, weights_ready, at(products_end, i - 1)}) + p.products_us;
    }
  }
  return products_end.empty() ? 0.0 : products_end.back();
}

ConvBlockParts conv_block_sharded_parts(const Device& d, const ConvGather& g,
                                        const ConvGatherBlock& b) {
  const ArchRates& r = rates(d);
  ConvBlockParts t;
  double stick = static_cast<double>(g.element_bytes * g.channels);
  double read_bytes = g.dilated_w ? stick : stick * static_cast<double>(g.kernel_w);
  double act_bytes = pixels_of(b) * stick * static_cast<double>(g.kernel_w);
  t.gather_us = r.local_l1.us(act_bytes, read_bytes) / 2;
  t.tilize_us = tilize_us(d, g, b);
  double block_bytes = static_cast<double>(b.act_block_h_tiles * b.block_w_tiles) *
                       static_cast<double>(tile_bytes(g.out_dtype));
  t.act_mcast_us = r.mcast.us(block_bytes, block_bytes);
  t.weights_read_us = weight_read_us(r, b);
  t.weights_mcast_us = r.mcast.us(weight_bytes(b), weight_bytes(b));
  t.detail = fmt::format("per kernel row gather {:.2f} us (2 readers, {:.0f}-byte reads) and "
                         "tilize {:.2f} us; per slice activation multicast {:.2f} us, weights "
                         "read {:.2f} us and multicast {:.2f} us",
                         t.gather_us, read_bytes, t.tilize_us, t.act_mcast_us, t.weights_read_us,
                         t.weights_mcast_us);
  return t;
}

ConvRounds conv_width_sharded_time(const Device& d, const ConvGather& g, const ConvGatherBlock& b,
                                   int64_t rounds) {
  const ArchRates& r = rates(d);
  ConvRounds t;
  double stick = static_cast<double>(g.element_bytes * g.channels);
  double read_us =
      r.local_l1.us(pixels_of(b) * static_cast<double>(g.kernel_h * g.kernel_w) * stick, stick);
  double tilized_us = tilize_us(d, g, b);
  t.once_us = read_us + tilized_us;
  double block_bytes = static_cast<double>(b.act_block_h_tiles * b.block_w_tiles) *
                       static_cast<double>(tile_bytes(g.out_dtype));
  double mcast_us = r.mcast.us(block_bytes, block_bytes);
  double weights_us = weight_read_us(r, b);
  t.round_us = std::max(mcast_us, weights_us);
  t.detail = fmt::format("gather {:.2f} us ({:.0f}-byte reads) and tilize {:.2f} us once, then {} "
                         "rounds of {:.2f} us (activation multicast {:.2f} us, weights {:.2f} us)",
                         read_us, stick, tilized_us, rounds, t.round_us, mcast_us, weights_us);
  return t;
}

} // namespace tilesat::cost
