// gemm_csv.cpp: parsing measured matmul rows.
#include "gemm_csv.h"

#include "csv_fields.h"
#include "tilesat/graph/diagnostic.h"

#include <charconv>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <sstream>

namespace tilesat::bench {

int64_t dtype_tile_bytes(const std::string& dt) {
  return dt == "BFLOAT16"    ? 2048
         : dt == "BFLOAT8_B" ? 1088
         : dt == "BFLOAT4_B" ? 576
         : dt == "FLOAT32"   ? 4096
                             : 0;
}

std::optional<bool> parse_flag(const std::string& s) {
  if (s == "True" || s == "true" || s == "1") return true;
  if (s == "False" || s == "false" || s == "0" || s.empty()) return false;
  return std::nullopt;
}

std::vector<GemmRow> read_gemm_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot open file", path));
  std::string line;
  if (!std::getline(in, line)) throw Error(SourceLoc{path, 1, 0}, "empty file (expected a header)");
  std::map<std::string, size_t> col;
  std::vector<std::string> header = split_csv(line);
  for (size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  const char* required[] = {"device",      "m",           "k",           "n",
                            "dtype",       "fidelity",    "in0_storage", "in1_storage",
                            "out_storage", "in0_sharded", "out_sharded", "use_trace",
                            "grid",        "time_ns"};
  for (const char* r : required) {
    if (!col.count(r)) throw Error(SourceLoc{path, 1, 0}, fmt::format("missing column '{}'", r));
  }
  std::vector<GemmRow> rows;
  int lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line == "\r") continue;
    std::vector<std::string> f = split_csv(line);
    auto get = [&](const char* name) -> const std::string& {
      size_t i = col.at(name);
      if (i >= f.size())
        throw Error(SourceLoc{path, lineno, 0}, fmt::format("missing value for column '{}'", name));
      return f[i];
    };
    auto bad = [&](const char* name, const std::string& why) {
      return Error(SourceLoc{path, lineno, 0},
                   fmt::format("column '{}': {} (got '{}')", name, why, get(name)));
    };
    auto integer = [&](const char* name) {
      const std::string& s = get(name);
      int64_t v = 0;
      auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || p != s.data() + s.size() || v <= 0)
        throw bad(name, "expected a positive integer");
      return v;
    };
    auto flag = [&](const char* name) {
      std::optional<bool> b = parse_flag(get(name));
      if (!b) throw bad(name, "expected True or False");
      return *b;
    };
    auto storage = [&](const char* name) {
      const std::string& s = get(name);
      if (s == "L1") return true;
      if (s == "DRAM") return false;
      throw bad(name, "expected DRAM or L1");
    };
    GemmRow r;
    r.line = lineno;
    const std::string& dev = get("device");
    r.device = dev == "N150" ? "wormhole_b0" : dev == "P150" ? "blackhole_p150" : dev;
    if (col.count("config") && col["config"] < f.size()) {
      r.config_name = f[col["config"]];
      if (!r.config_name.empty() && r.config_name != "out_of_box" &&
          r.config_name != "manually_tuned")
        throw bad("config", "expected out_of_box or manually_tuned");
    }
    cost::MatmulConfig& c = r.config;
    c.m = integer("m");
    c.k = integer("k");
    c.n = integer("n");
    int64_t tb = dtype_tile_bytes(get("dtype"));
    if (tb == 0) throw bad("dtype", "expected BFLOAT16, BFLOAT8_B, BFLOAT4_B or FLOAT32");
    c.in0_tile_bytes = c.in1_tile_bytes = c.out_tile_bytes = tb;
    try {
      c.fidelity = cost::parse_fidelity(get("fidelity"));
    } catch (const Error&) {
      throw bad("fidelity", "expected LoFi, HiFi2, HiFi3 or HiFi4");
    }
    c.in0_l1 = storage("in0_storage");
    c.in1_l1 = storage("in1_storage");
    c.out_l1 = storage("out_storage");
    c.in0_sharded = flag("in0_sharded");
    c.out_sharded = flag("out_sharded");
    r.trace = flag("use_trace");
    const std::string& g = get("grid");
    size_t x = g.find('x');
    int64_t gx = 0, gy = 0;
    if (x == std::string::npos || std::from_chars(g.data(), g.data() + x, gx).ec != std::errc() ||
        std::from_chars(g.data() + x + 1, g.data() + g.size(), gy).ec != std::errc() || gx <= 0 ||
        gy <= 0)
      throw bad("grid", "expected COLSxROWS such as 8x8");
    c.grid = cost::CoreGrid{static_cast<uint32_t>(gy), static_cast<uint32_t>(gx)};
    double ns = 0;
    try {
      ns = std::stod(get("time_ns"));
    } catch (const std::exception&) {
      throw bad("time_ns", "expected a number");
    }
    if (!(ns > 0)) throw bad("time_ns", "expected a positive number");
    r.time_us = ns / 1000.0;
    rows.push_back(r);
  }
  return rows;
}

} // namespace tilesat::bench
