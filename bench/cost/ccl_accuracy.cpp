// ccl_accuracy FILE.csv: the collective cost model (cost/collective_cost.h) against the
// all_gather / reduce_scatter / all_reduce times tt-metal publishes.
//
// Columns (by header name): op (all_gather, reduce_scatter, all_reduce), device (a mesh
// descriptor), group ("all": every chip, on the mesh's ring through them; "axis0" / "axis1":
// the chips along that mesh axis), links (between neighbours), shape ("1x32x32x128": the
// gathered tensor of an all_gather, each chip's input of a reduce_scatter or all_reduce),
// dtype (bf16, bfp8_b, f32: bytes in 32x32 tiles), measured_us, kind ("measured": a reported
// time; "perf_target": the ceiling a tt-metal performance test holds), source.
// Prints every row's prediction, error and dominant part, then
//   median_ape=X p90_ape=Y rows=N
// over all rows and per kind.
//   ccl_accuracy bench/cost/ccl_measured.csv
#include "csv_fields.h"
#include "measured_csv.h"
#include "stats.h"
#include "tilesat/cost/collective_cost.h"
#include "tilesat/cost/device.h"
#include "tilesat/cost/op_cost.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/dtype.h"

#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <optional>

namespace {
using namespace tilesat;
using namespace tilesat::cost;

struct Row {
  Collective op = Collective::AllGather;
  std::string device, group, shape, dtype, kind;
  int64_t links = 0;
  double bytes = 0, measured_us = 0;
  int line = 0;
};

// Bytes of a tensor stored in 32x32 tiles: leading dims times the tiles of the last two.
double tiled_bytes(const std::string& shape, DType dtype,
                   const std::function<Error(std::string)>& bad) {
  std::optional<std::vector<int64_t>> parsed = bench::parse_dims(shape);
  if (!parsed) throw bad("expected positive dims joined by 'x', such as 1x32x4096");
  std::vector<int64_t> dims = *parsed;
  if (dims.size() < 2) dims.insert(dims.begin(), 1);
  double tiles = 1;
  for (size_t i = 0; i + 2 < dims.size(); ++i) tiles *= static_cast<double>(dims[i]);
  for (size_t i = dims.size() - 2; i < dims.size(); ++i)
    tiles *= std::ceil(static_cast<double>(dims[i]) / 32.0);
  return tiles * static_cast<double>(CostModel::tile_bytes(dtype));
}

std::vector<Row> read_rows(const std::string& path) {
  bench::MeasuredCsv csv(
      path, {"op", "device", "group", "links", "shape", "dtype", "measured_us", "kind", "source"});
  std::vector<Row> rows;
  while (csv.next()) {
    Row r;
    r.line = csv.line();
    try {
      r.op = parse_collective(csv.get("op"));
    } catch (const Error& e) {
      throw csv.bad("op", e.diagnostic().message);
    }
    r.device = csv.get("device");
    r.group = csv.get("group");
    if (r.group != "all" && r.group != "axis0" && r.group != "axis1")
      throw csv.bad("group", "expected all, axis0 or axis1");
    r.links = csv.positive_int("links");
    std::optional<DType> dtype = parse_dtype(csv.get("dtype"));
    if (!dtype) throw csv.bad("dtype", "expected bf16, bfp8_b, f32 or i32");
    r.dtype = csv.get("dtype");
    r.shape = csv.get("shape");
    r.bytes =
        tiled_bytes(r.shape, *dtype, [&](const std::string& why) { return csv.bad("shape", why); });
    r.measured_us = csv.measured_us();
    r.kind = csv.kind();
    rows.push_back(r);
  }
  return rows;
}

std::string summary(const std::vector<double>& ape) {
  return fmt::format("median_ape={:.1f} p90_ape={:.1f} rows={}", bench::median(ape),
                     bench::percentile(ape, 0.9), ape.size());
}

int run(const std::string& path) {
  std::vector<Row> rows = read_rows(path);
  std::map<std::string, Device> devices;
  std::vector<double> all;
  std::map<std::string, std::vector<double>> by_kind;
  fmt::print("{:<14} {:<7} {:<5} {:>5} {:<13} {:<6} {:>11} {:>10} {:>10} {:>6}  {:<8} {}\n", "op",
             "device", "group", "links", "shape", "dtype", "bytes", "predicted", "measured", "ape%",
             "dominant", "kind");
  for (const Row& r : rows) {
    const Device& d = bench::cached_device(devices, r.device, path, r.line, "device");
    CollectiveGroup g;
    try {
      g = r.group == "all" ? all_chips_group(d, r.links)
                           : axis_group(d, r.group == "axis0" ? 0 : 1, r.links);
    } catch (const Error& e) {
      throw Error(SourceLoc{path, r.line, 0}, e.diagnostic().message);
    }
    CollectiveEstimate e = collective_cost(r.op, r.bytes, g);
    double ape = 100.0 * std::abs(e.us - r.measured_us) / r.measured_us;
    all.push_back(ape);
    by_kind[r.kind].push_back(ape);
    fmt::print("{:<14} {:<7} {:<5} {:>5} {:<13} {:<6} {:>11.0f} {:>10.1f} {:>10.1f} {:>6.1f}  "
               "{:<8} {}\n",
               collective_name(r.op), r.device, r.group, r.links, r.shape, r.dtype, r.bytes, e.us,
               r.measured_us, ape, e.dominant, r.kind);
  }
  for (const auto& [kind, ape] : by_kind) fmt::print("{} rows  {}\n", kind, summary(ape));
  fmt::print("overall {}\n", summary(all));
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  return tilesat::bench::run_on_csv(argc, argv, "ccl_accuracy", run);
}
