// The parse tree between text and Graph: attribute values and one op as written.
//
// The parser only recognizes syntax; the importers (ttir_import.cpp, stablehlo.cpp) give it
// meaning. Keeping attributes untyped here lets an unknown attribute print back as written and
// lets each importer accept tt-mlir's many spellings of one value (`[1 : i32]`,
// `array<i64: 1>`, `dense<1>`).
#pragma once

#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/graph.h"
#include "tilesat/graph/tensor.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tilesat::text {

struct ParsedAttr {
  enum class Kind {
    Int,     // 1, 1 : si32 (suffix "si32"), 0x7F800000
    Float,   // 0.5, 0.000000e+00 : f32
    Bool,    // true, false
    String,  // "sigmoid" (text holds the unescaped value, spelling the source text)
    Keyword, // a bare identifier such as bf16 or unit
    Alias,   // #any_device, or #dialect.name<...> (spelling keeps the whole text)
    List,    // [a, b, ...]
    Array,   // array<i64: 1, 2> (text holds the element type)
    Dense,   // dense<...> (elems[0] is the splat value or the nested List)
    Dict,    // {a = 1, b}
    Type,    // tensor<2x3xf32> as a value
    Pair,    // [1] x [0] (StableHLO's contracting_dims), [..] x [..] -> [..]; elems: the lists
  };
  Kind kind = Kind::Keyword;
  SourceLoc loc;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string text;
  std::string spelling; // literal as written (numbers, strings, aliases)
  std::string suffix;   // Int/Float: type after ':'
  std::vector<ParsedAttr> elems;
  std::string key;                // a Dict's entries are its elems, each with its key
  std::optional<TensorType> type; // Type, or the `: tensor<...>` after dense<...>
};

/// The attribute rendered back as MLIR text, close to how it was written.
std::string render_attr(const ParsedAttr& a);

/// An operand as written: a %value, or (custom form only) a scalar literal such as `0.5`.
struct OperandRef {
  std::string name; // "%3"; empty for a scalar literal
  double scalar = 0;
  SourceLoc loc;
};

using NamedAttr = std::pair<std::string, ParsedAttr>;

/// One op as written, in either the generic or the custom form.
struct OpRecord {
  std::string name; // "ttir.add", "stablehlo.dot_general"
  SourceLoc loc;    // where the statement starts (its result name)
  SourceLoc name_loc;
  std::string result;
  /// Every result's name when the op has several: `%r:2 = ...` names `%r#0` and `%r#1`,
  /// `%a, %b = ...` names `%a` and `%b` (empty for one result, named by `result`).
  std::vector<std::string> results;
  /// Their declared types, one per name of `results`.
  std::vector<TensorType> result_types;
  std::vector<OperandRef> operands;
  std::vector<NamedAttr> attrs;              // <{...}>, {...} and custom `key = value` items
  std::vector<ParsedAttr> positional;        // custom-form values such as `dense<0.0>`
  std::vector<TensorType> operand_types;     // one per operand once the parser has matched them
  std::vector<std::string> operand_elements; // each operand's element type as written ("i1")
  TensorType result_type;
  bool has_result_type = false;
  /// stablehlo.reduce: the op combining two values (`applies stablehlo.add`, or the one op of
  /// its reducer region), and where it is written.
  std::string reducer;
  SourceLoc reducer_loc;
  /// Regions read as functions of their block's arguments: a stablehlo.reduce of several
  /// operands has its reducer (each operand's accumulated value, then each operand's next
  /// value; one value per operand returned). A stablehlo.while's regions are read by the
  /// parser once per trip instead.
  std::vector<std::shared_ptr<const Graph>> regions;

  const ParsedAttr* attr(std::string_view key) const {
    for (const auto& [k, v] : attrs) {
      if (k == key) return &v;
    }
    return nullptr;
  }
};

} // namespace tilesat::text
