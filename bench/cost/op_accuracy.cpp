// op_accuracy [--detail] FILE.csv: the per-op cost model (CostModel::op) against published
// device times of ops other than matmul.
//
// Columns (by header name): op (an op name such as relu, add, softmax, layer_norm, conv2d,
// max_pool2d, avg_pool2d, or copy: a tile-to-tile copy, priced as a typecast to the same dtype),
// device (a shipped descriptor's name, or a descriptor file's path from the CSV's directory), shape
// ("2048x2048": every operand's and the result's; for conv2d and the pools the input image as
// NxHxWxC, which the op reads flattened as ttnn keeps activations, [1, 1, N*H*W, C]), dtype (bf16,
// bfp8_b, f32), layout (tile, row_major), memory (dram or l1, interleaved; or height_sharded,
// width_sharded, block_sharded: L1 sharded on the grid tilesat would choose for that sharding of
// the tensor), cores (the cores the measured kernel ran on, 0 when the source does not say; printed
// beside the model's own choice, not an input), metric ("kernel": tt-metal's DEVICE KERNEL
// DURATION, which excludes the gap between ops, so it is compared with the model's time less the
// descriptor's op_gap_us; "op": a traced op's whole time, compared with the model's time),
// measured_us, kind ("measured" or "perf_target"), attrs (space-separated key=value; empty for most
// ops), source.
//
// attrs: `fidelity=LoFi|HiFi2|HiFi3|HiFi4` for any op (default HiFi4); for conv2d and the pools
// `kernel=KHxKW` and optional `stride=SHxSW`, `padding=PHxPW` (each side); for conv2d
// `out_channels=N`, optional `groups=G`, `weights=DTYPE` (the weight and bias dtype, default
// the row's dtype), `bias=0` (ttnn's benchmarks pass a bias: the default), `act_reuse=1`
// (the run enabled ttnn's activation reuse, conv_gather.h), `activation=OP` (fused) and, when
// the source states the conv's parallel config, `grid=RxC` (height sharded: the image's and
// the result's grid, shards filled in row-major order; block sharded: the result's grid); for
// avg_pool2d `count_include_pad=0` (padding counted by default, as the pool benchmark runs
// them); for any op `out=DTYPE` (the result's dtype, default the row's dtype); for transpose
// `dims=AxB` (the two dims swapped; the shape is the operand's). linear rows: shape MxKxN,
// `weights=DTYPE`, `bias=0`, `activation=OP` (fused, as ttnn's fused_activation), the compute
// kernel config's `fp32_accumulate=1` and `packer_l1_acc=0|1` when the source states them, and
// the source's program config when it states one: `grid=RxC in0_block_w=W subblock=HxW
// per_core=MxN` (ttnn's 2-D multicast, block sharded; tiles), or `config=default` for a linear
// that ran without one on interleaved operands (priced as ttnn's default selection runs it,
// ttnn_matmul_default.h; otherwise the model chooses the grid and blocking).
//
// Prints every row's prediction, error and bound (the largest of the model's compute, DRAM, NoC
// and L1 times; "launch" when the launch outweighs them all), then
//   median_ape=X p90_ape=Y kendall_tau=Z rows=N
// per op, per device, per bound and over all rows. With --detail, each row is followed by the
// model's account of its estimate (the parts it added and the bound).
//   op_accuracy [--detail] bench/cost/op_measured.csv
#include "csv_fields.h"
#include "measured_csv.h"
#include "stats.h"
#include "tilesat/cost/conv_gather.h"
#include "tilesat/cost/device.h"
#include "tilesat/cost/op_cost.h"
#include "tilesat/cost/placement.h"
#include "tilesat/graph/builder.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/dtype.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

namespace {
using namespace tilesat;
using namespace tilesat::cost;

struct Row {
  std::string op, device, shape_text, dtype_text, layout, memory, metric, kind;
  OpKind kind_of_op = OpKind::Relu;
  Attrs attrs;
  std::vector<TensorUse> inputs;
  TensorUse output;
  MathFidelity fidelity = MathFidelity::HiFi4;
  /// A linear row's program config (grid and blocking), when the source states it.
  std::optional<std::pair<CoreGrid, MatmulBlocking>> program;
  /// A linear row that ran with ttnn's default program config (CostOptions::ttnn_default_matmul).
  bool ttnn_default = false;
  int64_t cores = 0;
  double measured_us = 0;
  const Device* descriptor = nullptr;
};

bool binary(OpKind k) {
  switch (k) {
  case OpKind::Add:
  case OpKind::AddRelu:
  case OpKind::Subtract:
  case OpKind::Multiply:
  case OpKind::Divide:
  case OpKind::Maximum:
  case OpKind::Minimum:
  case OpKind::Equal:
  case OpKind::Less:
  case OpKind::Greater:
    return true;
  default:
    return false;
  }
}

bool windowed(OpKind k) {
  return k == OpKind::Conv2d || k == OpKind::MaxPool2d || k == OpKind::AvgPool2d;
}

// The op kind a row names and its operand count; nullopt for ops whose result is not shaped
// like their operands (the benchmark builds every operand and the result from one shape),
// except conv2d and the pools, whose result the row's attrs decide.
std::optional<std::pair<OpKind, int>> row_op(const std::string& name) {
  if (name == "copy") return std::pair{OpKind::Typecast, 1};
  std::optional<OpKind> k = op_by_name(name);
  if (!k) return std::nullopt;
  if (binary(*k)) return std::pair{*k, 2};
  if (windowed(*k)) return std::pair{*k, 1};
  if (*k == OpKind::Linear) return std::pair{*k, 3};
  if (*k == OpKind::Transpose) return std::pair{*k, 1};
  if (*k == OpKind::Softmax || *k == OpKind::LayerNorm || *k == OpKind::RmsNorm ||
      *k == OpKind::Typecast ||
      (sfpu_weight(*k) > 0 && *k != OpKind::Where && *k != OpKind::Full && *k != OpKind::Pow))
    return std::pair{*k, 1};
  return std::nullopt;
}

// The `attrs` column as key -> value; an error names the column for a token without '=' or a
// key given twice.
std::map<std::string, std::string> attr_map(const bench::MeasuredCsv& csv) {
  std::map<std::string, std::string> out;
  std::istringstream in(csv.get("attrs"));
  std::string token;
  while (in >> token) {
    size_t eq = token.find('=');
    if (eq == 0 || eq == std::string::npos || eq + 1 == token.size())
      throw csv.bad("attrs", fmt::format("expected key=value, got '{}'", token));
    if (!out.emplace(token.substr(0, eq), token.substr(eq + 1)).second)
      throw csv.bad("attrs", fmt::format("'{}' given twice", token.substr(0, eq)));
  }
  return out;
}

// Reads the row's attrs the op understands, removing each from `a`; what is left is an error.
class RowAttrs {
public:
  explicit RowAttrs(const bench::MeasuredCsv& csv) : csv_(csv), a_(attr_map(csv)) {}
  std::optional<std::string> take(const std::string& key) {
    auto it = a_.find(key);
    if (it == a_.end()) return std::nullopt;
    std::string v = it->second;
    a_.erase(it);
    return v;
  }
  // "AxB" as {A, B} (each positive, or non-negative with `zero_ok`), or `fallback`.
  std::vector<int64_t> pair(const std::string& key, std::vector<int64_t> fallback,
                            bool zero_ok = false) {
    std::optional<std::string> v = take(key);
    if (!v) return fallback;
    std::optional<std::vector<int64_t>> d = parse_pair(*v);
    if (!d || (!zero_ok && ((*d)[0] == 0 || (*d)[1] == 0)))
      throw csv_.bad("attrs", fmt::format("{}: expected AxB{}, got '{}'", key,
                                          zero_ok ? " (non-negative)" : " (positive)", *v));
    return *d;
  }
  int64_t positive(const std::string& key, std::optional<int64_t> fallback) {
    std::optional<std::string> v = take(key);
    if (!v) {
      if (fallback) return *fallback;
      throw csv_.bad("attrs", fmt::format("expected {}=N", key));
    }
    std::optional<int64_t> x = bench::parse_positive(*v);
    if (!x)
      throw csv_.bad("attrs", fmt::format("{}: expected a positive integer, got '{}'", key, *v));
    return *x;
  }
  // `key=0` or `key=1`, or `fallback`.
  bool flag(const std::string& key, bool fallback) { return optional_flag(key).value_or(fallback); }
  /// `key=0|1`, or nullopt when the row does not state it.
  std::optional<bool> optional_flag(const std::string& key) {
    std::optional<std::string> v = take(key);
    if (!v) return std::nullopt;
    if (*v != "0" && *v != "1")
      throw csv_.bad("attrs", fmt::format("{}: expected 0 or 1, got '{}'", key, *v));
    return *v == "1";
  }
  DType dtype(const std::string& key, DType fallback) {
    std::optional<std::string> v = take(key);
    if (!v) return fallback;
    std::optional<DType> d = parse_dtype(*v);
    if (!d)
      throw csv_.bad("attrs",
                     fmt::format("{}: expected bf16, bfp8_b, f32 or i32, got '{}'", key, *v));
    return *d;
  }
  MathFidelity fidelity() {
    std::optional<std::string> v = take("fidelity");
    if (!v) return MathFidelity::HiFi4;
    try {
      return parse_fidelity(*v);
    } catch (const Error& e) {
      throw csv_.bad("attrs", e.diagnostic().message);
    }
  }
  // An error naming the first attr the op did not read.
  void finish(const std::string& op) const {
    if (!a_.empty())
      throw csv_.bad("attrs",
                     fmt::format("'{}' is not an attr of a {} row", a_.begin()->first, op));
  }

private:
  static std::optional<std::vector<int64_t>> parse_pair(const std::string& s) {
    size_t x = s.find('x');
    if (x == std::string::npos) return std::nullopt;
    int64_t a = 0, b = 0;
    auto [pa, ea] = std::from_chars(s.data(), s.data() + x, a);
    auto [pb, eb] = std::from_chars(s.data() + x + 1, s.data() + s.size(), b);
    if (ea != std::errc() || eb != std::errc() || pa != s.data() + x || pb != s.data() + s.size() ||
        a < 0 || b < 0)
      return std::nullopt;
    return std::vector<int64_t>{a, b};
  }
  const bench::MeasuredCsv& csv_;
  std::map<std::string, std::string> a_;
};

// A row's `layout`: tile or row_major.
Layout layout_of(const std::string& layout) {
  return layout == "tile" ? Layout::Tile : Layout::RowMajor;
}

// The placement a row's `memory` names for `type`: interleaved in DRAM or L1, or L1 sharded on
// the first grid tilesat's layout choice offers for that sharding (placement.h).
Placement row_placement(const bench::MeasuredCsv& csv, const std::string& memory,
                        const std::string& layout, const TensorType& type, const Device& d) {
  Layout l = layout_of(layout);
  if (memory == "dram" || memory == "l1")
    return Placement{l,
                     memory == "dram" ? BufferType::DRAM : BufferType::L1,
                     MemoryLayout::Interleaved,
                     {},
                     {0, 0}};
  MemoryLayout want = memory == "height_sharded"  ? MemoryLayout::HeightSharded
                      : memory == "width_sharded" ? MemoryLayout::WidthSharded
                                                  : MemoryLayout::BlockSharded;
  for (const LayoutVariant& v : layout_variants(type, d, *LayoutChoice::shipped()))
    if (v.placement.memory == want && v.placement.buffer == BufferType::L1 &&
        v.placement.layout == l)
      return v.placement;
  throw csv.bad("memory", fmt::format("tilesat offers no {} placement of {} on {}", memory,
                                      type.shape.str(), d.name));
}

// A row's `grid=RxC`, checked against the device's usable grid.
CoreGrid row_grid(const bench::MeasuredCsv& csv, const std::vector<int64_t>& grid,
                  const Device& d) {
  CoreGrid g{static_cast<uint32_t>(grid[0]), static_cast<uint32_t>(grid[1])};
  if (g.rows > d.grid_usable.rows || g.cols > d.grid_usable.cols)
    throw csv.bad("attrs", fmt::format("grid {}x{} is larger than {}'s {}x{}", g.rows, g.cols,
                                       d.name, d.grid_usable.rows, d.grid_usable.cols));
  return g;
}

// `type` (seen as 2-D) block sharded in L1 tiles over `grid`, each shard whole tiles (the
// last row and column of shards padded, as ttnn pads 640 channels to 672 over 7 columns).
Placement block_sharded_on(const TensorType& type, CoreGrid grid) {
  auto tiles = CostModel::tiles_2d(type.shape);
  auto shard = [](int64_t t, uint32_t cores) { return (t + cores - 1) / cores * 32; };
  return Placement{Layout::Tile,
                   BufferType::L1,
                   MemoryLayout::BlockSharded,
                   grid,
                   {shard(tiles[0], grid.rows), shard(tiles[1], grid.cols)}};
}

// `type` (seen as 2-D) height sharded in L1 over `grid`'s cores in row-major order, each shard
// whole tile rows of the full width (the last shard padded), as ttnn's conv parallel config
// does.
Placement height_sharded_on(const TensorType& type, CoreGrid grid, Layout layout) {
  auto tiles = CostModel::tiles_2d(type.shape);
  return Placement{layout,
                   BufferType::L1,
                   MemoryLayout::HeightSharded,
                   grid,
                   {(tiles[0] + grid.cores() - 1) / grid.cores() * 32, tiles[1] * 32}};
}

// The grid ttnn gives a block-sharded conv (tenstorrent/tt-metal ttnn/cpp/ttnn/operations/conv/
// conv2d/conv2d_utils.cpp, determine_parallel_config, row-major shards): the grid's rows split
// the output pixels' tile rows and its columns the input channels' tiles.
CoreGrid ttnn_conv_block_grid(int64_t out_pixels, int64_t in_channels, const Device& d) {
  return CoreGrid{
      static_cast<uint32_t>(conv_split_with_padding((out_pixels + 31) / 32, d.grid_usable.rows)),
      static_cast<uint32_t>(conv_split_with_padding((in_channels + 31) / 32, d.grid_usable.cols))};
}

// A row's `activation=OP` (a unary op fused into a linear or a conv, as ttnn's fused
// activation), set as the node's attr.
void read_activation(const bench::MeasuredCsv& csv, Row& r, RowAttrs& a) {
  if (std::optional<std::string> act = a.take("activation")) {
    std::optional<OpKind> kind = op_by_name(*act);
    if (!kind || sfpu_weight(*kind) <= 0)
      throw csv.bad("attrs", fmt::format("activation: expected a unary op, got '{}'", *act));
    r.attrs.set("activation", *act);
  }
}

// conv2d and the pools: the graph module builds the op on the flattened NHWC image (its shape
// rules decide the result), and the row's memory places the image and the result.
void read_windowed(const bench::MeasuredCsv& csv, Row& r, const std::vector<int64_t>& nhwc,
                   DType dtype, RowAttrs& a) {
  if (nhwc.size() != 4) throw csv.bad("shape", "expected the input image as NxHxWxC");
  const int64_t n = nhwc[0], h = nhwc[1], w = nhwc[2], c = nhwc[3];
  std::vector<int64_t> kernel = a.pair("kernel", {});
  if (kernel.empty()) throw csv.bad("attrs", "expected kernel=KHxKW");
  std::vector<int64_t> stride = a.pair("stride", {1, 1});
  std::vector<int64_t> pad = a.pair("padding", {0, 0}, true);
  std::vector<int64_t> padding{pad[0], pad[1], pad[0], pad[1]};
  DType out_dtype = a.dtype("out", dtype);
  Graph g;
  Builder b(g);
  FlatImage flat{n, h, w};
  Value x = b.input("x", Shape{1, 1, n * h * w, c}, dtype);
  DType weights = dtype;
  // ttnn's conv options of the measured run, read by the cost model as the node's attrs.
  std::vector<std::pair<std::string, int64_t>> options;
  std::vector<int64_t> grid;
  Value y;
  try {
    if (r.kind_of_op == OpKind::Conv2d) {
      int64_t out_channels = a.positive("out_channels", std::nullopt);
      int64_t groups = a.positive("groups", 1);
      weights = a.dtype("weights", dtype);
      bool bias = a.take("bias").value_or("1") != "0";
      for (const char* key :
           {"act_reuse", "act_double_buffer", "weights_double_buffer", "fp32_accumulate"})
        if (a.flag(key, false)) options.emplace_back(key, 1);
      if (!a.flag("packer_l1_acc", true)) options.emplace_back("packer_l1_acc", 0);
      if (int64_t rows = a.positive("act_block_h", 0); rows > 0)
        options.emplace_back("act_block_h", rows);
      grid = a.pair("grid", {});
      if (c % groups || out_channels % groups)
        throw csv.bad("attrs", "groups must divide the input and output channels");
      Value wt = b.weight("w", Shape{out_channels, c / groups, kernel[0], kernel[1]}, dtype);
      Conv2dOptions o{.stride = stride, .padding = padding, .groups = groups};
      o.dims = ConvDims{};
      o.flat = flat;
      y = bias ? b.conv2d(x, wt, b.weight("b", Shape{out_channels}, dtype), o) : b.conv2d(x, wt, o);
    } else {
      Pool2dOptions o{.stride = stride, .padding = padding};
      o.flat = flat;
      if (r.kind_of_op == OpKind::AvgPool2d)
        o.count_include_pad = a.take("count_include_pad").value_or("1") != "0";
      y = r.kind_of_op == OpKind::MaxPool2d ? b.max_pool2d(x, kernel, o)
                                            : b.avg_pool2d(x, kernel, o);
    }
  } catch (const Error& e) {
    if (e.diagnostic().loc.file == csv.path()) throw;
    throw csv.at_row(e.diagnostic().message);
  }
  const Node& op = g.node(y.id);
  r.attrs = op.attrs;
  for (const auto& [key, value] : options) r.attrs.set(key, value);
  if (r.kind_of_op == OpKind::Conv2d) read_activation(csv, r, a);
  const Device& d = *r.descriptor;
  TensorType out{out_dtype, op.type.shape, {}};
  // A block-sharded conv's image is on the grid ttnn picks for it, its result on the row's
  // grid when the row names one (ttnn's override of the output grid), else on the image's; a
  // height-sharded conv's image and result are on the row's grid when it names one (the
  // parallel config the source states); other memories place the image and the result as
  // tilesat would.
  auto place = [&](const TensorType& t, bool result) {
    if (r.kind_of_op == OpKind::Conv2d && r.memory == "height_sharded" && !grid.empty())
      return height_sharded_on(t, row_grid(csv, grid, d), layout_of(r.layout));
    if (r.kind_of_op != OpKind::Conv2d || r.memory != "block_sharded")
      return row_placement(csv, r.memory, r.layout, t, d);
    CoreGrid on = result && !grid.empty() ? row_grid(csv, grid, d)
                                          : ttnn_conv_block_grid(op.type.shape[2], c, d);
    return block_sharded_on(t, on);
  };
  if (!grid.empty() && r.memory != "block_sharded" && r.memory != "height_sharded")
    throw csv.bad("attrs", "grid=RxC is a sharded conv's grid: expected memory block_sharded "
                           "or height_sharded");
  for (NodeId operand : op.operands) {
    TensorType t = g.node(operand).type;
    if (operand == x.id) {
      r.inputs.push_back(TensorUse{t, place(t, false)});
    } else {
      // Weights and bias: prepared on the device, tiles in DRAM.
      t.dtype = weights;
      r.inputs.push_back(TensorUse{t, dram_tile_placement()});
    }
  }
  r.output = TensorUse{out, place(out, true)};
}

// linear: the row's shape is MxKxN. The activation (MxK, the row's dtype) and the result are
// placed by the row's memory, on the row's grid when it names one; the weights (KxN) and the
// bias (N) are tiles in DRAM. `grid=RxC` fixes ttnn's 2-D multicast program config, with
// `in0_block_w=W`, `subblock=HxW` and `per_core=MxN` (tiles), as the source states them.
void read_linear(const bench::MeasuredCsv& csv, Row& r, const std::vector<int64_t>& mkn,
                 DType dtype, RowAttrs& a) {
  if (mkn.size() != 3) throw csv.bad("shape", "expected a linear's MxKxN");
  const int64_t m = mkn[0], k = mkn[1], n = mkn[2];
  DType weights = a.dtype("weights", dtype);
  DType out_dtype = a.dtype("out", dtype);
  bool bias = a.take("bias").value_or("1") != "0";
  read_activation(csv, r, a);
  if (a.flag("fp32_accumulate", false)) r.attrs.set("fp32_accumulate", int64_t{1});
  if (std::optional<bool> acc = a.optional_flag("packer_l1_acc"))
    r.attrs.set("packer_l1_acc", int64_t{*acc});
  if (std::optional<std::string> config = a.take("config")) {
    if (*config != "default")
      throw csv.bad("attrs", fmt::format("config: expected default, got '{}'", *config));
    if (r.memory != "dram" && r.memory != "l1")
      throw csv.bad("attrs", "config=default is ttnn's choice for interleaved operands: expected "
                             "memory dram or l1");
    r.ttnn_default = true;
  }
  TensorType in{dtype, Shape{m, k}, {}}, w{weights, Shape{k, n}, {}}, b{weights, Shape{n}, {}};
  TensorType out{out_dtype, Shape{m, n}, {}};
  const Device& d = *r.descriptor;
  std::vector<int64_t> grid = a.pair("grid", {});
  Placement in_place, out_place;
  if (grid.empty()) {
    in_place = row_placement(csv, r.memory, r.layout, in, d);
    out_place = row_placement(csv, r.memory, r.layout, out, d);
  } else {
    if (r.memory != "block_sharded")
      throw csv.bad("attrs", "grid=RxC is a block-sharded program config: expected memory "
                             "block_sharded");
    CoreGrid g = row_grid(csv, grid, d);
    MatmulBlocking blk;
    blk.in0_block_w = a.positive("in0_block_w", std::nullopt);
    std::vector<int64_t> sub = a.pair("subblock", {});
    std::vector<int64_t> per = a.pair("per_core", {});
    if (sub.empty() || per.empty())
      throw csv.bad("attrs", "grid=RxC needs in0_block_w, subblock=HxW and per_core=MxN");
    blk.out_subblock_h = sub[0];
    blk.out_subblock_w = sub[1];
    blk.per_core_m = blk.out_block_h = per[0];
    blk.per_core_n = blk.out_block_w = per[1];
    if (per[0] * g.rows * 32 < m || per[1] * g.cols * 32 < n)
      throw csv.bad("attrs", "per_core x grid does not cover the result");
    if (per[0] % sub[0] || per[1] % sub[1]) throw csv.bad("attrs", "subblock must divide per_core");
    r.program = std::pair{g, blk};
    in_place = block_sharded_on(in, g);
    out_place = block_sharded_on(out, g);
  }
  r.inputs = {TensorUse{in, in_place}, TensorUse{w, dram_tile_placement()}};
  if (bias) r.inputs.push_back(TensorUse{b, dram_tile_placement()});
  r.output = TensorUse{out, out_place};
}

// A layer_norm, rms_norm or softmax row: the normalized rows are the shape's last dim. attrs:
// `grid=RxC` (block sharded on that grid, as ttnn's LayerNormShardedMultiCoreProgramConfig
// runs it; memory block_sharded), `weight=0|1` and, for layer_norm, `bias=0|1` (a 1xW gamma
// and beta, default 1 and 0; in the row's buffer when interleaved, L1 interleaved beside a
// sharded input, as ttnn's examples keep them), `fp32_accumulate=0|1` (the compute kernel
// config's fp32_dest_acc_en; default 0).
void read_norm(const bench::MeasuredCsv& csv, Row& r, const std::vector<int64_t>& dims, DType dtype,
               RowAttrs& a) {
  const Device& d = *r.descriptor;
  TensorType type{dtype, Shape(dims)};
  TensorType out_type{a.dtype("out", dtype), Shape(dims)};
  std::vector<int64_t> grid = a.pair("grid", {});
  Placement p;
  if (grid.empty()) {
    p = row_placement(csv, r.memory, r.layout, type, d);
  } else {
    if (r.memory != "block_sharded")
      throw csv.bad("attrs", "grid=RxC shards the rows in blocks: expected memory block_sharded");
    p = block_sharded_on(type, row_grid(csv, grid, d));
  }
  r.inputs = {TensorUse{type, p}};
  if (r.kind_of_op != OpKind::Softmax) {
    const bool weight = a.flag("weight", true);
    const bool bias = r.kind_of_op == OpKind::LayerNorm && a.flag("bias", false);
    Placement row_p =
        p.memory == MemoryLayout::Interleaved
            ? p
            : Placement{Layout::Tile, BufferType::L1, MemoryLayout::Interleaved, {}, {0, 0}};
    TensorType row{dtype, Shape{dims.back()}};
    if (weight) r.inputs.push_back(TensorUse{row, row_p});
    if (bias) {
      if (!weight) throw csv.bad("attrs", "bias=1 needs weight=1 (ttnn's beta follows gamma)");
      r.inputs.push_back(TensorUse{row, row_p});
    }
  }
  if (a.flag("fp32_accumulate", false)) r.attrs.set("fp32_accumulate", int64_t{1});
  r.output = TensorUse{out_type, p};
}

// A transpose row: the shape is the operand's; `dims=AxB` the two dims swapped (ttnn's
// TransposeOpDim::HC on a rank-4 tensor is dims=1x2, WH dims=2x3); the result in the same memory.
void read_transpose(const bench::MeasuredCsv& csv, Row& r, const std::vector<int64_t>& dims,
                    DType dtype, RowAttrs& a) {
  std::vector<int64_t> swap = a.pair("dims", {}, true);
  const auto rank = static_cast<int64_t>(dims.size());
  if (swap.empty() || swap[0] >= rank || swap[1] >= rank || swap[0] == swap[1])
    throw csv.bad("attrs", fmt::format("transpose: expected dims=AxB, two different dims of the "
                                       "rank-{} shape",
                                       rank));
  std::vector<int64_t> out = dims;
  std::swap(out[static_cast<size_t>(swap[0])], out[static_cast<size_t>(swap[1])]);
  TensorType in_type{dtype, Shape(dims)};
  TensorType out_type{dtype, Shape(out)};
  r.inputs = {TensorUse{in_type, row_placement(csv, r.memory, r.layout, in_type, *r.descriptor)}};
  r.output = TensorUse{out_type, row_placement(csv, r.memory, r.layout, out_type, *r.descriptor)};
  r.attrs.set("dim0", swap[0]);
  r.attrs.set("dim1", swap[1]);
}

std::vector<Row> read_rows(const std::string& path, std::map<std::string, Device>& devices) {
  bench::MeasuredCsv csv(path, {"op", "device", "shape", "dtype", "layout", "memory", "cores",
                                "metric", "measured_us", "kind", "attrs", "source"});
  std::vector<Row> rows;
  while (csv.next()) {
    Row r;
    r.op = csv.get("op");
    std::optional<std::pair<OpKind, int>> op = row_op(r.op);
    if (!op)
      throw csv.bad("op", "expected a unary or binary eltwise op, softmax, layer_norm, typecast, "
                          "copy, transpose, linear, conv2d, max_pool2d or avg_pool2d");
    r.kind_of_op = op->first;
    r.descriptor = &csv.device(devices, "device");
    r.device = r.descriptor->name; // a descriptor file's own name, not its path
    r.shape_text = csv.get("shape");
    std::optional<std::vector<int64_t>> dims = bench::parse_dims(r.shape_text);
    if (!dims) throw csv.bad("shape", "expected positive dims joined by 'x', such as 1x32x4096");
    std::optional<DType> dtype = parse_dtype(csv.get("dtype"));
    if (!dtype) throw csv.bad("dtype", "expected bf16, bfp8_b, f32 or i32");
    r.dtype_text = csv.get("dtype");
    r.layout = csv.get("layout");
    if (r.layout != "tile" && r.layout != "row_major")
      throw csv.bad("layout", "expected tile or row_major");
    r.memory = csv.get("memory");
    if (r.memory != "dram" && r.memory != "l1" && r.memory != "height_sharded" &&
        r.memory != "width_sharded" && r.memory != "block_sharded")
      throw csv.bad("memory", "expected dram, l1, height_sharded, width_sharded or block_sharded");
    RowAttrs a(csv);
    r.fidelity = a.fidelity();
    if (windowed(r.kind_of_op)) {
      read_windowed(csv, r, *dims, *dtype, a);
    } else if (r.kind_of_op == OpKind::Linear) {
      read_linear(csv, r, *dims, *dtype, a);
    } else if (r.kind_of_op == OpKind::LayerNorm || r.kind_of_op == OpKind::RmsNorm ||
               r.kind_of_op == OpKind::Softmax) {
      read_norm(csv, r, *dims, *dtype, a);
    } else if (r.kind_of_op == OpKind::Transpose) {
      read_transpose(csv, r, *dims, *dtype, a);
    } else {
      TensorType type{*dtype, Shape(*dims)};
      TensorType out_type{a.dtype("out", *dtype), Shape(*dims)};
      Placement p = row_placement(csv, r.memory, r.layout, type, *r.descriptor);
      r.inputs.assign(static_cast<size_t>(op->second), TensorUse{type, p});
      r.output = TensorUse{out_type, p};
    }
    a.finish(r.op);
    const std::string& cores = csv.get("cores");
    if (cores != "0") r.cores = csv.positive_int("cores");
    r.metric = csv.get("metric");
    if (r.metric != "kernel" && r.metric != "op") throw csv.bad("metric", "expected kernel or op");
    r.measured_us = csv.measured_us();
    r.kind = csv.kind();
    rows.push_back(std::move(r));
  }
  return rows;
}

struct Figures {
  std::vector<double> predicted, measured, ape;
  void add(double p, double m) {
    predicted.push_back(p);
    measured.push_back(m);
    ape.push_back(100.0 * std::abs(p - m) / m);
  }
  std::string str() const {
    return fmt::format("median_ape={:.1f} p90_ape={:.1f} kendall_tau={:.3f} rows={}",
                       bench::median(ape), bench::percentile(ape, 0.9),
                       bench::kendall_tau_b(predicted, measured), ape.size());
  }
};

// The model's largest bound, or "launch" when its launch outweighs them all.
std::string bound_of(const CostBreakdown& c, double launch_us) {
  double b = std::max({c.compute_us, c.dram_us, c.noc_us, c.l1_us});
  if (launch_us >= b) return "launch";
  if (b == c.compute_us) return "compute";
  if (b == c.dram_us) return "dram";
  return b == c.noc_us ? "noc" : "l1";
}

int run(const std::string& path, bool detail) {
  std::map<std::string, Device> devices;
  std::vector<Row> rows = read_rows(path, devices);
  Figures all;
  std::map<std::string, Figures> by_op, by_device, by_bound;
  fmt::print("{:<10} {:<14} {:<14} {:<6} {:<9} {:<14} {:>5} {:>5} {:<6} {:>9} {:>9} {:>9} "
             "{:>6}  {:<8} {}\n",
             "op", "device", "shape", "dtype", "layout", "memory", "cores", "model", "metric",
             "model_us", "compared", "measured", "ape%", "bound", "kind");
  for (const Row& r : rows) {
    const Device& d = *r.descriptor;
    CostModel model(d, {.fidelity = r.fidelity, .ttnn_default_matmul = r.ttnn_default});
    OpEstimate e = r.program ? model.op_blocked(r.kind_of_op, r.attrs, r.inputs, r.output,
                                                r.program->first, r.program->second)
                             : model.op(r.kind_of_op, r.attrs, r.inputs, r.output);
    // DEVICE KERNEL DURATION starts when the kernels start: the gap after the previous op is
    // not in it (the kernel's own floor is).
    double compared = r.metric == "kernel" ? e.us - d.op_gap_us : e.us;
    all.add(compared, r.measured_us);
    by_op[r.op].add(compared, r.measured_us);
    by_device[r.device].add(compared, r.measured_us);
    std::string bound = bound_of(e.cost, e.cost.dispatch_us);
    by_bound[bound].add(compared, r.measured_us);
    fmt::print("{:<10} {:<14} {:<14} {:<6} {:<9} {:<14} {:>5} {:>5} {:<6} {:>9.2f} {:>9.2f} "
               "{:>9.2f} {:>6.1f}  {:<8} {}\n",
               r.op, r.device, r.shape_text, r.dtype_text, r.layout, r.memory,
               r.cores ? fmt::format("{}", r.cores) : "?", e.cores, r.metric, e.us, compared,
               r.measured_us, 100.0 * std::abs(compared - r.measured_us) / r.measured_us, bound,
               r.kind);
    if (detail) fmt::print("    {}\n", e.cost.detail);
  }
  for (const auto& [op, f] : by_op) fmt::print("op={} {}\n", op, f.str());
  for (const auto& [device, f] : by_device) fmt::print("device={} {}\n", device, f.str());
  for (const auto& [bound, f] : by_bound) fmt::print("bound={} {}\n", bound, f.str());
  fmt::print("overall {}\n", all.str());
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  // `--detail` first: each row's estimate is followed by the model's account of it.
  bool detail = argc > 1 && std::string_view(argv[1]) == "--detail";
  if (detail) {
    argv[1] = argv[0];
    ++argv;
    --argc;
  }
  return tilesat::bench::run_on_csv(argc, argv, "op_accuracy",
                                    [&](const std::string& path) { return run(path, detail); });
}
