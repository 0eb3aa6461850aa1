// fuzz_text_parser.cpp: arbitrary bytes through parse_text (which verifies), the declared mesh
// (`ttcore.meshes`), print_text, and a second parse of the printed text. A tilesat::Error from the
// first parse is a correct answer; anything else (a crash, a sanitizer report, printed text that
// does not parse back to the same text) is a bug.
#include "tilesat/graph/module.h"
#include "tilesat/graph/parser.h"
#include "tilesat/graph/printer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  tilesat::SourceFile file;
  try {
    file = tilesat::parse_text(text, "fuzz.mlir");
  } catch (const tilesat::Error&) {
    return 0;
  }
  try {
    (void)tilesat::declared_mesh(file);
  } catch (const tilesat::Error&) {
    // a malformed attribute value: a correct answer
  }
  std::string printed = tilesat::print_text(file);
  try {
    std::string again = tilesat::print_text(tilesat::parse_text(printed, "printed.mlir"));
    if (again != printed) {
      std::fprintf(stderr, "round trip changed the text:\n%s\n---\n%s\n", printed.c_str(),
                   again.c_str());
      std::abort();
    }
  } catch (const tilesat::Error& e) {
    std::fprintf(stderr, "printed text does not parse: %s\n%s\n", e.what(), printed.c_str());
    std::abort();
  }
  return 0;
}
