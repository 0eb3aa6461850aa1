// io.cpp: reading a verb's INPUT (TTIR/StableHLO text or an ONNX model) and writing its text
// output to a file or standard output.
#include "cli.h"
#include "tilesat/graph/compute_dtype.h"
#include "tilesat/graph/data_files.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/npy.h"
#include "tilesat/graph/parser.h"
#include "tilesat/onnx/import.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fmt/format.h>
#include <fnmatch.h>
#include <fstream>
#include <iostream>

namespace tilesat::cli {

SourceFile load_input(const Options& o, std::map<std::string, Tensor, std::less<>>* weights,
                      const std::map<std::string, Tensor, std::less<>>& static_inputs) {
  const std::string& path = o.input;
  if (!path.ends_with(".onnx")) {
    if (!o.outputs.empty())
      throw Error(fmt::format("--outputs: expected an ONNX model (.onnx), got '{}'", path));
    if (!o.dims.empty())
      throw Error(fmt::format("--dim: expected an ONNX model (.onnx), got '{}'", path));
    return parse_file(path);
  }
  onnx::ImportOptions options;
  options.static_inputs = static_inputs;
  options.outputs = o.outputs;
  for (const std::string& spec : o.dims) {
    size_t eq = spec.find('=');
    std::string name = spec.substr(0, eq);
    int64_t size = -1;
    if (eq != std::string::npos && eq > 0) {
      std::string_view digits = std::string_view(spec).substr(eq + 1);
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), size);
      if (ec != std::errc() || end != digits.data() + digits.size()) size = -1;
    }
    if (size < 0 || size > (int64_t{1} << 40))
      throw Error(
          fmt::format("--dim '{}': expected NAME=SIZE with SIZE an integer in [0, 2^40]", spec));
    if (!options.dim_values.emplace(name, size).second)
      throw Error(fmt::format("--dim '{}': dim '{}' is given twice", spec, name));
  }
  onnx::ImportedModel m = onnx::import_file(path, options);
  if (weights != nullptr) *weights = std::move(m.weights);
  SourceFile file;
  file.modules.emplace_back();
  file.modules[0].functions.push_back(std::move(m.graph));
  return file;
}

void mark_weight_args(SourceFile& file, const std::vector<std::string>& globs) {
  for (const std::string& glob : globs) {
    bool exclude = glob.starts_with('!');
    std::string pattern = exclude ? glob.substr(1) : glob;
    if (pattern.empty()) throw Error(fmt::format("--weight-args '{}': expected a glob", glob));
    bool matched = false;
    for (Module& m : file.modules)
      for (Graph& g : m.functions)
        for (NodeId a : g.arguments()) {
          Node& n = g.mutable_node(a);
          if (fnmatch(pattern.c_str(), n.name.c_str(), 0) != 0) continue;
          n.role = exclude ? ArgRole::Input : ArgRole::Weight;
          matched = true;
        }
    if (!matched)
      throw Error(fmt::format("--weight-args '{}': no argument matches '{}'", glob, pattern));
  }
}

void apply_compile_options(SourceFile& file, const Options& o) {
  mark_weight_args(file, o.weight_args);
  if (o.compute_dtype.empty()) return;
  std::optional<DType> d = parse_dtype(o.compute_dtype);
  if (!d)
    throw Error(fmt::format("--compute-dtype '{}': expected bf16 or bfp8_b", o.compute_dtype));
  for (Module& m : file.modules)
    for (Graph& g : m.functions) g = compute_in(g, *d);
}

std::string file_stem(std::string_view name) {
  std::string s;
  for (char c : name) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '.' || c == '$' || c == '-';
    s.push_back(keep ? c : '_');
  }
  if (s.empty() || s[0] == '.' || s[0] == '-') s.insert(s.begin(), '_');
  return s;
}

std::vector<std::string> result_stems(const std::vector<std::string>& names) {
  std::vector<std::string> stems;
  for (size_t i = 0; i < names.size(); ++i)
    stems.push_back(names[i].empty() ? fmt::format("result{}", i) : file_stem(names[i]));
  std::vector<std::string> out = stems;
  for (size_t i = 0; i < stems.size(); ++i)
    if (std::count(stems.begin(), stems.end(), stems[i]) > 1)
      out[i] = fmt::format("{}.{}", stems[i], i);
  return out;
}

/// The NAME and FILE of one --input NAME=FILE.
std::pair<std::string, std::string> input_spec(const std::string& spec) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    throw Error(fmt::format("--input '{}': expected NAME=FILE.npy", spec));
  std::string name = spec.substr(0, eq);
  if (name.starts_with('%')) name.erase(0, 1);
  return {name, spec.substr(eq + 1)};
}

/// NAME=FILE pairs of --input, checked against the function's argument names (except those
/// the model was specialized to).
std::map<std::string, std::string>
input_files(const Options& o, const Graph& g,
            const std::map<std::string, Tensor, std::less<>>& specialized) {
  std::map<std::string, std::string> files;
  for (const std::string& spec : o.inputs) {
    auto [name, file] = input_spec(spec);
    bool known = false;
    for (NodeId a : g.arguments()) known = known || g.node(a).name == name;
    if (!known && specialized.count(name)) continue; // data of the model now, no argument
    if (!known) {
      std::string names;
      for (NodeId a : g.arguments()) names += (names.empty() ? "" : ", ") + g.node(a).name;
      throw Error(fmt::format("--input '{}': @{} has no argument '{}' (its arguments: {})", spec,
                              g.name(), name, names));
    }
    if (!files.emplace(name, file).second) {
      throw Error(fmt::format("--input: argument '{}' is given twice", name));
    }
  }
  return files;
}

Tensor read_argument(const Node& a, const std::string& file) {
  Tensor t = read_npy(file, npy_bytes_bound(a.type));
  if (!t.type().same_value_type(a.type)) {
    throw Error(fmt::format("--input {}={}: expected {}, got {}", a.name, file, a.type.str(),
                            t.type().str()));
  }
  return t;
}

void write_text(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  write_file_atomically(path, {text}, "file");
}

} // namespace tilesat::cli
