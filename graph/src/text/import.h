// Turning parsed ops into Graph nodes: the state of one function being read, and the
// conversions shared by the TTIR and StableHLO importers.
#pragma once

#include "text/syntax.h"
#include "tilesat/graph/graph.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace tilesat::text {

/// What is known while one function body is read.
struct FunctionScope {
  Graph& graph;
  std::unordered_map<std::string, NodeId> values;
  /// Results of `ttir.empty()`: destinations of legacy destination-passing ops, dropped on use.
  std::unordered_map<std::string, TensorType> empties;
  std::unordered_map<std::string, SourceLoc> defined_at;
};

/// The node of `%name` (an argument or an earlier op); throws "use of undefined value".
NodeId lookup_value(FunctionScope& s, const OperandRef& ref);
/// Checks that `rec.result` is new in the scope and records it (with `id` when not empty).
void define_result(FunctionScope& s, const OpRecord& rec, std::optional<NodeId> id);
/// Records `rec.result` as another name of `id` (an op that only moves a value).
void define_alias(FunctionScope& s, const OpRecord& rec, NodeId id);
/// Operand nodes of `rec`: scalar literals become rank-0 constants, a trailing `ttir.empty()`
/// destination is dropped, and each operand's declared type is checked against its value.
std::vector<NodeId> resolve_operands(FunctionScope& s, OpRecord& rec);

/// `a` as a value of kind `kind`; throws naming the attribute and op when it is not one.
AttrValue convert_attr(const ParsedAttr& a, AttrKind kind, std::string_view attr,
                       std::string_view op);
/// Integers of a list, array<...> or dense<...> (for attributes tilesat converts itself).
std::vector<int64_t> int_list(const ParsedAttr& a, std::string_view attr, std::string_view op);

/// The dims a dot_general contracts and batches, per operand.
struct DotDims {
  std::vector<int64_t> lhs_contract, rhs_contract, lhs_batch, rhs_batch;
};
/// Sets a matmul's transpose_a / transpose_b for a dot_general over `rec`'s operand types;
/// throws naming the op when it is no matmul (one contracted dim among the last two of each
/// operand, batch dims leading).
void set_matmul_transposes(const OpRecord& rec, const DotDims& d, Attrs& attrs);

/// `ttir.*` ops (generic and custom form, legacy destination-passing included).
void import_ttir_op(FunctionScope& s, OpRecord& rec);
/// A tt-mlir op outside the op table (`op` without its prefix) expanded into table ops
/// (ttir_composite.cpp, listed by `ttir_composite_ops()`); false when `op` is no such op.
bool import_ttir_composite(FunctionScope& s, OpRecord& rec, std::string_view op);
/// `ttnn.*` ops: TTIR ops by another prefix, plus matmul activations, linear and layout
/// changes; placement attributes are dropped.
void import_ttnn_op(FunctionScope& s, OpRecord& rec);
/// `stablehlo.*` ops, converted to TTIR on the way in.
void import_stablehlo_op(FunctionScope& s, OpRecord& rec);

} // namespace tilesat::text
