// op_cost.cpp: the analytic cost of each op kind, matmul blocking, and to_layout conversions.
#include "tilesat/cost/op_cost.h"

#include "ceil_div.h"
#include "tilesat/cost/collective_cost.h"
#include "tilesat/cost/placement.h"
#include "tilesat/cost/row_kernel.h"
#include "tilesat/cost/ttnn_matmul_default.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/spmd.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace tilesat::cost {
namespace {

// FPU passes over the mantissa bits: LoFi 1, HiFi2 2, HiFi3 3, HiFi4 4.
double fidelity_passes(const Device& d, MathFidelity f) {
  return d.fpu_matmul_cycles_per_tile[static_cast<size_t>(f)] /
         d.fpu_matmul_cycles_per_tile[static_cast<size_t>(MathFidelity::LoFi)];
}

// Ops the FPU computes on two tiles (the rest of an eltwise chain is SFPU work).
// The fidelity phases of a binary op's FPU pass over a tile: an add or subtract makes one at any
// fidelity, a multiply (and a divide's multiply) one per fidelity pass (`passes`); 0 for an op
// without an FPU pass.
double fpu_phases(OpKind k, double passes) {
  if (k == OpKind::Add || k == OpKind::Subtract || k == OpKind::AddRelu) return 1;
  if (k == OpKind::Multiply || k == OpKind::Divide) return passes;
  return 0;
}

const char* short_place(const Placement& p) {
  if (p.buffer == BufferType::DRAM) return "DRAM";
  return p.memory == MemoryLayout::Interleaved ? "L1" : "L1-sharded";
}

// ttnn's reshape returns its input as a view, with no kernel, when the bytes stay where they
// are: the last dim is kept, the result keeps the input's placement, and the rows keep their
// tile padding (row-major, the second-last dim kept, or both second-last dims whole tiles).
// tt-metal ttnn/cpp/ttnn/operations/data_movement/reshape_view/reshape.cpp (`this_is_view`).
bool reshape_is_view(const TensorUse& in, const TensorUse& out) {
  const Shape &a = in.type.shape, &b = out.type.shape;
  if (a.rank() == 0 || b.rank() == 0 || a[a.rank() - 1] != b[b.rank() - 1]) return false;
  if (in.placement != out.placement || in.type.dtype != out.type.dtype) return false;
  if (out.placement.layout == Layout::RowMajor) return true;
  const int64_t ra = a.rank() >= 2 ? a[a.rank() - 2] : 1, rb = b.rank() >= 2 ? b[b.rank() - 2] : 1;
  return ra == rb || (ra % 32 == 0 && rb % 32 == 0);
}

// A collective over the chips along the op's cluster_axis of the device's mesh, priced by
// collective_cost.h (Ethernet link bandwidth, hops, topology; its sources are cited there).
// B is the bytes the model counts: all_gather's gathered tensor (the result), reduce_scatter's
// and all_reduce's full-size input, in the tile layout the chips hold. A group size written
// on the op that differs from the mesh's is an error: the graph was partitioned for another
// mesh.
OpEstimate collective_estimate(const Device& d, OpKind kind, const Attrs& attrs,
                               std::span<const TensorUse> inputs, const TensorUse& output) {
  int64_t axis = attrs.get<int64_t>("cluster_axis");
  CollectiveGroup g = axis_group(d, static_cast<int>(axis));
  if (const auto* n = std::get_if<int64_t>(attrs.find("cluster_size")); n && *n != g.chips) {
    throw Error(fmt::format("'{}' over {} chips (cluster_size), but device '{}' has {} along "
                            "mesh axis {}",
                            op_name(kind), *n, d.name, g.chips, axis));
  }
  Collective c = kind == OpKind::AllGather       ? Collective::AllGather
                 : kind == OpKind::ReduceScatter ? Collective::ReduceScatter
                                                 : Collective::AllReduce;
  const TensorType& counted = kind == OpKind::AllGather ? output.type : inputs[0].type;
  auto bytes = static_cast<double>(CostModel::tensor_bytes(counted, Layout::Tile));
  CollectiveEstimate ce = collective_cost(c, bytes, g);
  OpEstimate e;
  e.us = ce.us;
  e.cost.dispatch_us = ce.launch_us;
  e.cost.dominant = "ethernet";
  e.cost.detail =
      fmt::format("{} over {} chips (mesh axis {}): {}", op_name(kind), g.chips, axis, ce.detail);
  return e;
}

// Throws tilesat::Error unless the mesh_shard splits its tensor over the device's mesh.
void check_mesh_fits(const Device& d, const Attrs& attrs, std::span<const TensorUse> inputs,
                     const TensorUse& output) {
  MeshShape mesh = d.mesh ? d.mesh->shape : MeshShape{1, 1};
  try {
    int64_t rank = std::max(inputs[0].type.shape.rank(), output.type.shape.rank());
    check_shard_fits(mesh_shard_spec(attrs, rank), mesh);
  } catch (const Error& e) {
    throw Error(fmt::format("'mesh_shard' on device '{}': {}", d.name, e.diagnostic().message));
  }
}

// The largest divisor of `n` that is at most `cap`.
int64_t largest_divisor_at_most(int64_t n, int64_t cap) {
  for (int64_t d = std::min(n, cap); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}

// A gathered conv's inner block as ttnn's sharded convs take it: on the height-sharded path one
// kernel row of padded channels, or the whole window with activation reuse; on the
// width-sharded path one core's slice of the channels (`slices` cores) over the whole window;
// on the block-sharded path one kernel row of a grid column's slice (`slices` columns).
// 0 when not a gathered conv or the block does not divide K.
int64_t gather_block_w(const MatmulConfig& m, int64_t kt, int64_t slices) {
  if (!m.conv_gather) return 0;
  const ConvGather& g = *m.conv_gather;
  if (m.mcast == MatmulMcast::In0Row1D) return kt % slices ? 0 : kt / slices;
  if (m.mcast == MatmulMcast::Block2D)
    return kt % (g.kernel_h * slices) ? 0 : kt / (g.kernel_h * slices);
  int64_t row = std::max<int64_t>(g.kernel_w * g.channels / 32, 1);
  if (g.reuse) return kt;
  return kt % row ? 0 : row;
}

// The smallest rectangle of `grid` holding `cores` cores (the fewest spare cores, then the
// squarest): 12 cores of an 8x8 grid are 3x4, 13 are 2x7 with one idle.
CoreGrid bounding_grid(int64_t cores, const CoreGrid& grid) {
  CoreGrid best = grid;
  for (uint32_t r = 1; r <= grid.rows; ++r) {
    auto c = static_cast<uint32_t>(ceil_div(cores, r));
    if (c > grid.cols) continue;
    CoreGrid g{r, c};
    auto spread = [](const CoreGrid& x) {
      return x.rows > x.cols ? x.rows - x.cols : x.cols - x.rows;
    };
    if (g.cores() < best.cores() || (g.cores() == best.cores() && spread(g) < spread(best)))
      best = g;
  }
  return best;
}

int64_t in_rows_bytes(std::span<const TensorUse> inputs) {
  int64_t bytes = 0;
  for (const TensorUse& in : inputs) bytes += CostModel::tensor_bytes(in.type, Layout::RowMajor);
  return bytes;
}

} // namespace

double matmul_dram_bytes(const MatmulConfig& m) {
  int64_t mt = ceil_div(m.m, 32), kt = ceil_div(m.k, 32), nt = ceil_div(m.n, 32);
  return (m.in0_l1
              ? 0.0
              : static_cast<double>(mt * kt * m.in0_tile_bytes) / std::max(m.in0_unfold, 1.0)) +
         (m.in1_l1 ? 0.0 : static_cast<double>(kt * nt * m.in1_tile_bytes)) +
         (m.out_l1 ? 0.0 : static_cast<double>(mt * nt * m.out_tile_bytes));
}

double matmul_unpack_bytes_per_product(const MatmulConfig& m, int64_t h, int64_t w) {
  const auto in0 = static_cast<double>(m.in0_tile_bytes),
             in1 = static_cast<double>(m.in1_tile_bytes);
  return w >= h ? in1 + in0 / static_cast<double>(w) : in0 + in1 / static_cast<double>(h);
}

double matmul_block_fetch_us(const Device& d, double block_bytes) {
  return d.matmul_block_sync_us +
         d.cycles_to_us(kBlockFetchLinkPasses * block_bytes / d.noc_bytes_per_cycle_per_link);
}

int64_t matmul_partial_tile_bytes(const MatmulConfig& m) {
  const int64_t f32 = CostModel::tile_bytes(DType::F32);
  if (m.packer_l1_acc) return m.fp32_accumulate ? f32 : CostModel::tile_bytes(DType::BF16);
  // A conv packs them in its result's format; a matmul in f32 when it accumulates in f32.
  return m.fp32_accumulate && !m.conv_gather ? f32 : m.out_tile_bytes;
}

int64_t matmul_cb_bytes(const MatmulConfig& m, int64_t out_h, int64_t out_w, int64_t in0_block_w) {
  return 2 * out_h * in0_block_w * m.in0_tile_bytes + 2 * in0_block_w * out_w * m.in1_tile_bytes +
         out_h * out_w * m.out_tile_bytes;
}

double sfpu_weight(OpKind kind) {
  switch (kind) {
  // One SFPU instruction per element row: compare/select or sign manipulation.
  case OpKind::Relu:
  case OpKind::Neg:
  case OpKind::Abs:
  case OpKind::Maximum:
  case OpKind::Minimum:
  case OpKind::Equal:
  case OpKind::Less:
  case OpKind::Greater:
  case OpKind::Where:
  case OpKind::Full:
    return 1;
  // One transcendental function (a polynomial or Newton iterations over each element row):
  // kTranscendentalSfpuPasses.
  case OpKind::Exp:
  case OpKind::Log:
  case OpKind::Sqrt:
  case OpKind::Rsqrt:
  case OpKind::Reciprocal:
  case OpKind::Tanh:
  case OpKind::Sin:
  case OpKind::Cos:
  case OpKind::Erf:
    return kTranscendentalSfpuPasses;
  // ttnn's GELU (its default, fast_and_approximate_mode) is a six-piece lookup table: per
  // element row a load, x * 0.5, one SFPLUTFP32, an add and a store (tenstorrent/tt-llk
  // tt_llk_wormhole_b0/common/inc/sfpu/ckernel_sfpu_gelu.h, _calculate_gelu_).
  case OpKind::Gelu:
    return kLutGeluSfpuPasses;
  // ttnn's sigmoid is exp(-x) then a Newton reciprocal; silu multiplies by x after it
  // (tenstorrent/tt-metal pull request #41949 describes the stock kernel).
  case OpKind::Sigmoid:
    return 2 * kTranscendentalSfpuPasses;
  case OpKind::Silu:
    return 2 * kTranscendentalSfpuPasses + 1;
  case OpKind::Pow:
    return 2 * kTranscendentalSfpuPasses; // exp(b * log(a))
  default:
    return 0;
  }
}

CostModel::CostModel(Device device, CostOptions options)
    : device_(std::move(device)), options_(std::move(options)) {
  if (!options_.layouts) options_.layouts = LayoutChoice::shipped();
}

int64_t CostModel::tile_bytes(DType dtype) {
  return ::tilesat::tile_bytes(dtype);
}

std::array<int64_t, 2> CostModel::tiles_2d(const Shape& shape) {
  int64_t rows = 1, cols = 1;
  if (shape.rank() >= 1) cols = shape[shape.rank() - 1];
  for (int64_t i = 0; i + 1 < shape.rank(); ++i) rows *= shape[i];
  // Leading dims fold into rows, but each 2-D slice pads its own rows to whole tiles.
  int64_t last_rows = shape.rank() >= 2 ? shape[shape.rank() - 2] : 1;
  int64_t batches = last_rows == 0 ? 0 : rows / std::max<int64_t>(last_rows, 1);
  return {std::max<int64_t>(batches, 1) * ceil_div(std::max<int64_t>(last_rows, 1), 32),
          ceil_div(std::max<int64_t>(cols, 1), 32)};
}

int64_t CostModel::tensor_bytes(const TensorType& type, Layout layout) {
  if (layout == Layout::Tile) {
    auto t = tiles_2d(type.shape);
    return t[0] * t[1] * tile_bytes(type.dtype);
  }
  return std::max<int64_t>(type.shape.numel(), 1) * element_bytes(type.dtype);
}

int64_t CostModel::l1_bytes_per_core(const TensorType& type, const Placement& p) const {
  if (p.buffer == BufferType::DRAM) return 0;
  if (p.memory != MemoryLayout::Interleaved) {
    TensorType shard{type.dtype, Shape{p.shard_shape[0], p.shard_shape[1]}};
    return tensor_bytes(shard, p.layout);
  }
  // Interleaved pages (tiles, or rows) go round-robin over the banks of every usable core.
  int64_t cores = device_.grid_usable.cores();
  if (p.layout == Layout::Tile) {
    auto t = tiles_2d(type.shape);
    return ceil_div(t[0] * t[1], cores) * tile_bytes(type.dtype);
  }
  int64_t cols = type.shape.rank() >= 1 ? type.shape[type.shape.rank() - 1] : 1;
  int64_t rows = std::max<int64_t>(type.shape.numel(), 1) / std::max<int64_t>(cols, 1);
  return ceil_div(rows, cores) * cols * element_bytes(type.dtype);
}

OpEstimate CostModel::finish(double compute_us, double dram_us, double noc_us, double l1_us,
                             std::string detail, bool sharded_operands, double launch_us) const {
  OpEstimate e;
  CostBreakdown& c = e.cost;
  c.compute_us = compute_us;
  c.dram_us = dram_us;
  c.noc_us = noc_us;
  c.l1_us = l1_us;
  c.dispatch_us = launch_us;
  double bound = std::max({compute_us, dram_us, noc_us, l1_us});
  double device_us = launch_us + bound;
  e.us = device_us;
  if (!options_.trace) {
    double host = sharded_operands ? device_.host_dispatch_sharded_us : device_.host_dispatch_us;
    c.dispatch_us = std::max(launch_us, host - bound);
    e.us = std::max(device_us, host);
  }
  if (c.dispatch_us >= bound)
    c.dominant = "dispatch";
  else if (bound == compute_us)
    c.dominant = "compute";
  else if (bound == dram_us)
    c.dominant = "dram";
  else if (bound == noc_us)
    c.dominant = "noc";
  else
    c.dominant = "l1";
  if (options_.details)
    c.detail = fmt::format("{}; compute {:.2f} dram {:.2f} noc {:.2f} l1 {:.2f} dispatch {:.2f} us",
                           detail, compute_us, dram_us, noc_us, l1_us, c.dispatch_us);
  return e;
}

OpEstimate CostModel::matmul(const MatmulConfig& m) const {
  const Device& d = device_;
  // An empty matmul (a zero extent) is priced as one tile: it still launches (and the
  // per-core arithmetic divides by tile counts).
  int64_t mt = std::max<int64_t>(ceil_div(m.m, 32), 1),
          kt = std::max<int64_t>(ceil_div(m.k, 32), 1),
          nt = std::max<int64_t>(ceil_div(m.n, 32), 1);
  int64_t gr = std::max<uint32_t>(m.grid.rows, 1), gc = std::max<uint32_t>(m.grid.cols, 1);
  const bool one_d = m.mcast != MatmulMcast::Block2D;
  // ttnn's height- and width-sharded convs: gathered activation blocks tilized into the result's
  // format.
  const bool gather_hs = m.conv_gather && m.mcast == MatmulMcast::In1Col1D;
  const bool gather_ws = m.conv_gather && m.mcast == MatmulMcast::In0Row1D;
  const bool gather_bs = m.conv_gather && m.mcast == MatmulMcast::Block2D;
  const bool gather = gather_hs || gather_ws || gather_bs;
  // A block-sharded conv splits its input channels over as many grid columns as ttnn would
  // (all of them unless that pads too much), each a whole number of tiles.
  int64_t channel_slices = 1;
  if (gather_bs) {
    const ConvGather& g = *m.conv_gather;
    const int64_t channel_tiles = ceil_div(g.channels, int64_t{32});
    channel_slices = g.channel_slices > 0 ? std::min(g.channel_slices, channel_tiles)
                                          : conv_split_with_padding(channel_tiles, gc);
    kt = g.kernel_h * g.kernel_w * ceil_div(channel_tiles, channel_slices) * channel_slices;
  }
  MatmulConfig unpacked = m;
  if (gather) unpacked.in0_tile_bytes = m.out_tile_bytes;
  MatmulBlocking b;
  b.per_core_m = ceil_div(mt, gr);
  b.per_core_n = ceil_div(nt, gc);
  // 1-D: every core holds all rows of the output and a slice of its columns (in0 multicast),
  // or all columns and a slice of the rows (in1 multicast); the cores form one line.
  if (m.mcast == MatmulMcast::In0Row1D) {
    b.per_core_m = mt;
    b.per_core_n = ceil_div(nt, gr * gc);
  } else if (m.mcast == MatmulMcast::In1Col1D) {
    b.per_core_m = ceil_div(mt, gr * gc);
    b.per_core_n = nt;
  }
  if (m.blocking) {
    b = *m.blocking;
    b.in0_block_w = std::clamp<int64_t>(b.in0_block_w, 1, kt);
  }
  int64_t rows_used = ceil_div(mt, b.per_core_m);
  int64_t cols_used = ceil_div(nt, b.per_core_n);
  const int64_t usable = d.usable_l1_bytes();
  if (!m.blocking) {
    // The output block each core accumulates at a time: its whole per-core block when the
    // circular buffers fit with an inner block of one tile, else the largest divisors of it
    // that fit (most tiles, then squarest), streamed one after another.
    b.out_block_h = b.per_core_m;
    b.out_block_w = b.per_core_n;
    if (matmul_cb_bytes(m, b.per_core_m, b.per_core_n, 1) > usable) {
      int64_t best_tiles = 0;
      b.out_block_h = b.out_block_w = 1;
      for (int64_t h = 1; h <= b.per_core_m; ++h) {
        if (b.per_core_m % h) continue;
        for (int64_t w = 1; w <= b.per_core_n; ++w) {
          if (b.per_core_n % w || matmul_cb_bytes(m, h, w, 1) > usable) continue;
          bool squarer = std::abs(h - w) < std::abs(b.out_block_h - b.out_block_w);
          if (h * w > best_tiles || (h * w == best_tiles && squarer)) {
            best_tiles = h * w;
            b.out_block_h = h;
            b.out_block_w = w;
          }
        }
      }
    }
    // A conv computes act_block_h rows of output tiles at a time when asked to.
    if (m.conv_gather && m.conv_gather->act_block_h_tiles > 0 &&
        m.conv_gather->act_block_h_tiles < b.out_block_h &&
        b.per_core_m % m.conv_gather->act_block_h_tiles == 0)
      b.out_block_h = m.conv_gather->act_block_h_tiles;
    // DST holds dst_tiles; half of it while the packer drains the other half, half again when
    // accumulating in f32. The sub-block that makes the unpackers move the fewest bytes per
    // tile product, within the output block.
    int64_t dst = std::max<int64_t>(d.dst_tiles / 2 / (m.fp32_accumulate ? 2 : 1), 1);
    double best_bytes = 0;
    for (int64_t h = 1; h <= b.out_block_h; ++h) {
      if (b.out_block_h % h) continue;
      for (int64_t w = 1; w <= b.out_block_w && h * w <= dst; ++w) {
        if (b.out_block_w % w) continue;
        double bytes = matmul_unpack_bytes_per_product(unpacked, h, w);
        if (best_bytes == 0 || bytes < best_bytes - 1e-9) {
          best_bytes = bytes;
          b.out_subblock_h = h;
          b.out_subblock_w = w;
        }
      }
    }
  }
  // Circular buffers: double-buffered in0 and in1 blocks, and the output block.
  auto cb_bytes = [&](int64_t ibw) {
    return matmul_cb_bytes(m, b.out_block_h, b.out_block_w, ibw);
  };
  // With activation reuse the readers' buffers hold one output row of pixels and the tilized
  // activation block is held whole, once, beside the weight block and the output block.
  auto gather_cb_bytes = [&](int64_t ibw) {
    if (!m.conv_gather || !m.conv_gather->reuse) return cb_bytes(ibw);
    return b.out_block_h * ibw * m.out_tile_bytes + 2 * ibw * b.out_block_w * m.in1_tile_bytes +
           b.out_block_h * b.out_block_w * m.out_tile_bytes;
  };
  if (!m.blocking) {
    b.in0_block_w = 1;
    if (m.in0_block_w > 0) {
      b.in0_block_w = std::min(m.in0_block_w, kt);
    } else if (int64_t row =
                   gather_block_w(m, kt, gather_bs ? channel_slices : rows_used * cols_used);
               row > 0 && gather_cb_bytes(row) <= usable) {
      b.in0_block_w = row;
    } else {
      for (int64_t ibw = largest_divisor_at_most(kt, 8); ibw >= 1; --ibw) {
        if (kt % ibw == 0 && cb_bytes(ibw) <= usable) {
          b.in0_block_w = ibw;
          break;
        }
      }
    }
  }
  // ttnn's block-sharded conv always takes one kernel row of a column's channels at a time.
  // When that does not fit L1 (ttnn would not run it) the model takes the row's largest
  // divisor that fits, no wider than a block given by the config or the caller.
  const int64_t bs_row = gather_bs ? gather_block_w(m, kt, channel_slices) : 0;
  if (bs_row > 0) {
    int64_t ibw = m.blocking || m.in0_block_w > 0 ? std::min(b.in0_block_w, bs_row) : bs_row;
    while (ibw > 1 && (bs_row % ibw || gather_cb_bytes(ibw) > usable)) --ibw;
    b.in0_block_w = ibw;
  }
  // Streamed output blocks: each reads its rows of in0 and columns of in1 over all of K.
  const int64_t blocks_m = ceil_div(b.per_core_m, std::max<int64_t>(b.out_block_h, 1));
  const int64_t blocks_n = ceil_div(b.per_core_n, std::max<int64_t>(b.out_block_w, 1));
  const int64_t out_blocks = blocks_m * blocks_n;
  const int64_t k_blocks = ceil_div(kt, b.in0_block_w);
  const int64_t blocks = out_blocks * k_blocks; // inner blocks over all output blocks
  const int64_t block_tiles = b.per_core_m * b.per_core_n;
  double tiles = static_cast<double>(block_tiles * kt);
  double unpack_bytes_per_tile =
      matmul_unpack_bytes_per_product(unpacked, b.out_subblock_h, b.out_subblock_w);
  double unpack_per_tile = unpack_bytes_per_tile / d.unpack_bytes_per_cycle;
  // The products with the unpacker's time partly hidden behind the FPU's (or the other way).
  double products =
      tiles * matmul_product_cycles(d.fpu_matmul_cycles_per_tile[static_cast<size_t>(m.fidelity)],
                                    unpack_per_tile);
  double epilogue = static_cast<double>(block_tiles) * m.epilogue_cycles_per_tile;
  // Without packer accumulation in L1, each inner block after the first packs the partial
  // output block out and unpacks it again: its bytes through the packers, then the unpacker.
  // The partial sums are packed in ttnn's intermediate format: f32 when accumulating in f32,
  // else the result's.
  // f32 partial sums are unpacked straight into DEST: each reloaded sub-block also switches
  // the unpacker to that mode and back to the product's operands (kF32ReloadSubblockCycles).
  const int64_t partial_bytes = matmul_partial_tile_bytes(m);
  const int64_t reloads = m.packer_l1_acc ? 0 : k_blocks - 1;
  const bool f32_reload = reloads > 0 && partial_bytes == tile_bytes(DType::F32);
  double spill = static_cast<double>(reloads * block_tiles * partial_bytes) *
                 (1.0 / d.pack_bytes_per_cycle + 1.0 / d.unpack_bytes_per_cycle);
  if (f32_reload)
    spill += static_cast<double>(
                 reloads *
                 ceil_div(block_tiles, std::max<int64_t>(b.out_subblock_h * b.out_subblock_w, 1))) *
             kF32ReloadSubblockCycles;
  double compute_us = d.cycles_to_us(products + epilogue + spill);
  // A conv's activation gather, tilize and weight fetch before each inner block's products,
  // not overlapped with them (ttnn's default: no double buffering).
  ConvGatherTime gathered;
  ConvRounds rounds;
  const int64_t slices = rows_used * cols_used;
  if (gather_ws && b.in0_block_w == gather_block_w(m, kt, slices)) {
    // Each core's channel slice gathered and tilized once, then one round per slice.
    ConvGather g = *m.conv_gather;
    g.channels = std::max<int64_t>(g.channels / slices, 1);
    rounds = conv_width_sharded_time(d, g,
                                     {.act_block_h_tiles = b.out_block_h,
                                      .pixels = std::min(m.m, b.out_block_h * 32),
                                      .block_w_tiles = b.in0_block_w,
                                      .weight_block_w_tiles = b.out_block_w,
                                      .weight_tile_bytes = m.in1_tile_bytes,
                                      .fp32_accumulate = m.fp32_accumulate},
                                     blocks);
    compute_us += rounds.once_us + static_cast<double>(blocks) * rounds.round_us;
  }
  // Height- and block-sharded convs: every inner block's products wait for its gathered,
  // tilized activations and its weights; the readers run ahead as far as the buffers allow.
  const bool gather_bs_rows = bs_row > 0;
  ConvBlockParts bs_parts;
  if (gather_hs || gather_bs_rows) {
    const ConvGather& g = *m.conv_gather;
    ConvGatherBlock block{.act_block_h_tiles = b.out_block_h,
                          .block_w_tiles = b.in0_block_w,
                          .weight_block_w_tiles = b.out_block_w,
                          .weight_tile_bytes = m.in1_tile_bytes,
                          .fp32_accumulate = m.fp32_accumulate};
    ConvPipeline p;
    p.output_blocks = out_blocks;
    p.products_us = d.cycles_to_us((products + spill) / static_cast<double>(blocks));
    p.act_slots = g.act_double_buffer ? 2 : 1;
    p.weight_slots = g.weights_double_buffer ? 2 : 1;
    if (gather_hs) {
      gathered = conv_gather_time(d, g, block);
      p.gathers = k_blocks;
      p.split_reader = gathered.split_reader;
      p.gather_us = gathered.split_reader ? gathered.read_us / 2 : gathered.read_us;
      p.tilize_us = gathered.tilize_us;
      p.tilize_as_read = g.reuse;
      p.weights_read_us = gathered.weights_us - gathered.weights_mcast_us;
      p.weights_mcast_us = gathered.weights_mcast_us;
      // Several output blocks: ttnn keeps the whole window's weights in L1 after the first.
      if (out_blocks > 1 && !g.reuse) {
        p.weights_resident = true;
        p.weight_slots = static_cast<int>(k_blocks);
      }
    } else {
      // One gather and tilize per kernel row of the column's channels (bs_row tiles), then
      // each column's slice in blocks of in0_block_w tiles.
      ConvGather slice = g;
      slice.channels = bs_row * 32 / std::max<int64_t>(g.kernel_w, 1);
      bs_parts = conv_block_sharded_parts(d, slice, block);
      const int64_t per_slice = bs_row / b.in0_block_w;
      p.gathers = g.kernel_h;
      p.blocks_per_gather = channel_slices * per_slice;
      p.split_reader = true;
      p.gather_us = bs_parts.gather_us;
      p.tilize_us = bs_parts.tilize_us * static_cast<double>(per_slice);
      p.act_mcast_us = bs_parts.act_mcast_us;
      p.weights_read_us = bs_parts.weights_read_us;
      p.weights_mcast_us = bs_parts.weights_mcast_us;
      p.gather_in_act_buffer = true;
    }
    compute_us = d.cycles_to_us(epilogue) + conv_pipeline_us(p);
  }
  // Streaming re-reads in0 once per block column and in1 once per block row.
  double dram_bytes = matmul_dram_bytes(m);
  if (out_blocks > 1) {
    if (!m.in0_l1)
      dram_bytes += static_cast<double>((blocks_n - 1) * mt * kt * m.in0_tile_bytes) /
                    std::max(m.in0_unfold, 1.0);
    if (!m.in1_l1) dram_bytes += static_cast<double>((blocks_m - 1) * kt * nt * m.in1_tile_bytes);
  }
  double dram_us = dram_bytes / (d.dram_bandwidth_gb_s * 1e3);
  // Each core receives its in0 rows and in1 columns over its NoC link (multicast), once per
  // output block that needs them.
  double noc_bytes = static_cast<double>(b.per_core_m * kt * m.in0_tile_bytes * blocks_n +
                                         kt * b.per_core_n * m.in1_tile_bytes * blocks_m);
  double noc_us = d.cycles_to_us(noc_bytes / d.noc_bytes_per_cycle_per_link);
  double fetch_us = 0; // per inner block of a 2-D multicast whose in0 comes from DRAM
  if (one_d) {
    // One sender reads every block of the multicast operand (from DRAM or L1, over its link)
    // and then multicasts it, block after block, at the inner-block fetch rate.
    double block_bytes =
        m.mcast == MatmulMcast::In0Row1D
            ? static_cast<double>(b.out_block_h * b.in0_block_w * m.in0_tile_bytes)
            : static_cast<double>(b.in0_block_w * b.out_block_w * m.in1_tile_bytes);
    double sender_us = static_cast<double>(blocks) * matmul_block_fetch_us(d, block_bytes);
    // A width-sharded conv's cores multicast their own blocks in turn (priced above).
    if (rounds.round_us == 0) noc_us = std::max(noc_us, sender_us);
  } else if (!m.in0_l1) {
    // in0 comes from DRAM: before each inner block, a sender in every row reads its in0 block
    // (and one in every column its in1 block) and multicasts it. Double buffering overlaps the
    // fetch of the next block with the compute of this one, so the cores wait for the slower
    // of the two per block. The larger of the two blocks sets the fetch.
    fetch_us = matmul_block_fetch_us(
        d,
        std::max(static_cast<double>(b.out_block_h * b.in0_block_w * m.in0_tile_bytes) /
                     std::max(m.in0_unfold, 1.0),
                 m.in1_l1 ? 0.0
                          : static_cast<double>(b.in0_block_w * b.out_block_w * m.in1_tile_bytes)));
    compute_us = std::max(compute_us, static_cast<double>(blocks) * fetch_us);
  }
  // The writer sends an output block to DRAM only once its last inner block is packed, so the
  // final block's write follows the compute: every core's last block at the DRAM rate (the
  // earlier blocks' writes overlap the blocks computed after them).
  double tail_us = 0;
  if (!m.out_l1) {
    tail_us = static_cast<double>(b.out_block_h * b.out_block_w * rows_used * cols_used *
                                  m.out_tile_bytes) /
              (d.dram_bandwidth_gb_s * 1e3);
    if (one_d) noc_us += tail_us;
    // The core's timeline is its compute, then the write; it is named by the longer of the two.
    if (tail_us > compute_us)
      dram_us = std::max(dram_us, compute_us + tail_us);
    else
      compute_us += tail_us;
  }
  // A 1-D multicast whose cores each read their own operand rows (or columns) from DRAM and
  // write their result there: each core's reads, products and writes follow each other (ttnn's
  // writer waits on every output sub-block's writes), so over all cores the reads move at
  // kMatmul1DReadShare of the DRAM bandwidth and then the writes at kMatmul1DWriteShare.
  double phased_us = 0;
  const bool own_in_dram = (m.mcast == MatmulMcast::In1Col1D && !m.in0_l1) ||
                           (m.mcast == MatmulMcast::In0Row1D && !m.in1_l1);
  if (own_in_dram && !m.out_l1 && !m.conv_gather) {
    const double own_bytes = m.mcast == MatmulMcast::In1Col1D
                                 ? static_cast<double>(blocks_n * mt * kt * m.in0_tile_bytes) /
                                       std::max(m.in0_unfold, 1.0)
                                 : static_cast<double>(blocks_m * kt * nt * m.in1_tile_bytes);
    const double out_bytes = static_cast<double>(mt * nt * m.out_tile_bytes);
    const double rate = d.dram_bandwidth_gb_s * 1e3;
    phased_us = own_bytes / (kMatmul1DReadShare * rate) + out_bytes / (kMatmul1DWriteShare * rate);
    dram_us = std::max(dram_us, phased_us);
  }
  std::string detail;
  if (options_.details) {
    detail =
        fmt::format("matmul {}x{}x{} = {}x{}x{} tiles on {}x{} cores{}, {}x{} tiles per core, "
                    "subblock {}x{}, {:.0f} tile products x {:.1f} cycles ({:.0f} FPU {}, {:.1f} "
                    "unpack)",
                    m.m, m.k, m.n, mt, kt, nt, rows_used, cols_used,
                    m.mcast == MatmulMcast::In0Row1D   ? " (1-D in0 multicast)"
                    : m.mcast == MatmulMcast::In1Col1D ? " (1-D in1 multicast)"
                                                       : "",
                    b.per_core_m, b.per_core_n, b.out_subblock_h, b.out_subblock_w, tiles,
                    products / std::max(tiles, 1.0),
                    d.fpu_matmul_cycles_per_tile[static_cast<size_t>(m.fidelity)],
                    fidelity_name(m.fidelity), unpack_per_tile);
    if (m.epilogue_cycles_per_tile > 0)
      detail += fmt::format(", epilogue {:.0f} cycles per output tile", m.epilogue_cycles_per_tile);
    if (spill > 0)
      detail += fmt::format(", {:.0f} cycles reloading partial sums{}", spill,
                            f32_reload ? " (f32, into DEST)" : "");
    if (gather_hs)
      detail += fmt::format(", {} inner blocks each waiting for its {}", blocks, gathered.detail);
    if (gather_bs_rows)
      detail += fmt::format(", {} inner blocks of {} tiles over the kernel rows of a column's "
                            "channels: {}",
                            blocks, b.in0_block_w, bs_parts.detail);
    if (rounds.round_us > 0) detail += fmt::format(", {}", rounds.detail);
    if (out_blocks > 1)
      detail += fmt::format(", streamed in {} output blocks of {}x{} tiles (in0 read {}x, in1 {}x)",
                            out_blocks, b.out_block_h, b.out_block_w, blocks_n, blocks_m);
    if (!m.in0_l1 && !one_d)
      detail += fmt::format(", {} inner blocks each waiting for the slower of its compute and a "
                            "{:.2f} us DRAM fetch",
                            blocks, fetch_us);
    if (tail_us > 0)
      detail += fmt::format(", then {:.2f} us writing the last output block to DRAM", tail_us);
    if (phased_us > 0)
      detail += fmt::format(", {:.2f} us reading its own operand and then writing the result "
                            "from and to DRAM",
                            phased_us);
  }
  // A matmul's launch also fills its multicast pipeline (the first blocks' fetch); a gathered
  // conv pays its first block's fetch in the compute above, and keeps a kernel's fixed time.
  OpEstimate e = finish(compute_us, dram_us, noc_us, 0, detail, m.in0_sharded || m.out_sharded,
                        gather_hs || gather_bs_rows || rounds.round_us > 0 ? stream_launch_us(d)
                                                                           : d.launch_us);
  // A 1-D multicast's line of cores is laid out on the grid: the smallest rectangle holding it.
  e.grid = one_d ? bounding_grid(rows_used * cols_used,
                                 CoreGrid{static_cast<uint32_t>(gr), static_cast<uint32_t>(gc)})
                 : CoreGrid{static_cast<uint32_t>(rows_used), static_cast<uint32_t>(cols_used)};
  e.cores = static_cast<uint32_t>(rows_used * cols_used);
  e.blocking = b;
  e.matmul = m;
  e.circular_buffers = 3;
  e.l1_bytes_per_core = gather_cb_bytes(b.in0_block_w);
  return e;
}

double CostModel::read_us(const TensorUse& t, uint32_t cores, double* dram, double* noc,
                          double* l1) const {
  const Device& d = device_;
  double bytes = static_cast<double>(tensor_bytes(t.type, t.placement.layout));
  if (t.placement.buffer == BufferType::DRAM) {
    // Tile-sized pages streamed to and from interleaved banks by every core: the stream rate,
    // not the read microbenchmark's (cost/README.md, Beyond matmul).
    *dram += bytes / (d.dram_stream_gb_s * 1e3);
  } else if (t.placement.memory == MemoryLayout::Interleaved) {
    *noc += d.cycles_to_us(bytes / (d.noc_bytes_per_cycle_per_link * cores));
  } else {
    *l1 += d.cycles_to_us(bytes / cores / d.unpack_bytes_per_cycle);
  }
  return bytes;
}

CostModel::Spread CostModel::spread(const TensorUse& output) const {
  auto t = tiles_2d(output.type.shape);
  Spread s;
  s.grid = output.placement.memory != MemoryLayout::Interleaved &&
                   output.placement.buffer == BufferType::L1
               ? output.placement.grid
               : device_.grid_usable;
  s.cores = std::min<int64_t>(t[0] * t[1], s.grid.cores());
  // A linear sharding's shards may leave the last row of its grid short.
  if (output.placement.memory != MemoryLayout::Interleaved &&
      output.placement.buffer == BufferType::L1)
    s.cores = std::min(s.cores, shard_count(output.type, output.placement));
  s.busy = s.cores == s.grid.cores() ? s.grid : bounding_grid(s.cores, s.grid);
  return s;
}

namespace {

// A transpose or permute of tiles that keeps the last dim and moves the one before it, so the
// rows of a tile land in other tiles: the input's tiles and the valid rows each holds (on
// average). Each row is written as the two 16-element face rows of a 32-wide tile row.
struct TileRowMove {
  int64_t tiles = 0;
  double rows_per_tile = 0;
};
constexpr double kFaceRowsPerTileRow = 2;

std::optional<TileRowMove> tile_row_move(OpKind kind, const Attrs& attrs, const TensorUse& in,
                                         const TensorUse& out) {
  const Shape& s = in.type.shape;
  const int64_t rank = s.rank();
  if (rank < 3 || in.placement.layout != Layout::Tile || out.placement.layout != Layout::Tile ||
      out.placement.memory != MemoryLayout::Interleaved)
    return std::nullopt;
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = i;
  if (kind == OpKind::Transpose) {
    auto norm = [&](int64_t d) { return d < 0 ? d + rank : d; };
    const int64_t a = norm(attrs.get_or<int64_t>("dim0", 0));
    const int64_t b = norm(attrs.get_or<int64_t>("dim1", 0));
    if (a < 0 || b < 0 || a >= rank || b >= rank) return std::nullopt;
    std::swap(perm[static_cast<size_t>(a)], perm[static_cast<size_t>(b)]);
  } else {
    perm = attrs.get_or<std::vector<int64_t>>("permutation", perm);
    if (static_cast<int64_t>(perm.size()) != rank) return std::nullopt;
  }
  if (perm[static_cast<size_t>(rank - 1)] != rank - 1 ||
      perm[static_cast<size_t>(rank - 2)] == rank - 2)
    return std::nullopt;
  const int64_t h = std::max<int64_t>(s[rank - 2], 1);
  const auto t = CostModel::tiles_2d(s);
  TileRowMove m;
  m.tiles = t[0] * t[1];
  m.rows_per_tile = static_cast<double>(h) / static_cast<double>(ceil_div(h, int64_t{32}));
  return m;
}

} // namespace

OpEstimate CostModel::eltwise(OpKind kind, const Attrs& /*attrs*/,
                              std::span<const TensorUse> inputs, const TensorUse& output,
                              double cycles_per_tile, std::string what, double fpu_phases,
                              double noc_writes_us) const {
  const Device& d = device_;
  auto t = tiles_2d(output.type.shape);
  int64_t tiles = t[0] * t[1];
  const Spread sp = spread(output);
  const int64_t cores = sp.cores;
  int64_t per_core = ceil_div(tiles, cores);
  double dram = 0, noc = 0, l1 = 0;
  double in_bytes_per_tile = 0;
  bool sharded = false;
  // A concat reads each output tile from one of its operands; other ops read one of each.
  const bool one_stream = kind == OpKind::Concat;
  for (const TensorUse& in : inputs) {
    read_us(in, static_cast<uint32_t>(cores), &dram, &noc, &l1);
    double bytes = static_cast<double>(tile_bytes(in.type.dtype));
    in_bytes_per_tile = one_stream ? std::max(in_bytes_per_tile, bytes) : in_bytes_per_tile + bytes;
    sharded |= in.placement.memory != MemoryLayout::Interleaved;
  }
  read_us(output, static_cast<uint32_t>(cores), &dram, &noc, &l1);
  noc = std::max(noc, noc_writes_us);
  // As for a matmul, a sharded result also takes the host's sharded dispatch path.
  sharded |= output.placement.memory != MemoryLayout::Interleaved;
  double unpack = in_bytes_per_tile / d.unpack_bytes_per_cycle;
  double tile_cycles = cycles_per_tile + unpack;
  if (fpu_phases > 0) tile_cycles = std::max(tile_cycles, fpu_phases * kFpuPhaseFloorCycles);
  double compute_us = d.cycles_to_us(static_cast<double>(per_core) * tile_cycles);
  // Rows moved from row-major to row-major never pass the unpacker: the data-movement cores
  // copy them, bound by the reads and writes alone.
  bool rows_only = moves_rows(kind) && output.placement.layout == Layout::RowMajor &&
                   std::all_of(inputs.begin(), inputs.end(), [](const TensorUse& in) {
                     return in.placement.layout == Layout::RowMajor;
                   });
  std::string work;
  if (options_.details)
    work = fmt::format("{} tiles on {} cores, {} per core x {:.1f} cycles", tiles, cores, per_core,
                       tile_cycles);
  if (rows_only) {
    compute_us = 0;
    what = "(row-major copy)";
    if (options_.details)
      work = fmt::format("{} bytes of rows in, {} out, on {} cores", in_rows_bytes(inputs),
                         tensor_bytes(output.type, Layout::RowMajor), cores);
  }
  OpEstimate e = finish(compute_us, dram, noc, l1,
                        options_.details ? fmt::format("{} {}: {}, output {}", op_name(kind), what,
                                                       work, short_place(output.placement))
                                         : std::string(),
                        sharded, stream_launch_us(d));
  e.cores = static_cast<uint32_t>(cores);
  e.grid = sp.busy;
  // Two-tile double-buffered circular buffers per operand and for the result, plus the
  // L1-resident tensors themselves. A concat's reader walks its interleaved operands one after
  // another through one buffer (ttnn's concat reader), so any number of them share it; a
  // sharded operand is a buffer of its own.
  e.circular_buffers = 1;
  int64_t bytes = 0, stream_tile = 0;
  for (const TensorUse& in : inputs) {
    bool own = !one_stream || in.placement.memory != MemoryLayout::Interleaved;
    e.circular_buffers += own ? 1 : 0;
    bytes += (own ? 2 * tile_bytes(in.type.dtype) : 0) + l1_bytes_per_core(in.type, in.placement);
    if (!own) stream_tile = std::max(stream_tile, tile_bytes(in.type.dtype));
  }
  if (stream_tile > 0) {
    e.circular_buffers += 1;
    bytes += 2 * stream_tile;
  }
  bytes += 2 * tile_bytes(output.type.dtype) + l1_bytes_per_core(output.type, output.placement);
  e.l1_bytes_per_core = bytes;
  return e;
}

OpEstimate CostModel::row_wise(OpKind kind, const Attrs& attrs, std::span<const TensorUse> inputs,
                               const TensorUse& output) const {
  const Device& d = device_;
  const TensorUse& x = inputs[0];
  const bool affine = kind != OpKind::Softmax;
  const RowKernel k =
      row_kernel(d, {.kind = kind,
                     .in = x.type.dtype,
                     .out = output.type.dtype,
                     .gamma = affine && inputs.size() > 1,
                     .beta = affine && inputs.size() > 2,
                     .fp32_accumulate = attrs.get_or<int64_t>("fp32_accumulate", 0) != 0,
                     .fidelity_passes = fidelity_passes(d, options_.fidelity)});
  auto t = tiles_2d(x.type.shape);
  const int64_t rows = t[0], wt = t[1];
  const Placement& p = x.placement;
  const bool sharded = p.memory != MemoryLayout::Interleaved && p.buffer == BufferType::L1;
  // Tile rows per core, tiles of a row per core, and the cores a row spans.
  int64_t cores = 0, core_rows = rows, row_tiles = wt, span = 1;
  CoreGrid busy;
  if (!sharded) {
    cores = std::min<int64_t>(rows, d.grid_usable.cores());
    core_rows = ceil_div(rows, cores);
    busy = bounding_grid(cores, d.grid_usable);
  } else {
    cores = shard_count(x.type, p);
    busy = p.grid;
    const int64_t shard_rows = ceil_div(p.shard_shape[0], int64_t{32});
    const int64_t shard_cols = ceil_div(p.shard_shape[1], int64_t{32});
    if (p.memory == MemoryLayout::HeightSharded) {
      core_rows = shard_rows;
    } else if (p.memory == MemoryLayout::WidthSharded) {
      row_tiles = shard_cols;
      span = cores;
    } else {
      core_rows = shard_rows;
      row_tiles = shard_cols;
      span = p.grid.cols;
    }
  }
  // A row spanning cores: each core reduces its part of every row, then each core owns
  // ceil(rows / span) rows, reads their partials from the others, reduces them, takes the
  // row step, and the combined statistics are multicast back; once per round (ttnn's
  // sharded layer norm: an exchange priced as a matmul block's fetch and multicast).
  double combine_us = 0;
  int64_t owned_rows = core_rows;
  if (span > 1) {
    owned_rows = ceil_div(core_rows, span);
    const double tile = static_cast<double>(k.interm_tile_bytes);
    const double bytes = static_cast<double>(owned_rows * span + core_rows) * tile;
    combine_us =
        k.combine_rounds *
        (d.matmul_block_sync_us +
         d.cycles_to_us(bytes / d.noc_bytes_per_cycle_per_link +
                        static_cast<double>(owned_rows * span) *
                            (tile / d.unpack_bytes_per_cycle + d.fpu_eltwise_cycles_per_tile)));
  }
  const double cycles = static_cast<double>(core_rows * row_tiles) * k.cycles_per_tile +
                        static_cast<double>(owned_rows) * k.cycles_per_row;
  const double compute_us = d.cycles_to_us(cycles) + combine_us;
  // ttnn's large-tensor variant when a core's whole-row buffers do not fit: x read again.
  const double row_bytes = static_cast<double>(row_tiles) * k.row_bytes_per_tile;
  const bool large =
      !sharded && row_bytes > k.large_fraction * static_cast<double>(d.usable_l1_bytes());
  double dram = 0, noc = 0, l1 = 0;
  const auto u32 = static_cast<uint32_t>(cores);
  for (int i = 0; i < (large ? k.large_reads : 1); ++i) read_us(x, u32, &dram, &noc, &l1);
  for (const TensorUse& in : inputs.subspan(1)) read_us(in, u32, &dram, &noc, &l1);
  read_us(output, u32, &dram, &noc, &l1);
  bool sharded_operands = output.placement.memory != MemoryLayout::Interleaved;
  for (const TensorUse& in : inputs)
    sharded_operands |= in.placement.memory != MemoryLayout::Interleaved;
  std::string work = fmt::format(
      "{} rows of {} tiles on {} cores, {} rows x {} tiles per core x {:.1f} cycles + {} row "
      "steps x {:.0f}",
      rows, wt, cores, core_rows, row_tiles, k.cycles_per_tile, owned_rows, k.cycles_per_row);
  if (span > 1)
    work += fmt::format(", {} rounds combining {} cores' partials ({:.2f} us)", k.combine_rounds,
                        span, combine_us);
  if (large) work += fmt::format(", x read {} times (rows do not fit L1)", k.large_reads);
  OpEstimate e = finish(compute_us, dram, noc, l1,
                        fmt::format("{} {}: {}, output {}", op_name(kind), k.what, work,
                                    short_place(output.placement)),
                        sharded_operands, stream_launch_us(d));
  e.cores = static_cast<uint32_t>(cores);
  e.grid = busy;
  // The row buffers (ttnn's large variant keeps 56 tiles of each), the double-buffered result,
  // the scaler, and the L1-resident operands themselves.
  const double kept = large ? k.row_bytes_per_tile * 56 : row_bytes;
  e.circular_buffers = static_cast<int>(inputs.size()) + 4;
  int64_t bytes = static_cast<int64_t>(kept) + 2 * tile_bytes(output.type.dtype) +
                  tile_bytes(DType::BF16) + l1_bytes_per_core(output.type, output.placement);
  for (const TensorUse& in : inputs) bytes += l1_bytes_per_core(in.type, in.placement);
  e.l1_bytes_per_core = bytes;
  return e;
}

MatmulConfig CostModel::matmul_config(std::span<const TensorUse> inputs,
                                      const TensorUse& output) const {
  MatmulConfig m;
  m.in0_tile_bytes = tile_bytes(inputs[0].type.dtype);
  m.in1_tile_bytes = tile_bytes(inputs[1].type.dtype);
  m.out_tile_bytes = tile_bytes(output.type.dtype);
  m.in0_l1 = inputs[0].placement.buffer == BufferType::L1;
  m.in1_l1 = inputs[1].placement.buffer == BufferType::L1;
  m.out_l1 = output.placement.buffer == BufferType::L1;
  m.in0_sharded = inputs[0].placement.memory != MemoryLayout::Interleaved;
  m.out_sharded = output.placement.memory != MemoryLayout::Interleaved;
  m.fidelity = options_.fidelity;
  m.fp32_accumulate = output.type.dtype == DType::F32;
  return m;
}

double CostModel::epilogue_cycles(const Attrs& attrs, bool bias) const {
  double cycles = bias ? device_.fpu_eltwise_cycles_per_tile : 0;
  std::string act = attrs.get_or<std::string>("activation", "");
  if (!act.empty())
    if (auto k = op_by_name(act)) cycles += device_.sfpu_cycles_per_tile * sfpu_weight(*k);
  return cycles;
}

OpEstimate CostModel::best_grid(MatmulConfig m, const TensorUse& output) const {
  // The output's shard grid, else the best of the usable sub-grids (the first of equals).
  if (m.blocking) return matmul(m);
  if (m.out_sharded && m.out_l1) {
    // A height-sharded result is ttnn's 1-D matmul that multicasts in1 and gives each core
    // its shard's rows; a width-sharded one multicasts in0 to column slices.
    const Placement& p = output.placement;
    m.grid = p.grid;
    if (p.memory == MemoryLayout::HeightSharded) m.mcast = MatmulMcast::In1Col1D;
    if (p.memory == MemoryLayout::WidthSharded) m.mcast = MatmulMcast::In0Row1D;
    return matmul(m);
  }
  std::optional<OpEstimate> best;
  for (uint32_t r = 1; r <= device_.grid_usable.rows; ++r)
    for (uint32_t c = 1; c <= device_.grid_usable.cols; ++c) {
      m.grid = CoreGrid{r, c};
      OpEstimate e = matmul(m);
      if (!best || e.us < best->us - 1e-9) best = e;
    }
  // A 1-D multicast over the whole grid: a tall product (few output columns, as a 1x1 conv's
  // 64 channels) spreads its rows over every core, which a 2-D grid cannot (at most one grid
  // column per output tile column); a wide one its columns. Not for a sharded in0, whose
  // shards fix the 2-D layout.
  if (!m.in0_sharded) {
    m.grid = device_.grid_usable;
    for (MatmulMcast mcast : {MatmulMcast::In1Col1D, MatmulMcast::In0Row1D}) {
      m.mcast = mcast;
      OpEstimate e = matmul(m);
      if (e.us < best->us - 1e-9) best = e;
    }
  }
  return *best;
}

OpEstimate CostModel::op(OpKind kind, const Attrs& attrs, std::span<const TensorUse> inputs,
                         const TensorUse& output) const {
  return op_impl(kind, attrs, inputs, output, nullptr);
}

OpEstimate CostModel::op_blocked(OpKind kind, const Attrs& attrs, std::span<const TensorUse> inputs,
                                 const TensorUse& output, CoreGrid grid,
                                 const MatmulBlocking& blocking) const {
  std::pair<CoreGrid, MatmulBlocking> fixed{grid, blocking};
  return op_impl(kind, attrs, inputs, output, &fixed);
}

OpEstimate CostModel::op_impl(OpKind kind, const Attrs& attrs, std::span<const TensorUse> inputs,
                              const TensorUse& output,
                              const std::pair<CoreGrid, MatmulBlocking>* fixed) const {
  const Device& d = device_;
  auto fix = [&](MatmulConfig& m) {
    if (!fixed) return;
    m.grid = fixed->first;
    m.blocking = fixed->second;
  };
  const double elt = d.fpu_eltwise_cycles_per_tile;
  const double sfpu = d.sfpu_cycles_per_tile;
  const double passes = fidelity_passes(d, options_.fidelity);
  switch (kind) {
  case OpKind::Argument:
  case OpKind::Constant:
    throw Error(fmt::format("'{}' is host data, not a device op", op_name(kind)));
  case OpKind::Matmul:
  case OpKind::Linear: {
    const Shape& a = inputs[0].type.shape;
    const Shape& b = inputs[1].type.shape;
    bool ta = attrs.get_or<bool>("transpose_a", false);
    bool tb = attrs.get_or<bool>("transpose_b", false);
    int64_t ar = a.rank(), br = b.rank();
    int64_t rows = ar >= 2 ? a[ar - (ta ? 1 : 2)] : 1;
    int64_t inner = a[ar - (ta ? 2 : 1)];
    if (ar < 2) inner = a[0];
    int64_t cols = br >= 2 ? b[br - (tb ? 2 : 1)] : 1;
    // Batch dims fold into M (each batch is an independent product).
    int64_t batch = 1;
    for (int64_t i = 0; i + 2 < output.type.shape.rank(); ++i) batch *= output.type.shape[i];
    MatmulConfig m = matmul_config(inputs, output);
    m.m = batch * ceil_div(rows, 32) * 32;
    m.k = inner;
    m.n = cols;
    if (kind == OpKind::Linear)
      m.epilogue_cycles_per_tile = epilogue_cycles(attrs, inputs.size() > 2);
    // The compute kernel config, when the op states it (f32 accumulation in DST, the packer
    // accumulating partial sums in L1).
    m.fp32_accumulate = m.fp32_accumulate || attrs.get_or<int64_t>("fp32_accumulate", 0) != 0;
    if (options_.ttnn_default_matmul && !fixed && !m.in0_sharded && !m.out_sharded) {
      m.grid = d.grid_usable;
      m = ttnn_default_matmul(m, d);
    }
    m.packer_l1_acc = attrs.get_or<int64_t>("packer_l1_acc", m.packer_l1_acc ? 1 : 0) != 0;
    fix(m);
    OpEstimate e = best_grid(m, output);
    if (kind == OpKind::Linear && inputs.size() > 2) {
      double dram = 0, noc = 0, l1 = 0;
      read_us(inputs[2], e.cores, &dram, &noc, &l1);
      e.cost.dram_us += dram;
      e.cost.noc_us += noc;
      OpEstimate f = finish(e.cost.compute_us, e.cost.dram_us, e.cost.noc_us, e.cost.l1_us,
                            e.cost.detail.substr(0, e.cost.detail.find(';')),
                            m.in0_sharded || m.out_sharded, d.launch_us);
      f.grid = e.grid;
      f.cores = e.cores;
      f.blocking = e.blocking;
      f.matmul = e.matmul;
      f.circular_buffers = e.circular_buffers + 1;
      f.l1_bytes_per_core = e.l1_bytes_per_core;
      e = f;
    }
    // Operands and result resident in L1 add to the circular buffers. A sharded result's
    // output block is in its shard (the buffers counted it once already): the block streamed,
    // which is the whole per-core block only when the output is not streamed.
    for (const TensorUse& in : inputs)
      e.l1_bytes_per_core += l1_bytes_per_core(in.type, in.placement);
    e.l1_bytes_per_core += l1_bytes_per_core(output.type, output.placement);
    if (m.out_sharded && m.out_l1)
      e.l1_bytes_per_core -= e.blocking->out_block_h * e.blocking->out_block_w * m.out_tile_bytes;
    return e;
  }
  case OpKind::Add:
  case OpKind::Subtract:
    return eltwise(kind, attrs, inputs, output, elt, "(FPU)", fpu_phases(kind, passes));
  case OpKind::Multiply:
    return eltwise(kind, attrs, inputs, output, elt * passes, "(FPU)", fpu_phases(kind, passes));
  case OpKind::Divide:
    return eltwise(kind, attrs, inputs, output,
                   sfpu * sfpu_weight(OpKind::Reciprocal) + elt * passes, "(SFPU 1/x, FPU *)",
                   fpu_phases(kind, passes));
  case OpKind::Maximum:
  case OpKind::Minimum:
  case OpKind::Equal:
  case OpKind::Less:
  case OpKind::Greater:
  case OpKind::Where:
  case OpKind::Relu:
  case OpKind::Gelu:
  case OpKind::Exp:
  case OpKind::Log:
  case OpKind::Neg:
  case OpKind::Abs:
  case OpKind::Sin:
  case OpKind::Cos:
  case OpKind::Tanh:
  case OpKind::Sigmoid:
  case OpKind::Silu:
  case OpKind::Sqrt:
  case OpKind::Rsqrt:
  case OpKind::Reciprocal:
  case OpKind::Erf:
  case OpKind::Pow:
  case OpKind::Full:
    return eltwise(kind, attrs, inputs, output, sfpu * sfpu_weight(kind), "(SFPU)");
  case OpKind::AddRelu:
    return eltwise(kind, attrs, inputs, output, elt + sfpu * sfpu_weight(OpKind::Relu),
                   "(FPU + SFPU)", fpu_phases(kind, passes));
  case OpKind::FusedEltwise: {
    // The body's ops run back to back on each tile in DST.
    std::string body = attrs.get_or<std::string>("body", "");
    double cycles = 0;
    int ops = 0;
    double phases = 0; // a binary op in the body takes the tiles through the FPU
    for (size_t i = 0; i < body.size(); ++i) {
      if (body[i] != '(') continue;
      size_t j = i + 1;
      while (j < body.size() && body[j] != ' ' && body[j] != ')') ++j;
      std::optional<OpKind> k = op_by_name(std::string_view(body).substr(i + 1, j - i - 1));
      if (!k) continue;
      ++ops;
      phases = std::max(phases, fpu_phases(*k, passes));
      if (*k == OpKind::Add || *k == OpKind::Subtract)
        cycles += elt;
      else if (*k == OpKind::Multiply)
        cycles += elt * passes;
      else if (*k == OpKind::Divide)
        cycles += elt * passes + sfpu * sfpu_weight(OpKind::Reciprocal);
      else
        cycles += sfpu * std::max(1.0, sfpu_weight(*k));
    }
    OpEstimate e =
        eltwise(kind, attrs, inputs, output, cycles, fmt::format("({} ops)", ops), phases);
    e.circular_buffers += 1; // an intermediate buffer for the fused chain
    return e;
  }
  case OpKind::Reshape:
    if (options_.reshape_views && reshape_is_view(inputs[0], output)) {
      OpEstimate e;
      e.cost.dominant = "view";
      e.cost.detail = fmt::format("reshape as a view of its input (last dim and tile rows kept, "
                                  "output {}): no kernel",
                                  short_place(output.placement));
      // No core runs it: the grid is the one a copy would take. tilesat's program still
      // copies it (the runtime has no aliased buffers), so in L1 the operand and the result
      // are both live while it runs: the planner and the lowering's allocator count both.
      const Spread sp = spread(output);
      e.grid = sp.busy;
      e.cores = static_cast<uint32_t>(sp.cores);
      e.l1_bytes_per_core = l1_bytes_per_core(output.type, output.placement) +
                            l1_bytes_per_core(inputs[0].type, inputs[0].placement);
      return e;
    }
    [[fallthrough]];
  case OpKind::Transpose:
  case OpKind::Permute:
    if (std::optional<TileRowMove> move = tile_row_move(kind, attrs, inputs[0], output)) {
      // Each input tile's valid rows written to their output tiles a face row at a time
      // (kTileRowWriteNs); the input tiles split over the grid.
      const int64_t cores = std::min<int64_t>(move->tiles, d.grid_usable.cores());
      const double writes = static_cast<double>(ceil_div(move->tiles, cores)) *
                            move->rows_per_tile * kFaceRowsPerTileRow;
      return eltwise(kind, attrs, inputs, output, elt,
                     fmt::format("(data movement: tile rows moved across tiles, {:.0f} face-row "
                                 "writes a core)",
                                 writes),
                     0, writes * kTileRowWriteNs * 1e-3);
    }
    [[fallthrough]];
  case OpKind::Broadcast:
  case OpKind::Concat:
  case OpKind::Slice:
  case OpKind::Typecast:
  case OpKind::Take:
    // A copy through the unpacker and packer (transposes happen inside the tile).
    return eltwise(kind, attrs, inputs, output, elt, "(data movement)");
  case OpKind::SplitHeads:
  case OpKind::ConcatenateHeads: {
    // A copy, as above. The parts of one fused Q/K/V projection are one ttnn op
    // (split_query_key_value_and_split_heads): each part reads only its share of the operand
    // and pays its share of the launch.
    int64_t parts = kind == OpKind::SplitHeads ? attrs.get_or<int64_t>("parts", 1) : 1;
    if (parts <= 1) return eltwise(kind, attrs, inputs, output, elt, "(data movement)");
    TensorUse part = inputs[0];
    std::vector<int64_t> dims = part.type.shape.dims();
    dims.back() /= parts;
    part.type.shape = Shape(std::move(dims));
    OpEstimate e = eltwise(kind, attrs, std::span<const TensorUse>(&part, 1), output, elt,
                           fmt::format("(data movement, 1 of {} parts of one launch)", parts));
    double shared = e.cost.dispatch_us * (1.0 - 1.0 / static_cast<double>(parts));
    e.us -= shared;
    e.cost.dispatch_us -= shared;
    std::string& detail = e.cost.detail;
    detail = fmt::format("{} dispatch {:.2f} us", detail.substr(0, detail.rfind(" dispatch ")),
                         e.cost.dispatch_us);
    return e;
  }
  case OpKind::AllGather:
  case OpKind::ReduceScatter:
  case OpKind::AllReduce:
    return collective_estimate(d, kind, attrs, inputs, output);
  case OpKind::MeshShard: {
    // Host data arriving on (or leaving) a chip: tt-mlir lowers mesh_shard to ttnn's
    // distribute_tensor / aggregate_tensor, which split or join host tensors, so each chip
    // receives (sends) only its shard. The model keeps host data row-major in DRAM
    // (placement.h, host_placement) and prices its arrival as to_layout does, a pass of each
    // tile through unpacker and packer; here of the shard's bytes alone.
    check_mesh_fits(d, attrs, inputs, output);
    bool to_shard = attrs.get_or<std::string>("shard_direction", "") == "full_to_shard";
    TensorUse shard{to_shard ? output.type : inputs[0].type, inputs[0].placement};
    std::array<TensorUse, 1> ins{shard};
    return eltwise(kind, attrs, ins, output, elt, "(host transfer of one chip's shard)");
  }
  case OpKind::MaxPool2d:
  case OpKind::AvgPool2d: {
    // ttnn's pool kernels gather each output pixel's window (kernel_h x kernel_w sticks of its
    // channels) into the rows of a tile, reduce the rows in the FPU and pack the one result
    // row: every output pixel takes a whole tile through the unpacker, the FPU and the packer
    // for each 32 of its channels and each 32 rows of its window, however few rows the window
    // fills. Average pools pay the fidelity passes of the scaling multiply.
    const Shape& o = output.type.shape;
    if (o.rank() != 4) break;
    std::vector<int64_t> k = attrs.get_or<std::vector<int64_t>>("kernel_size", {1, 1});
    if (k.size() != 2) break;
    const bool flat = attrs.get_or<int64_t>("batch_size", 0) > 0;
    const int64_t channels = std::max<int64_t>(flat ? o[3] : o[1], 1);
    const int64_t pixels = o.numel() / channels;
    const int64_t window_passes = ceil_div(std::max<int64_t>(k[0] * k[1], 1), int64_t{32});
    const double tile_passes =
        static_cast<double>(pixels * ceil_div(channels, int64_t{32}) * window_passes);
    const double unpack_in =
        static_cast<double>(tile_bytes(inputs[0].type.dtype)) / d.unpack_bytes_per_cycle;
    const double pass = elt * (kind == OpKind::AvgPool2d ? passes : 1) + unpack_in +
                        static_cast<double>(tile_bytes(output.type.dtype)) / d.pack_bytes_per_cycle;
    auto t_out = tiles_2d(o);
    const double out_tiles = static_cast<double>(std::max<int64_t>(t_out[0] * t_out[1], 1));
    // eltwise() adds one input tile's unpacking per output tile itself.
    double per_tile = std::max(tile_passes * pass / out_tiles - unpack_in, 0.0);
    return eltwise(kind, attrs, inputs, output, per_tile,
                   fmt::format("(a tile through unpack, reduce and pack per output pixel, 32 "
                               "channels and 32 window rows: {:.0f} passes x {:.1f} cycles)",
                               tile_passes, pass));
  }
  case OpKind::Sum:
  case OpKind::Mean:
  case OpKind::Max: {
    // Reduction: the FPU reduces 16x16 per cycle, twice the eltwise rate; sum and mean pay
    // fidelity passes, max does not. Its input tiles are the work, each an FPU pass (at least
    // kFpuPassFloorCycles, measured on exactly this pass); eltwise() adds the unpacking of one
    // of them per output tile.
    const double unpack_in =
        static_cast<double>(tile_bytes(inputs[0].type.dtype)) / d.unpack_bytes_per_cycle;
    double per_tile =
        std::max(elt / 2 * (kind == OpKind::Max ? 1 : passes) + unpack_in, kFpuPassFloorCycles);
    auto t_in = tiles_2d(inputs[0].type.shape);
    auto t_out = tiles_2d(output.type.shape);
    double ratio = static_cast<double>(t_in[0] * t_in[1]) /
                   static_cast<double>(std::max<int64_t>(t_out[0] * t_out[1], 1));
    return eltwise(kind, attrs, inputs, output, per_tile * ratio - unpack_in, "(FPU reduce)");
  }
  case OpKind::Softmax:
  case OpKind::LayerNorm:
  case OpKind::RmsNorm:
    // Over the last dim (ttnn permutes another softmax dim there first; the permute is not
    // priced here).
    if (inputs.empty()) break;
    return row_wise(kind, attrs, inputs, output);
  case OpKind::Attention: {
    // ttnn's scaled_dot_product_attention is flash attention: each core takes query tile rows
    // of one head, streams that head's keys and values through L1 once, and per key tile
    // computes a score tile (head_dim tile products), the online softmax on it (as softmax's
    // per-tile work) and its share of the output (value head_dim tile products). Cores work on
    // separate (batch, head, query tile row) units.
    const Shape &q = inputs[0].type.shape, &k = inputs[1].type.shape, &v = inputs[2].type.shape;
    if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4) break;
    auto tiles = [](int64_t n) { return ceil_div(std::max<int64_t>(n, 1), int64_t{32}); };
    const int64_t qt = tiles(q[2]), kvt = tiles(k[2]), dt = tiles(q[3]), dvt = tiles(v[3]);
    const int64_t units = q[0] * q[1] * qt;
    const int64_t cores = std::min<int64_t>(units, d.grid_usable.cores());
    const int64_t per_core = ceil_div(units, cores);
    const int64_t products = kvt * (dt + dvt);
    const int64_t tb = tile_bytes(inputs[0].type.dtype);
    const double fpu = d.fpu_matmul_cycles_per_tile[static_cast<size_t>(options_.fidelity)];
    const double unpack = 2.0 * static_cast<double>(tb) / d.unpack_bytes_per_cycle;
    const double softmax_tile = 2 * (elt / 2) * passes + elt + elt * passes +
                                sfpu * (sfpu_weight(OpKind::Exp) + sfpu_weight(OpKind::Reciprocal));
    const double cycles = static_cast<double>(per_core) *
                          (static_cast<double>(products) * matmul_product_cycles(fpu, unpack) +
                           static_cast<double>(kvt) * softmax_tile);
    double dram = 0, noc = 0, l1 = 0;
    auto u32 = static_cast<uint32_t>(cores);
    // The query, the mask and the result once; each core's head of keys and values once.
    for (const TensorUse& in : inputs.subspan(0, 1)) read_us(in, u32, &dram, &noc, &l1);
    if (inputs.size() > 3) read_us(inputs[3], u32, &dram, &noc, &l1);
    read_us(output, u32, &dram, &noc, &l1);
    TensorUse kv{TensorType{inputs[1].type.dtype, Shape{cores * kvt * 32, (dt + dvt) * 32}, {}},
                 inputs[1].placement};
    read_us(kv, u32, &dram, &noc, &l1);
    bool sharded = false;
    for (const TensorUse& in : inputs) sharded |= in.placement.memory != MemoryLayout::Interleaved;
    OpEstimate e = finish(
        d.cycles_to_us(cycles), dram, noc, l1,
        fmt::format("scaled_dot_product_attention (flash): {} query tile rows on {} cores, {} per "
                    "core x ({} tile products x ({:.0f} FPU + {:.1f} unpack) + {} softmax tiles x "
                    "{:.1f}) cycles, output {}",
                    units, cores, per_core, products, fpu, unpack, kvt, softmax_tile,
                    short_place(output.placement)),
        sharded || output.placement.memory != MemoryLayout::Interleaved, d.launch_us);
    e.cores = static_cast<uint32_t>(cores);
    e.grid = bounding_grid(cores, d.grid_usable);
    // Double-buffered tiles of every operand and the result, a row of score tiles and an
    // output accumulator row, plus the L1-resident tensors.
    e.circular_buffers = static_cast<int64_t>(inputs.size()) + 3;
    int64_t bytes = 2 * tb * (static_cast<int64_t>(inputs.size()) + 1) + (kvt + dvt) * tb;
    for (const TensorUse& in : inputs) bytes += l1_bytes_per_core(in.type, in.placement);
    bytes += l1_bytes_per_core(output.type, output.placement);
    e.l1_bytes_per_core = bytes;
    return e;
  }
  case OpKind::RotaryEmbedding: {
    // Elementwise over x, reading cos and sin beside it: x * cos plus the half-row rotated x
    // (its partner tile through the unpacker again, negated for the first half) times sin.
    double per_tile = 2 * elt * passes + 2 * elt + sfpu * sfpu_weight(OpKind::Neg);
    return eltwise(kind, attrs, inputs, output, per_tile, "(x cos + rotate_half(x) sin)");
  }
  case OpKind::Conv2d: {
    // As a matmul over the unfolded input (im2col): M = N*OH*OW output pixels,
    // K = input channels per group * KH * KW, N = output channels; M does not depend on the
    // layout (the dim attributes) of the input and result.
    const Shape& w = inputs[1].type.shape;
    const Shape& o = output.type.shape;
    if (w.rank() != 4 || o.rank() != 4 || w[0] < 1) break;
    MatmulConfig m = matmul_config(inputs, output);
    m.m = o.numel() / w[0];
    // ttnn pads the input channels (to 32 for a tiled input, to 8 for row-major sticks) and
    // gives a grouped conv the dense weights of all its input channels, zero off each group's
    // block (prepare_conv2d_weights): the inner dim is every padded input channel of the window.
    const int64_t groups = std::max<int64_t>(attrs.get_or<int64_t>("groups", 1), 1);
    const int64_t align = inputs[0].placement.layout == Layout::Tile ? 32 : 8;
    m.k = ceil_div(w[1] * groups, align) * align * w[2] * w[3];
    m.n = w[0];
    auto in_tiles = tiles_2d(inputs[0].type.shape);
    m.in0_unfold = static_cast<double>(ceil_div(m.m, int64_t{32}) * ceil_div(m.k, int64_t{32})) /
                   static_cast<double>(std::max<int64_t>(in_tiles[0] * in_tiles[1], 1));
    // On every path (1-D height or width sharded, 2-D block sharded) each core gathers and
    // tilizes its activation blocks before their products (conv_gather.h); ttnn's kernel
    // options (double buffering, packer and f32 accumulation, act_block_h) come as attrs.
    std::vector<int64_t> dilation = attrs.get_or<std::vector<int64_t>>("dilation", {1, 1});
    m.conv_gather =
        ConvGather{.kernel_h = w[2],
                   .kernel_w = w[3],
                   .channels = ceil_div(w[1] * groups, align) * align,
                   .element_bytes = inputs[0].type.dtype == DType::F32 ? 4 : 2,
                   .dilated_w = dilation.size() == 2 && dilation[1] > 1,
                   .reuse = attrs.get_or<int64_t>("act_reuse", 0) != 0,
                   .out_dtype = output.type.dtype,
                   .act_double_buffer = attrs.get_or<int64_t>("act_double_buffer", 0) != 0,
                   .weights_double_buffer = attrs.get_or<int64_t>("weights_double_buffer", 0) != 0,
                   .act_block_h_tiles = ceil_div(attrs.get_or<int64_t>("act_block_h", 0), 32)};
    m.fp32_accumulate = m.fp32_accumulate || attrs.get_or<int64_t>("fp32_accumulate", 0) != 0;
    // A block-sharded input splits its channels over its own grid's columns.
    if (inputs[0].placement.memory == MemoryLayout::BlockSharded &&
        inputs[0].placement.buffer == BufferType::L1)
      m.conv_gather->channel_slices = inputs[0].placement.grid.cols;
    // The bias add and the activation run on each output tile, as a linear's.
    m.epilogue_cycles_per_tile = epilogue_cycles(attrs, inputs.size() > 2);
    m.packer_l1_acc = attrs.get_or<int64_t>("packer_l1_acc", 1) != 0;
    fix(m);
    OpEstimate e = best_grid(m, output);
    for (const TensorUse& in : inputs)
      e.l1_bytes_per_core += l1_bytes_per_core(in.type, in.placement);
    e.l1_bytes_per_core += l1_bytes_per_core(output.type, output.placement);
    return e;
  }
  default:
    break;
  }
  if (kind == OpKind::Conv2d)
    throw Error(fmt::format("conv2d: expected 4-D weight and result for the cost model"));
  throw Error(fmt::format("the cost model has no estimate for op '{}'", op_name(kind)));
}

OpEstimate CostModel::to_layout(const TensorType& type, const Placement& from,
                                const Placement& to) const {
  OpEstimate e;
  if (from == to) {
    e.cost.dominant = "none";
    e.cost.detail = "no conversion";
    return e;
  }
  const Device& d = device_;
  TensorUse in{type, from}, out{type, to};
  // Tilizing or untilizing passes each tile through the unpacker and packer; a memory move
  // is a copy.
  double cycles = d.fpu_eltwise_cycles_per_tile;
  std::array<TensorUse, 1> ins{in};
  e = eltwise(OpKind::Typecast, {}, ins, out, cycles, "");
  if (options_.details)
    e.cost.detail =
        fmt::format(
            "to_layout {} {} -> {} {}: ", from.layout == Layout::Tile ? "tile" : "row_major",
            short_place(from), to.layout == Layout::Tile ? "tile" : "row_major", short_place(to)) +
        e.cost.detail.substr(e.cost.detail.find(':') + 2);
  return e;
}

} // namespace tilesat::cost
