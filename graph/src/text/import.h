// Turning parsed ops into Graph nodes: the state of one function being read, and the
// conversions shared by the TTIR and StableHLO importers.
#pragma once

#include "text/syntax.h"
#include "tilesat/graph/builder.h"
#include "tilesat/graph/graph.h"

#include <functional>
#include <optional>
#include <span>
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
  /// The scope a region is nested in (of the same graph): names not defined in the region
  /// are looked up there.
  FunctionScope* outer = nullptr;
};

/// The node of `%name` (an argument or an earlier op); throws "use of undefined value".
NodeId lookup_value(FunctionScope& s, const OperandRef& ref);
/// Checks that `rec.result` is new in the scope and records it (with `id` when not empty).
void define_result(FunctionScope& s, const OpRecord& rec, std::optional<NodeId> id);
/// Records `rec.result` as another name of `id` (an op that only moves a value).
void define_alias(FunctionScope& s, const OpRecord& rec, NodeId id);
/// Records each result name of `rec` (`rec.results`, or `rec.result` alone) as a name of the
/// node at the same index of `ids`, checking it against its declared type; `producer` says
/// where the values come from in errors ("@f returns").
void define_results(FunctionScope& s, const OpRecord& rec, std::span<const NodeId> ids,
                    std::string_view producer);
/// The value of a one-element node computed from constants only (a constant, or a few ops
/// on constants such as JAX's `select(i < 0, i + n, i)`), by the reference interpreter; nullopt
/// when it depends on an argument (fold.cpp).
std::optional<double> folded_scalar(const Graph& g, NodeId id);
/// `f`'s ops copied into `into` on its values `args` (the nodes keep `f`'s locations): the
/// values of `f`'s results.
std::vector<NodeId> inline_graph(Graph& into, const Graph& f, std::span<const NodeId> args);
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
/// Whether a dot_general over `rec`'s operand types is one matmul (one contracted dim among
/// the last two of each operand, batch dims leading); if so, sets its transpose_a and
/// transpose_b.
bool matmul_transposes(const OpRecord& rec, const DotDims& d, Attrs& attrs);
/// Defines `rec`'s result as any other dot_general: each side's batch, free and contracted dims
/// permuted into place and flattened, one batched matmul, reshaped to [batch..., lhs free...,
/// rhs free...]. Throws naming the op when dims are out of range, repeated or of different
/// extents.
void define_general_dot(FunctionScope& s, OpRecord& rec, const DotDims& d);

/// `ttir.*` ops (generic and custom form, legacy destination-passing included).
void import_ttir_op(FunctionScope& s, OpRecord& rec);
/// A tt-mlir op outside the op table (`op` without its prefix) expanded into table ops
/// (ttir_composite.cpp, listed by `ttir_composite_ops()`); false when `op` is no such op.
bool import_ttir_composite(FunctionScope& s, OpRecord& rec, std::string_view op);
/// The expansion of the tt-mlir composite `op` (a name of `ttir_composite_ops()`) over `x`,
/// its attributes read from `rec`.
Value build_ttir_composite(Builder& b, std::string_view op, std::vector<Value> x,
                           const OpRecord& rec);
/// Defines `rec`'s result as what `build` adds to the function's graph: every new node carries
/// `rec.loc`, the result must have the declared shape (a differing element type is a
/// typecast), and an error without a location is reported at the op as
/// "'<op>' (read as <reading>): ...".
void define_expansion(FunctionScope& s, const OpRecord& rec, std::string_view reading,
                      const std::function<Value(Builder&)>& build);
/// define_expansion for an op of several results (`rec.results`), one value per result.
void define_expansions(FunctionScope& s, const OpRecord& rec, std::string_view reading,
                       const std::function<std::vector<Value>(Builder&)>& build);
/// `x` with `low` and `high` elements of `value` concatenated before and after dim `d`
/// (both at least 0).
Value pad_dim(Builder& b, Value x, int64_t d, int64_t low, int64_t high, double value);
/// A constant of `rec`'s result type counting from `start` by `step` along dim `d`; throws
/// naming the op when it has more than 2^26 elements.
Value counting_constant(Builder& b, const OpRecord& rec, int64_t d, double start, double step);

/// `ttnn.*` ops: TTIR ops by another prefix, plus matmul activations, linear and layout
/// changes; placement attributes are dropped.
void import_ttnn_op(FunctionScope& s, OpRecord& rec);
/// `stablehlo.*` ops, converted to TTIR on the way in.
void import_stablehlo_op(FunctionScope& s, OpRecord& rec);
/// stablehlo.dynamic_slice / dynamic_update_slice whose start indices fold to constants
/// (stablehlo_dynamic_slice.cpp): a slice, or slices around the update concatenated.
void import_dynamic_slice(FunctionScope& s, OpRecord& rec);
void import_dynamic_update_slice(FunctionScope& s, OpRecord& rec);
/// stablehlo.reduce of a value and an index operand whose reducer region picks the larger
/// (argmax) or smaller (argmin) value and the smaller index on ties (stablehlo_arg_reduce.cpp).
void import_arg_reduce(FunctionScope& s, OpRecord& rec);
/// stablehlo.while unrolled: its trip count must be known from constants. `cond` reads the
/// condition on one trip's values (its predicate), `body` the body (the next values)
/// (stablehlo_while.cpp).
void import_while(FunctionScope& s, OpRecord& rec,
                  const std::function<NodeId(std::span<const NodeId>)>& cond,
                  const std::function<std::vector<NodeId>(std::span<const NodeId>)>& body);
/// Throws at the first custom-form value (`dense<...>`, a keyword) of an op that takes none.
void reject_positional(const OpRecord& rec);
/// The `dimensions` of a stablehlo.reduce over an operand of `rank`, checked.
std::vector<int64_t> reduce_dimensions(const OpRecord& rec, int64_t rank);

} // namespace tilesat::text
