// stablehlo.while whose trip count is known when it is read (lax.fori_loop with constant
// bounds, nn.scan over stacked layers): the loop unrolled.
//
//   %r:2 = stablehlo.while(%i = %c0, %x = %arg0) : tensor<i32>, tensor<4xf32>
//     cond { %p = stablehlo.compare LT, %i, %c3 ... stablehlo.return %p : tensor<i1> }
//     do { ... stablehlo.return %i1, %x1 : tensor<i32>, tensor<4xf32> }
//
// Before each trip the condition is read on the loop values and its predicate folded by the
// reference interpreter: it must depend on constants only (a counter and a bound), else the
// loop is an error naming it. The body is then read on the trip's values; a one-element loop
// value it computes from constants only (the counter) is replaced by a constant of its value,
// so start indices that depend on it (a scan's dynamic_slice of layer i) fold as well.
#include "text/import.h"

#include <fmt/format.h>

namespace tilesat::text {
namespace {

/// Trips and nodes past which a loop is not unrolled.
constexpr int64_t kMaxTrips = 4096;
constexpr size_t kMaxUnrolledNodes = size_t{1} << 20;

} // namespace

void import_while(FunctionScope& s, OpRecord& rec,
                  const std::function<NodeId(std::span<const NodeId>)>& cond,
                  const std::function<std::vector<NodeId>(std::span<const NodeId>)>& body) {
  std::vector<NodeId> values = resolve_operands(s, rec);
  std::vector<TensorType> types;
  for (NodeId v : values) types.push_back(s.graph.node(v).type);
  for (int64_t trip = 0;; ++trip) {
    std::optional<double> go = folded_scalar(s.graph, cond(values));
    if (!go) {
      throw Error(rec.loc, fmt::format("'{}': its condition does not fold to a constant before "
                                       "trip {}; tilesat unrolls loops whose trip count is known "
                                       "from constants (the values the condition reads must not "
                                       "depend on the function's arguments)",
                                       rec.name, trip));
    }
    if (*go == 0) break;
    if (trip == kMaxTrips || s.graph.num_nodes() > kMaxUnrolledNodes) {
      throw Error(rec.loc, fmt::format("'{}' runs more than {} trips or {} nodes: too many to "
                                       "unroll",
                                       rec.name, kMaxTrips, kMaxUnrolledNodes));
    }
    values = body(values);
    if (values.size() != types.size()) {
      throw Error(rec.loc, fmt::format("'{}': its body returns {} values for {} loop values",
                                       rec.name, values.size(), types.size()));
    }
    for (size_t i = 0; i < values.size(); ++i) {
      const Node& n = s.graph.node(values[i]);
      if (!n.type.same_value_type(types[i])) {
        throw Error(rec.loc, fmt::format("'{}': its body returns {} for loop value #{} of type {}",
                                         rec.name, n.type.str(), i, types[i].str()));
      }
      if (n.kind == OpKind::Constant || n.type.shape.numel() != 1) continue;
      if (std::optional<double> k = folded_scalar(s.graph, values[i])) {
        values[i] = Builder(s.graph).constant(n.type.shape, {*k}, n.type.dtype).id;
        s.graph.mutable_node(values[i]).loc = rec.loc;
      }
    }
  }
  define_results(s, rec, values, "the loop gives");
}

} // namespace tilesat::text
