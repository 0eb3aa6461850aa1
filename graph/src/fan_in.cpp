// fan_in.cpp: which arguments are contraction weights, and over how many values each
// contraction sums (the scale RandomInit::FanIn draws them with); which are variances.
#include "tilesat/graph/interpreter.h"

#include <algorithm>

namespace tilesat {

namespace {

/// Ops that only move, select or retype values: a weight seen through them is still a weight
/// (an ONNX LSTM's W [1, 4H, I] reaches its matmul through a slice and a reshape).
bool passes_weight(OpKind k) {
  return op_info(k).has_trait(OpTrait::DataMovement) || k == OpKind::Typecast;
}

/// The fan-in of `value` when it is operand `index` of `user`, else 0.
int64_t fan_in_of_use(const Graph& g, const Node& user, size_t index, NodeId value) {
  if (index != 1) return 0;
  const Shape& s = g.node(value).type.shape;
  if (user.kind == OpKind::Conv2d && s.rank() == 4 && s[0] > 0) return s.numel() / s[0];
  if ((user.kind == OpKind::Matmul || user.kind == OpKind::Linear) && s.rank() >= 2) {
    bool transposed = user.attrs.get_or<bool>("transpose_b", false);
    return s[transposed ? s.rank() - 1 : s.rank() - 2];
  }
  return 0;
}

/// The largest fan-in of `value` over its uses, following data movement.
int64_t fan_in_of(const Graph& g, NodeId value, int depth) {
  int64_t best = 0;
  for (NodeId u : g.users(value)) {
    const Node& user = g.node(u);
    for (size_t i = 0; i < user.operands.size(); ++i) {
      if (user.operands[i] == value) best = std::max(best, fan_in_of_use(g, user, i, value));
    }
    // Depth-bounded: a chain of data movement is short in any real graph.
    if (passes_weight(user.kind) && depth < 8) best = std::max(best, fan_in_of(g, u, depth + 1));
  }
  return best;
}

/// Whether `value` reaches a square root, reciprocal square root or log through data
/// movement, typecasts and additions (a batch norm's running variance: sqrt(var + eps)).
bool under_root(const Graph& g, NodeId value, int depth) {
  for (NodeId u : g.users(value)) {
    const OpKind k = g.node(u).kind;
    if (k == OpKind::Sqrt || k == OpKind::Rsqrt || k == OpKind::Log) return true;
    if ((passes_weight(k) || k == OpKind::Add) && depth < 8 && under_root(g, u, depth + 1))
      return true;
  }
  return false;
}

} // namespace

std::vector<bool> argument_under_root(const Graph& g) {
  std::vector<bool> out;
  for (NodeId a : g.arguments()) out.push_back(under_root(g, a, 0));
  return out;
}

std::vector<int64_t> argument_fan_in(const Graph& g) {
  std::vector<int64_t> out;
  for (NodeId a : g.arguments()) out.push_back(fan_in_of(g, a, 0));
  return out;
}

} // namespace tilesat
