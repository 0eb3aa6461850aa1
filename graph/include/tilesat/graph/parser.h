// Reading TTIR and StableHLO text (the MLIR syntax tt-mlir prints) into graphs.
//
// A hand-written lexer and recursive-descent parser accept tt-mlir's generic form
// (`%1 = "ttir.add"(%0, %arg1) <{...}> {...} : (types) -> type`), its custom form
// (`%1 = ttir.add %0, %arg1 : t, t -> t`), legacy destination-passing `ttir.empty()` operands,
// and a StableHLO subset that is converted to TTIR on the way in (see stablehlo.h). Every
// function is verified after it is read. Errors are tilesat::Error values whose message starts
// with `file:line:col: error:` and says what was expected and what was found.
//
//   SourceFile f = parse_text(R"(module { func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
//     %0 = "ttir.relu"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
//     return %0 : tensor<4xf32> } })", "relu.mlir");
//   f.modules[0].functions[0].num_ops();   // 1
#pragma once

#include "tilesat/graph/module.h"

#include <string>
#include <string_view>

namespace tilesat {

/// Parses and verifies `text`; `filename` is what diagnostics call the source.
SourceFile parse_text(std::string_view text, std::string filename);
/// Reads the file at `path` ("-" reads standard input, called "<stdin>") and parses it.
SourceFile parse_file(const std::string& path);

} // namespace tilesat
