// tt-mlir TTIR ops that tilesat reads as compositions of its own ops.
//
// tt-mlir's TTIR has more ops than tilesat's op table: many are a few table ops (`ttir.ge` is
// `gt` or `eq`, `ttir.squeeze` a reshape, `ttir.clamp_scalar` a maximum and a minimum,
// `ttir.embedding` a take). The text importer expands each such op as it reads it, so every
// stage after the parser sees one op vocabulary; `--emit ttir` then prints the expansion. This
// table lists those ops and how each is read, for tools and docs.
//
//   for (const TtirComposite& c : ttir_composite_ops())
//     fmt::print("ttir.{}: {}\n", c.name, c.reading);  // ttir.ge: gt(a, b) max eq(a, b) ...
//   find_ttir_composite("squeeze") != nullptr;          // true
#pragma once

#include <span>
#include <string_view>

namespace tilesat {

struct TtirComposite {
  std::string_view name;       // without the dialect prefix: "ge"
  std::string_view attributes; // the attributes it reads, as tt-mlir names them ("" for none)
  std::string_view reading;    // the table ops it becomes
};

/// Every composite op, in a stable order.
std::span<const TtirComposite> ttir_composite_ops();
/// The composite named `name` (without `ttir.`), or nullptr.
const TtirComposite* find_ttir_composite(std::string_view name);

} // namespace tilesat
