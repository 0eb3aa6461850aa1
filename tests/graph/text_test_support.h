// Helpers shared by the text tests of graph/ (TTIR, StableHLO and TTNN input).
//
//   EXPECT_EQ(parse_error("func.func @f(%x: tensor<2xq7>) ..."), "t.mlir:1:...: error: ...");
//   const Graph& g = only(parse_text(text, "t.mlir"));
#pragma once

#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/parser.h"

#include <string>

namespace tilesat {

/// The message `parse_text(text, "t.mlir")` fails with ("" when it succeeds).
inline std::string parse_error(const std::string& text) {
  try {
    parse_text(text, "t.mlir");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

/// The file's only function.
inline const Graph& only(const SourceFile& f) {
  return select_function(f, "");
}

} // namespace tilesat
