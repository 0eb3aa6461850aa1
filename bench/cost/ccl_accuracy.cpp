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
#include "stats.h"
#include "tilesat/cost/collective_cost.h"
#include "tilesat/cost/device.h"
#include "tilesat/cost/op_cost.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/dtype.h"

#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
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
  std::vector<int64_t> dims;
  size_t at = 0;
  while (at <= shape.size()) {
    size_t end = std::min(shape.find('x', at), shape.size());
    int64_t v = 0;
    auto [p, ec] = std::from_chars(shape.data() + at, shape.data() + end, v);
    if (ec != std::errc() || p != shape.data() + end || v <= 0)
      throw bad("expected positive dims joined by 'x', such as 1x32x4096");
    dims.push_back(v);
    at = end + 1;
  }
  if (dims.size() < 2) dims.insert(dims.begin(), 1);
  double tiles = 1;
  for (size_t i = 0; i + 2 < dims.size(); ++i) tiles *= static_cast<double>(dims[i]);
  for (size_t i = dims.size() - 2; i < dims.size(); ++i)
    tiles *= std::ceil(static_cast<double>(dims[i]) / 32.0);
  return tiles * static_cast<double>(CostModel::tile_bytes(dtype));
}

std::vector<Row> read_rows(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open file", path));
  std::string line;
  if (!std::getline(in, line)) throw Error(SourceLoc{path, 1, 0}, "empty file (expected a header)");
  std::map<std::string, size_t> col;
  std::vector<std::string> header = bench::split_csv(line);
  for (size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  for (const char* r :
       {"op", "device", "group", "links", "shape", "dtype", "measured_us", "kind", "source"})
    if (!col.count(r)) throw Error(SourceLoc{path, 1, 0}, fmt::format("missing column '{}'", r));
  std::vector<Row> rows;
  for (int lineno = 2; std::getline(in, line); ++lineno) {
    if (line.empty() || line == "\r") continue;
    std::vector<std::string> f = bench::split_csv(line);
    auto get = [&](const char* name) -> const std::string& {
      if (col.at(name) >= f.size())
        throw Error(SourceLoc{path, lineno, 0}, fmt::format("missing value for column '{}'", name));
      return f[col.at(name)];
    };
    auto bad = [&](const char* name) {
      return [&, name](const std::string& why) {
        return Error(SourceLoc{path, lineno, 0},
                     fmt::format("column '{}': {} (got '{}')", name, why, get(name)));
      };
    };
    Row r;
    r.line = lineno;
    try {
      r.op = parse_collective(get("op"));
    } catch (const Error& e) {
      throw bad("op")(e.diagnostic().message);
    }
    r.device = get("device");
    r.group = get("group");
    if (r.group != "all" && r.group != "axis0" && r.group != "axis1")
      throw bad("group")("expected all, axis0 or axis1");
    auto [p, ec] =
        std::from_chars(get("links").data(), get("links").data() + get("links").size(), r.links);
    if (ec != std::errc() || p != get("links").data() + get("links").size() || r.links <= 0)
      throw bad("links")("expected a positive integer");
    std::optional<DType> dtype = parse_dtype(get("dtype"));
    if (!dtype) throw bad("dtype")("expected bf16, bfp8_b, f32 or i32");
    r.dtype = get("dtype");
    r.shape = get("shape");
    r.bytes = tiled_bytes(r.shape, *dtype, bad("shape"));
    try {
      size_t used = 0;
      r.measured_us = std::stod(get("measured_us"), &used);
      if (used != get("measured_us").size() || !(r.measured_us > 0))
        throw std::invalid_argument("");
    } catch (const std::exception&) {
      throw bad("measured_us")("expected a positive number of microseconds");
    }
    r.kind = get("kind");
    if (r.kind != "measured" && r.kind != "perf_target")
      throw bad("kind")("expected measured or perf_target");
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
    if (!devices.count(r.device)) {
      try {
        devices.emplace(r.device, load_device(r.device));
      } catch (const Error& e) {
        throw Error(SourceLoc{path, r.line, 0},
                    fmt::format("column 'device': {}", e.diagnostic().message));
      }
    }
    const Device& d = devices.at(r.device);
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
  if (argc != 2) {
    fmt::print(stderr, "usage: ccl_accuracy FILE.csv\n");
    return 2;
  }
  try {
    return run(argv[1]);
  } catch (const Error& e) {
    fmt::print(stderr, "ccl_accuracy: {}\n", e.what());
    return 1;
  }
}
