// op_accuracy FILE.csv: the per-op cost model (CostModel::op) against published device times
// of ops other than matmul.
//
// Columns (by header name): op (an op name such as relu, add, softmax, layer_norm, or copy: a
// tile-to-tile copy, priced as a typecast to the same dtype), device (a device descriptor),
// shape ("2048x2048": every operand's and the result's), dtype (bf16, bfp8_b, f32),
// layout (tile, row_major), memory (dram or l1, interleaved), cores (the cores the measured
// kernel ran on; printed beside the model's own choice, not an input), metric ("kernel":
// tt-metal's DEVICE KERNEL DURATION, which excludes the gap between ops, so it is compared
// with the model's time less the descriptor's op_gap_us; "op": a traced op's whole time,
// compared with the model's time), measured_us, kind ("measured" or "perf_target"), source.
// Prints every row's prediction, error and bound (the largest of the model's compute, DRAM, NoC
// and L1 times; "launch" when the launch outweighs them all), then
//   median_ape=X p90_ape=Y kendall_tau=Z rows=N
// per op, per bound and over all rows.
//   op_accuracy bench/cost/op_measured.csv
#include "csv_fields.h"
#include "measured_csv.h"
#include "stats.h"
#include "tilesat/cost/device.h"
#include "tilesat/cost/op_cost.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/dtype.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <optional>

namespace {
using namespace tilesat;
using namespace tilesat::cost;

struct Row {
  std::string op, device, shape_text, dtype_text, layout, memory, metric, kind;
  OpKind kind_of_op = OpKind::Relu;
  int inputs = 1;
  TensorType type;
  Placement placement;
  int64_t cores = 0;
  double measured_us = 0;
  const Device* descriptor = nullptr;
};

bool binary(OpKind k) {
  switch (k) {
  case OpKind::Add:
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

// The op kind a row names and its operand count; nullopt for ops whose result is not shaped
// like their operands (the benchmark builds every operand and the result from one shape).
std::optional<std::pair<OpKind, int>> row_op(const std::string& name) {
  if (name == "copy") return std::pair{OpKind::Typecast, 1};
  std::optional<OpKind> k = op_by_name(name);
  if (!k) return std::nullopt;
  if (binary(*k)) return std::pair{*k, 2};
  if (*k == OpKind::Softmax || *k == OpKind::LayerNorm || *k == OpKind::Typecast ||
      (sfpu_weight(*k) > 0 && *k != OpKind::Where && *k != OpKind::Full && *k != OpKind::Pow))
    return std::pair{*k, 1};
  return std::nullopt;
}

std::vector<Row> read_rows(const std::string& path, std::map<std::string, Device>& devices) {
  bench::MeasuredCsv csv(path, {"op", "device", "shape", "dtype", "layout", "memory", "cores",
                                "metric", "measured_us", "kind", "source"});
  std::vector<Row> rows;
  while (csv.next()) {
    Row r;
    r.op = csv.get("op");
    std::optional<std::pair<OpKind, int>> op = row_op(r.op);
    if (!op)
      throw csv.bad("op", "expected a unary or binary eltwise op, softmax, layer_norm, typecast "
                          "or copy");
    r.kind_of_op = op->first;
    r.inputs = op->second;
    r.device = csv.get("device");
    r.descriptor = &csv.device(devices, "device");
    r.shape_text = csv.get("shape");
    std::optional<std::vector<int64_t>> dims = bench::parse_dims(r.shape_text);
    if (!dims) throw csv.bad("shape", "expected positive dims joined by 'x', such as 1x32x4096");
    std::optional<DType> dtype = parse_dtype(csv.get("dtype"));
    if (!dtype) throw csv.bad("dtype", "expected bf16, bfp8_b, f32 or i32");
    r.dtype_text = csv.get("dtype");
    r.type = TensorType{*dtype, Shape(*dims)};
    r.layout = csv.get("layout");
    if (r.layout != "tile" && r.layout != "row_major")
      throw csv.bad("layout", "expected tile or row_major");
    r.memory = csv.get("memory");
    if (r.memory != "dram" && r.memory != "l1") throw csv.bad("memory", "expected dram or l1");
    r.placement = Placement{r.layout == "tile" ? Layout::Tile : Layout::RowMajor,
                            r.memory == "dram" ? BufferType::DRAM : BufferType::L1,
                            MemoryLayout::Interleaved,
                            {},
                            {0, 0}};
    r.cores = csv.positive_int("cores");
    r.metric = csv.get("metric");
    if (r.metric != "kernel" && r.metric != "op") throw csv.bad("metric", "expected kernel or op");
    r.measured_us = csv.measured_us();
    r.kind = csv.kind();
    rows.push_back(r);
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

int run(const std::string& path) {
  std::map<std::string, Device> devices;
  std::vector<Row> rows = read_rows(path, devices);
  Figures all;
  std::map<std::string, Figures> by_op, by_bound;
  fmt::print("{:<10} {:<14} {:<13} {:<6} {:<9} {:<4} {:>5} {:>5} {:<6} {:>9} {:>9} {:>9} {:>6}  "
             "{:<8} {}\n",
             "op", "device", "shape", "dtype", "layout", "mem", "cores", "model", "metric",
             "model_us", "compared", "measured", "ape%", "bound", "kind");
  for (const Row& r : rows) {
    const Device& d = *r.descriptor;
    CostModel model(d);
    std::vector<TensorUse> inputs(static_cast<size_t>(r.inputs), TensorUse{r.type, r.placement});
    OpEstimate e = model.op(r.kind_of_op, {}, inputs, TensorUse{r.type, r.placement});
    // DEVICE KERNEL DURATION starts when the kernels start: the gap after the previous op is
    // not in it (the kernel's own floor is).
    double compared = r.metric == "kernel" ? e.us - d.op_gap_us : e.us;
    all.add(compared, r.measured_us);
    by_op[r.op].add(compared, r.measured_us);
    std::string bound = bound_of(e.cost, e.cost.dispatch_us);
    by_bound[bound].add(compared, r.measured_us);
    fmt::print(
        "{:<10} {:<14} {:<13} {:<6} {:<9} {:<4} {:>5} {:>5} {:<6} {:>9.2f} {:>9.2f} {:>9.2f} "
        "{:>6.1f}  {:<8} {}\n",
        r.op, r.device, r.shape_text, r.dtype_text, r.layout, r.memory, r.cores, e.cores, r.metric,
        e.us, compared, r.measured_us, 100.0 * std::abs(compared - r.measured_us) / r.measured_us,
        bound, r.kind);
  }
  for (const auto& [op, f] : by_op) fmt::print("op={} {}\n", op, f.str());
  for (const auto& [bound, f] : by_bound) fmt::print("bound={} {}\n", bound, f.str());
  fmt::print("overall {}\n", all.str());
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  return tilesat::bench::run_on_csv(argc, argv, "op_accuracy", run);
}
