// The analytic per-op cost model: predicted device time of one op in one physical variant.
//
// Every estimate is built from the device descriptor's sourced constants: tile counts (with
// the padding of unaligned shapes to 32x32 tiles), the core grid and its quantization
// (`ceil(tiles / cores)` tiles on the busiest core), FPU cycles per tile at the math fidelity,
// SFPU cycles, the unpackers' L1 read rate, DRAM and NoC bandwidth (interleaved operands cross
// the NoC, sharded ones are local), the device-side launch per op and, without trace, the host
// dispatch floor. The bounds overlap (the op takes the slowest, plus launch); the breakdown
// names the dominant one and the numbers behind it.
//
//   CostModel model(load_device("wormhole_b0"), {.fidelity = MathFidelity::HiFi2});
//   OpEstimate e = model.op(OpKind::Relu, {}, {{type, in}}, {type, out});
//   fmt::print("{} us ({})\n", e.us, e.cost.detail);
#pragma once

#include "tilesat/cost/conv_gather.h"
#include "tilesat/cost/device.h"
#include "tilesat/cost/placement.h"
#include "tilesat/cost/plan.h"
#include "tilesat/graph/attribute.h"
#include "tilesat/graph/op.h"
#include "tilesat/graph/tensor.h"

#include <memory>
#include <optional>
#include <span>
#include <utility>

namespace tilesat::cost {

/// A tensor as an op sees it: its type and where it is.
struct TensorUse {
  TensorType type;
  Placement placement;
};

/// How a matmul's operands reach the cores: a 2-D multicast (each row of cores receives its
/// rows of in0 from one sender, each column its columns of in1); a 1-D multicast of all of in0
/// from one sender to every core, each core computing a slice of the columns; or the same with
/// in1, each core computing a slice of the rows.
enum class MatmulMcast : uint8_t { Block2D, In0Row1D, In1Col1D };

/// A matmul as measured in benchmarks: shapes, tile sizes and where operands live.
struct MatmulConfig {
  int64_t m = 0, k = 0, n = 0;
  /// Bytes of one 32x32 tile of each operand (bf16 2048, bfp8_b 1088, bfp4_b 576, f32 4096).
  int64_t in0_tile_bytes = 2048, in1_tile_bytes = 2048, out_tile_bytes = 2048;
  bool in0_l1 = false, in1_l1 = false, out_l1 = false;
  /// Operands sharded over the cores (no NoC traffic for them).
  bool in0_sharded = false, out_sharded = false;
  CoreGrid grid;
  MathFidelity fidelity = MathFidelity::HiFi4;
  /// Accumulate in f32 in DST (halves the DST tiles available).
  bool fp32_accumulate = false;
  /// Cycles spent on each output tile before it is packed (a linear's bias add and
  /// activation); 0 for a plain matmul.
  double epilogue_cycles_per_tile = 0;
  MatmulMcast mcast = MatmulMcast::Block2D;
  /// Tiles of K per inner block; 0: the widest of at most 8 that divides Kt and fits L1.
  int64_t in0_block_w = 0;
  /// The packer accumulates partial sums in L1; without it every inner block after the first
  /// reloads the partial output block into DST and packs it again.
  bool packer_l1_acc = true;
  /// A conv2d's in0 is its input unfolded (im2col): each input tile is in it about this many
  /// times (the window's positions, its channels padded to whole tiles). ttnn builds the
  /// unfolded blocks in L1 from the input read once, so the input's DRAM reads are the
  /// unfolded matrix's bytes divided by this; 1 for a matmul.
  double in0_unfold = 1;
  /// A conv2d: on the 1-D path that multicasts in1 (ttnn's height-sharded conv) each core
  /// gathers and tilizes its activation block, into the result's data format, and fetches the
  /// weight block before the products of every inner block, which is one kernel row; on the
  /// path that multicasts in0 (width sharded) each core gathers and tilizes its channel slice
  /// once and the cores multicast their slices in turn; on a 2-D grid (block sharded) each
  /// core gathers one kernel row of its column's channels, and the cores of a grid row
  /// multicast their tilized slices in turn while the weights come down each column. A
  /// timeline over the blocks decides what overlaps the products (conv_gather.h).
  std::optional<ConvGather> conv_gather;
  /// A blocking chosen elsewhere (Z3, matmul_z3.h) to estimate as it is, on `grid`; unset:
  /// the model picks the blocking itself.
  std::optional<MatmulBlocking> blocking;
};

/// Bytes a matmul reads and writes in DRAM: its operands and result not in L1, whole tiles.
double matmul_dram_bytes(const MatmulConfig& m);
/// Bytes of a tile of a matmul's partial sums between inner blocks, in ttnn's intermediate
/// format: with packer accumulation in L1, f32 when accumulating in f32 and bf16 otherwise;
/// without it, a matmul's f32 when accumulating in f32 and else the result's format
/// (`interm0_data_format` in ttnn's matmul program factories), a conv's the result's format
/// (`interm0_df` in its sharded program factory).
///
///   MatmulConfig c;                      // packer_l1_acc: bf16 partials, 2048 bytes
///   c.fp32_accumulate = true;            // f32 partials: matmul_partial_tile_bytes(c) == 4096
int64_t matmul_partial_tile_bytes(const MatmulConfig& m);
/// Link passes a matmul's inner-block fetch makes over the NoC per byte: a sender reads its
/// block from interleaved DRAM banks a tile at a time and then multicasts it, with a barrier
/// per block, so a block moves at a quarter of the link's bytes per cycle. Fitted once on both
/// devices' out-of-box development rows (GEMM_FLOPS.md n150 and p150; cost/README.md).
inline constexpr double kBlockFetchLinkPasses = 4;
/// Bytes the unpackers move per tile product of an h x w sub-block. tt-llk's matmul unpack
/// (llk_unpack_AB_matmul) holds one operand's tile across the longer side of the sub-block and
/// unpacks the other operand's tile for every product: with w >= h an in0 tile per sub-block
/// row and an in1 tile per product, else an in1 tile per column and an in0 tile per product.
///
///   matmul_unpack_bytes_per_product(bf16, 2, 4);   // 2048 + 2048 / 4 = 2560
///   matmul_unpack_bytes_per_product(bf16, 1, 8);   // 2048 + 2048 / 8 = 2304
double matmul_unpack_bytes_per_product(const MatmulConfig& m, int64_t h, int64_t w);
/// How much of the shorter of a tile product's FPU and unpack times is not hidden behind the
/// longer: the unpack and math threads run concurrently, and a product takes the slower of the
/// two plus this fraction of the faster. Fitted on the n150's five traced 3072x3072x3072 tuned
/// rows (bf16 HiFi2/HiFi4, bfp8 HiFi2/LoFi, bfp4 LoFi in tech_reports/GEMM_FLOPS/GEMM_FLOPS.md,
/// at the 1x6 sub-blocks of their sharded outputs): 0.45-0.61 each, with the unpacker at its 64
/// bytes per cycle.
inline constexpr double kMatmulUnpackOverlap = 0.5;
/// Shares of the DRAM bandwidth at which the cores of a 1-D multicast matmul read their own
/// operand from DRAM and then write their result to DRAM, one phase after the other. ttnn's
/// 1-D reader waits on each inner block's reads and its writer on each output sub-block's
/// writes (reader_bmm_tile_layout_in1_sender_writer_padding.cpp), so each core has one block
/// or one sub-block in flight and the phases do not overlap. Fitted on the Blackhole P100's
/// tall DRAM linears (bench/cost/op_measured.csv, DeepLabV3; cost/README.md); they bind on
/// none of the GEMM_FLOPS development rows.
inline constexpr double kMatmul1DReadShare = 0.6;
inline constexpr double kMatmul1DWriteShare = 0.34;
/// Cycles each output sub-block costs, beyond its bytes, when a matmul reloads f32 partial
/// sums (no packer accumulation in L1): ttnn unpacks an f32 partials buffer straight into DEST
/// (`UnpackToDestFp32`), so every reload reconfigures the unpacker for the partials
/// (`copy_tile_to_dst_init_short_with_dt`) and then back for the product
/// (`mm_block_init_short_with_dt`; bmm_large_block_zm_fused_bias_activation.cpp), waiting for
/// the unpacker to drain each time. Fitted on the Blackhole P100's two 2-D DRAM linears of
/// DeepLabV3 (bench/cost/op_measured.csv, bfp8_b operands, f32 accumulation; cost/README.md);
/// no GEMM_FLOPS development row accumulates in f32, so Wormhole takes it by assumption.
inline constexpr double kF32ReloadSubblockCycles = 115;
/// Cycles of one tile product whose FPU takes `fpu` cycles and whose operands take `unpack`
/// cycles through the unpackers (kMatmulUnpackOverlap).
///
///   matmul_product_cycles(32, 40);   // 40 + 0.5 * 32 = 56: bf16 HiFi2 at a 2x4 sub-block
inline double matmul_product_cycles(double fpu, double unpack) {
  return std::max(fpu, unpack) + kMatmulUnpackOverlap * std::min(fpu, unpack);
}
/// The fixed device time of a streaming op (eltwise, reduction, normalization, data movement,
/// layout conversion) beside its bounds: the gap after the previous op and the shortest kernel.
/// A matmul's fixed time is the descriptor's launch_us instead: it also fills its multicast
/// pipeline before its first block.
///
///   stream_launch_us(load_device("wormhole_b0"));   // 0.9 + 1.8 = 2.7 us
inline double stream_launch_us(const Device& d) {
  return d.op_gap_us + d.kernel_floor_us;
}
/// Microseconds a matmul's core waits for one inner block of `block_bytes` fetched from DRAM
/// and multicast: the descriptor's per-block latency plus the bytes at the fetch rate.
double matmul_block_fetch_us(const Device& d, double block_bytes);
/// Bytes of a matmul's circular buffers on one core: in0 and in1 blocks of `in0_block_w` tiles
/// of K, double-buffered, and the out_h x out_w output block (the per-core block, or a
/// streamed part of it).
int64_t matmul_cb_bytes(const MatmulConfig& m, int64_t out_h, int64_t out_w, int64_t in0_block_w);

/// The model's account of one op.
struct OpEstimate {
  double us = 0;
  CostBreakdown cost;
  CoreGrid grid;
  uint32_t cores = 1;
  /// Circular buffers plus the op's L1-resident operands and result, on the busiest core.
  int64_t l1_bytes_per_core = 0;
  /// Circular buffers the op's kernel allocates.
  int64_t circular_buffers = 0;
  std::optional<MatmulBlocking> blocking;
  /// Matmul-like ops: the configuration estimated (grid included), for re-blocking.
  std::optional<MatmulConfig> matmul;
};

struct CostOptions {
  MathFidelity fidelity = MathFidelity::HiFi4;
  /// Ops replayed from a captured trace (no host dispatch per op); off adds the host floor.
  bool trace = true;
  /// The physical variants values may take (placement.h); null: the shipped `layout-choice`
  /// rule set.
  std::shared_ptr<const LayoutChoice> layouts = nullptr;
  /// Arguments are already device tensors (tile layout, DRAM interleaved: a TTNN program's
  /// inputs) rather than host data handed over row-major.
  bool arguments_on_device = false;
  /// Const-eval: work that depends only on weight arguments (ArgRole::Weight) and constants
  /// (tilizing, transposes, folded subgraphs) runs once when the program loads; extraction
  /// minimises the per-inference time. Off: weights are inputs like any other.
  bool const_eval = true;
  /// A reshape that keeps its operand's bytes where they are (last dim, tile rows and
  /// placement kept) is a view with no kernel, as ttnn runs it. Off: every reshape is a copy
  /// (extract_plan's second start, extract.h).
  bool reshape_views = true;
  /// Each estimate's account in words (CostBreakdown::detail). Off, the detail is left empty
  /// and only the figures are computed: extraction prices millions of candidate
  /// configurations and reads none of their accounts.
  bool details = true;
  /// A matmul or linear whose operands and result are interleaved is priced as ttnn runs it
  /// without a program config (its own grid, multicast and blocking: ttnn_matmul_default.h),
  /// not on the grid and blocking the model would choose. For measurements of ops that ran
  /// so (op_accuracy's `config=default` rows); plans always state their configs.
  bool ttnn_default_matmul = false;
};

class CostModel {
public:
  explicit CostModel(Device device, CostOptions options = {});

  const Device& device() const { return device_; }
  const CostOptions& options() const { return options_; }
  const LayoutChoice& layouts() const { return *options_.layouts; }

  /// The cost of `kind` reading `inputs` and writing `output`; throws tilesat::Error for an op
  /// kind with no device kernel (arguments, constants: they are not device ops).
  OpEstimate op(OpKind kind, const Attrs& attrs, std::span<const TensorUse> inputs,
                const TensorUse& output) const;
  /// The same for a matmul-like op (matmul, linear, conv2d) computed on `grid` with `blocking`
  /// as given (what Z3 chose), so its time and account describe that blocking.
  OpEstimate op_blocked(OpKind kind, const Attrs& attrs, std::span<const TensorUse> inputs,
                        const TensorUse& output, CoreGrid grid,
                        const MatmulBlocking& blocking) const;
  /// A matmul with explicit configuration (what the accuracy benchmark measures).
  OpEstimate matmul(const MatmulConfig& config) const;
  /// Converting a value of `type` from `from` to `to` (layout, buffer, memory layout).
  OpEstimate to_layout(const TensorType& type, const Placement& from, const Placement& to) const;

  /// Bytes of one tile of `dtype` (bfp8_b: 1024 mantissas plus 64 shared exponents).
  static int64_t tile_bytes(DType dtype);
  /// Tiles of a tensor seen as 2-D (leading dims folded into rows), padded to 32x32.
  static std::array<int64_t, 2> tiles_2d(const Shape& shape);
  /// Bytes a tensor occupies in `layout` (tile layout pads to whole tiles).
  static int64_t tensor_bytes(const TensorType& type, Layout layout);
  /// Bytes per core a tensor placed so occupies in L1 (0 in DRAM): its shard, or its share of
  /// the interleaved pages over the usable grid.
  int64_t l1_bytes_per_core(const TensorType& type, const Placement& p) const;

private:
  /// An estimate from its bounds; `launch_us` is the op's fixed device time beside them
  /// (Device::launch_us for matmul-class ops, stream_launch_us() for the rest).
  OpEstimate finish(double compute_us, double dram_us, double noc_us, double l1_us,
                    std::string detail, bool sharded_operands, double launch_us) const;
  /// A tile-by-tile op: `cycles_per_tile` beside its operands' unpacking; an FPU pass of
  /// `fpu_phases` fidelity phases (1 for an add, the fidelity's for a multiply; 0 for no FPU
  /// pass) takes at least kFpuPhaseFloorCycles a phase a tile.
  /// `noc_writes_us` is the busiest core's time writing its results in pieces smaller than a
  /// tile (a transpose that moves tile rows), beside its reads.
  OpEstimate eltwise(OpKind kind, const Attrs& attrs, std::span<const TensorUse> inputs,
                     const TensorUse& output, double cycles_per_tile, std::string what,
                     double fpu_phases = 0, double noc_writes_us = 0) const;
  /// layer_norm, rms_norm and softmax over the last dim: whole rows per core, or the rows of
  /// each shard, through ttnn's row kernel (row_kernel.h).
  OpEstimate row_wise(OpKind kind, const Attrs& attrs, std::span<const TensorUse> inputs,
                      const TensorUse& output) const;
  /// The grid a tile-by-tile op spreads `output`'s tiles over (its shard grid when sharded in
  /// L1, else the usable grid), the busy cores on it, and their smallest enclosing rectangle.
  struct Spread {
    CoreGrid grid;
    int64_t cores = 0;
    CoreGrid busy;
  };
  Spread spread(const TensorUse& output) const;
  double read_us(const TensorUse& t, uint32_t cores, double* dram, double* noc, double* l1) const;
  /// A matmul-like op's configuration from its operands' and result's types and placements
  /// (shapes left to the caller).
  MatmulConfig matmul_config(std::span<const TensorUse> inputs, const TensorUse& output) const;
  /// Cycles per output tile of a fused bias add and `activation` attribute.
  double epilogue_cycles(const Attrs& attrs, bool bias) const;
  /// `m` on the result's shard grid, or on the best sub-grid of the usable grid (on
  /// `m.grid` as it is when `m.blocking` is set).
  OpEstimate best_grid(MatmulConfig m, const TensorUse& output) const;
  /// op() and op_blocked(): `fixed` is the grid and blocking to estimate, or null.
  OpEstimate op_impl(OpKind kind, const Attrs& attrs, std::span<const TensorUse> inputs,
                     const TensorUse& output,
                     const std::pair<CoreGrid, MatmulBlocking>* fixed) const;

  Device device_;
  CostOptions options_;
};

/// SFPU passes over a tile (each the descriptor's sfpu_cycles_per_tile) of one transcendental
/// function (exp, sqrt, rsqrt, reciprocal, ...). Measured per-tile math-thread times: Wormhole
/// exp 718 and sqrt 957 cycles (tt-metal ttnn/ttnn/operations/examples/compute_fusion/
/// microbench_report.md, 32 tiles on one core at 1 GHz), Blackhole rsqrt 1010 and reciprocal
/// 1200 cycles (examples/sfpu_tile_scope/report.md, 748 and 890 ns at 1.35 GHz): 22 to 38
/// passes of 32 cycles, median 31. The same count on both architectures (their SFPUs issue
/// one 32-lane instruction per cycle).
inline constexpr double kTranscendentalSfpuPasses = 31;

/// Cycles of the cheapest FPU pass over a tile in a ttnn compute kernel: each tile of a pass
/// waits on the unpacker-to-math handshake, so a pass takes at least this per tile whatever its
/// ideal unpack and FPU cycles. Measured: a sum reduce of one row of bf16 tiles from L1 (HiFi4,
/// the simplest FPU pass, its one result packed once) adds 156 ns per tile on Wormhole at
/// 1 GHz (tenstorrent/tt-metal ttnn/ttnn/operations/examples/compute_fusion/report.md,
/// reduce_recip fused: 2554.5, 4428.7 and 11913.9 ns for 4, 16 and 64 tiles; 156.2 and 155.9 ns
/// per tile between them); the ideal is 48 (unpack 32, FPU 16). Blackhole is assumed to take
/// the same cycles (no measurement found).
inline constexpr double kFpuPassFloorCycles = 156;

/// The floor of one fidelity phase of an FPU pass over a tile: kFpuPassFloorCycles was measured
/// on HiFi4 passes (a reduce, and a multiply in the same report), four phases each; an add or a
/// subtract makes one phase at any fidelity, a multiply as many as its fidelity. Checked on two
/// L1 height-sharded bfp8_b adds on a Blackhole P100 (tenstorrent/tt-perf-report DeepLabV3
/// report, bench/cost/op_measured.csv): 32 and 48 tiles a core in 1.63 and 2.15 us, about 44
/// cycles a tile between them.
inline constexpr double kFpuPhaseFloorCycles = kFpuPassFloorCycles / 4;

/// Nanoseconds per face-row write of a transpose that moves tile rows across tiles (HC on
/// `[N, C, H, W]`, or any transpose or permute that keeps the last dim but moves the one before
/// it). ttnn runs it with no compute kernel: the writer of
/// `writer_unary_transpose_hc_interleaved_tiled_padding_aware.cpp` writes each valid row of an
/// input tile to its output tile as two 16-element face rows, one NoC write each, and waits on
/// them once per tile. Fitted once on both architectures' four HC transposes of
/// tenstorrent/tt-perf-report's CLIP encoder reports (bench/cost/op_measured.csv: 24 and 38
/// writes a core on Blackhole, 40 and 38 on Wormhole, one input tile a core), where the writes
/// beyond the model's stream launch take 66, 69, 73 and 74 ns each; 70 prices all four within 4%.
inline constexpr double kTileRowWriteNs = 70;

/// SFPU passes over a tile of ttnn's default GELU, a six-piece lookup table: five instructions
/// per element row (load, x * 0.5, SFPLUTFP32, add, store; tenstorrent/tt-llk
/// tt_llk_wormhole_b0/common/inc/sfpu/ckernel_sfpu_gelu.h, the same on Blackhole), counted
/// from the kernel, not measured.
inline constexpr double kLutGeluSfpuPasses = 5;

/// SFPU cycles per tile of one unary op relative to the simplest (relu = 1): transcendental
/// functions run a polynomial or iteration of many SFPU instructions
/// (kTranscendentalSfpuPasses each).
double sfpu_weight(OpKind kind);

} // namespace tilesat::cost
