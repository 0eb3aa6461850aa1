// io.cpp: reading a verb's INPUT (TTIR/StableHLO text or an ONNX model) and writing its text
// output to a file or standard output.
#include "cli.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/parser.h"
#include "tilesat/onnx/import.h"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iostream>

namespace tilesat::cli {

SourceFile load_input(const std::string& path,
                      std::map<std::string, Tensor, std::less<>>* weights) {
  if (!path.ends_with(".onnx")) return parse_file(path);
  onnx::ImportedModel m = onnx::import_file(path);
  if (weights != nullptr) *weights = std::move(m.weights);
  SourceFile file;
  file.modules.emplace_back();
  file.modules[0].functions.push_back(std::move(m.graph));
  return file;
}

void write_text(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  out << text;
  if (!out) throw Error(fmt::format("cannot write '{}'", path));
}

} // namespace tilesat::cli
