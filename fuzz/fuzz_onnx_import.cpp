// fuzz_onnx_import.cpp: arbitrary bytes through the ONNX importer; a tilesat::Error is a
// correct answer, and a model that imports must print as TTIR and parse back.
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/parser.h"
#include "tilesat/graph/printer.h"
#include "tilesat/onnx/import.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  tilesat::SourceFile file;
  try {
    tilesat::onnx::ImportedModel m = tilesat::onnx::import_bytes(bytes, "fuzz.onnx");
    file.modules.emplace_back();
    file.modules[0].functions.push_back(std::move(m.graph));
  } catch (const tilesat::Error&) {
    return 0;
  }
  std::string text = tilesat::print_text(file);
  // The importer's graph is valid TTIR: printing then parsing it gives the same text.
  if (tilesat::print_text(tilesat::parse_text(text, "fuzz.mlir")) != text) std::abort();
  return 0;
}
