// Helpers shared by the text tests of graph/ (TTIR, StableHLO and TTNN input).
//
//   EXPECT_EQ(parse_error("func.func @f(%x: tensor<2xq7>) ..."), "t.mlir:1:...: error: ...");
//   const Graph& g = only(parse_text(text, "t.mlir"));
//   EXPECT_EQ(run(text, {{1, 2}, {3, 4}}), (std::vector<float>{4, 6}));
#pragma once

#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/interpreter.h"
#include "tilesat/graph/parser.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

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

/// `text` with the first `from` replaced by `to` (a test failure when `from` is missing).
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

/// The file's only function.
inline const Graph& only(const SourceFile& f) {
  return select_function(f, "");
}

/// The values of the function's first result on `inputs` (one per argument, of its type).
inline std::vector<float> run(const std::string& text,
                              const std::vector<std::vector<float>>& inputs) {
  const SourceFile file = parse_text(text, "t.mlir");
  const Graph& g = only(file);
  std::vector<Tensor> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    args.emplace_back(g.node(g.arguments()[i]).type, inputs[i]);
  }
  std::vector<Tensor> out = evaluate(g, args);
  return out.at(0).data();
}

} // namespace tilesat
