// Parsing of attribute values and types: every spelling tt-mlir and StableHLO use for them.
#pragma once

#include "text/cursor.h"
#include "text/syntax.h"

#include <vector>

namespace tilesat::text {

/// Whether a value may take a trailing `: type` (`1 : si32`, `dense<0.0> : tensor<4xf32>`).
/// In a custom op form the `:` that follows a value starts the op's types instead.
enum class TypedValue { Allowed, Forbidden };

ParsedAttr parse_attr(Cursor& c, TypedValue typed = TypedValue::Allowed);
/// `{key = value, key, ...}` starting at `{` (a key alone is a unit attribute).
std::vector<NamedAttr> parse_attr_dict(Cursor& c);
/// Entries of a dictionary up to `close` (after `{` or `<{`), consuming `close`.
std::vector<NamedAttr> parse_attr_entries(Cursor& c, Tok close, std::string_view close_text);
/// `tensor<32x128xf32>`, `tensor<f32, #enc>`, or a scalar type such as `f32`; `element`, when
/// given, receives the element type as written (`i1` where the type holds i32).
TensorType parse_type(Cursor& c, std::string* element = nullptr);
/// True when the current token can start a type.
bool at_type(const Cursor& c);

} // namespace tilesat::text
