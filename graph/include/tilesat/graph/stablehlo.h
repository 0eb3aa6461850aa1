// The StableHLO subset tilesat reads, and the TTIR op each StableHLO op becomes.
//
// Frontends such as tt-xla hand over StableHLO; tilesat converts it to TTIR while parsing
// (`parse_text` accepts both dialects, even mixed in one function), so everything after the
// parser sees one op vocabulary. This table is that conversion, listed for tools and docs.
//
//   for (const StableHloOpMapping& m : stablehlo_op_mappings())
//     fmt::print("{} -> {}\n", m.stablehlo, m.ttir);   // stablehlo.add -> ttir.add ...
//   find_stablehlo_op("stablehlo.dot_general")->ttir;  // "ttir.matmul"
#pragma once

#include <span>
#include <string_view>

namespace tilesat {

struct StableHloOpMapping {
  std::string_view stablehlo; // "stablehlo.dot_general"
  std::string_view ttir;      // "ttir.matmul": a table op, or a composite (ttir_composites.h);
                              // empty when the op adds no node (its results are operands)
  std::string_view how;       // how attributes carry over
};

/// Every StableHLO op tilesat converts, in a stable order.
std::span<const StableHloOpMapping> stablehlo_op_mappings();
/// The mapping of one op (full name with the `stablehlo.` prefix), or nullptr.
const StableHloOpMapping* find_stablehlo_op(std::string_view name);

} // namespace tilesat
