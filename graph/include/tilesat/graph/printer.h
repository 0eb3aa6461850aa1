// Printing graphs as canonical TTIR text, in tt-mlir's generic form.
//
// Every op prints as `%N = "ttir.op"(operands) <{attrs}> : (operand types) -> result type`,
// with the attributes that are set, sorted by name, in fixed spellings (docs/text-format.md).
// Values are numbered in order, arguments keep their names, aliases and module attributes
// print back as they were read. The output parses back to the same graphs and prints the same.
//
//   SourceFile f = parse_file("model.mlir");
//   std::string text = print_text(f);
//   std::string one = print_graph(f.modules[0].functions[0]);  // wrapped in `module {...}`
#pragma once

#include "tilesat/graph/module.h"

#include <string>

namespace tilesat {

/// The whole file: aliases, then each module with its functions.
std::string print_text(const SourceFile& file);
/// One graph as a complete file: `module { func.func @name(...) {...} }`.
std::string print_graph(const Graph& graph);

// Pieces of the printer that other dialect printers (cost/ttnn_emit.h) share.

/// The attributes of `n` as they print inside `<{...}>`: set ones, sorted, fixed spellings
/// (`transpose_b = true, value = dense<...> : tensor<...>`); empty when there are none.
std::string print_attributes(const Node& n);
/// `@name`, quoted when it is not a bare identifier (`@"my fn"`).
std::string print_symbol(std::string_view name);
/// `module @name attributes {...} {` and a newline: a module's opening line.
std::string print_module_open(const Module& m);

} // namespace tilesat
