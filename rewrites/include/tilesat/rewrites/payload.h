// Payloads: a graph op's kind and attributes as an e-node's operator and attribute payload.
//
// The e-graph compares e-nodes by operator symbol, payload id and children, so equal ops
// must get equal payloads. The canonical form is "every declared attribute, defaults filled
// in" (plus the attributes tilesat keeps verbatim, such as `operand_constraints`): a matmul
// written without `transpose_b` and one written with `transpose_b = false` are one e-node.
// Going back, attributes equal to their defaults are dropped, as the graph stores them.
//
//   egraph::Attrs p = to_payload(OpKind::Transpose, attrs);   // [dim0=1, dim1=0]
//   Attrs back = from_payload(OpKind::Transpose, p);          // {dim0: 1, dim1: 0}
//   op_symbol(OpKind::Matmul).str();                          // "matmul"
#pragma once

#include "tilesat/egraph/attr.h"
#include "tilesat/egraph/symbol.h"
#include "tilesat/graph/op.h"

#include <optional>
#include <string>

namespace tilesat::rewrites {

/// The e-node operator of an op kind: its registry name ("matmul"); arguments are "arg".
egraph::Symbol op_symbol(OpKind kind);
/// The op kind of an e-node operator, or nullopt for a symbol that is not an op.
std::optional<OpKind> op_of(egraph::Symbol op);

/// One attribute value in e-graph form (dtype as its name, float lists as exact text).
egraph::AttrValue to_egraph_value(const AttrValue& v);
/// Back to the graph attribute kind `kind`; throws tilesat::InternalError when the payload
/// value does not have that kind.
AttrValue from_egraph_value(const egraph::AttrValue& v, AttrKind kind, std::string_view key);

/// The canonical payload of an op: declared attributes with defaults, plus opaque ones.
/// Throws tilesat::Error naming the op when a required attribute is missing.
egraph::Attrs to_payload(OpKind kind, const Attrs& attrs);
/// The graph attributes of a payload, without those equal to their defaults (but for those
/// the op table marks `kept`, such as conv2d's groups).
Attrs from_payload(OpKind kind, const egraph::Attrs& payload);
/// The graph attributes of a payload with every default present (what inference reads).
Attrs complete_from_payload(OpKind kind, const egraph::Attrs& payload);

/// The attribute kind `key` has on `kind`: its declared kind, or Opaque when undeclared.
AttrKind attr_kind_of(OpKind kind, std::string_view key);

} // namespace tilesat::rewrites
