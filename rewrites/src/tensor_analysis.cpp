// tensor_analysis.cpp: per-class type, splat value, source users and argument flag.
#include "tilesat/rewrites/tensor_analysis.h"

#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/op.h"
#include "tilesat/rewrites/payload.h"
#include "tilesat/rewrites/term_language.h"

#include <fmt/format.h>

namespace tilesat::rewrites {
namespace {

// The splat value of an op's result when it is determined by its operands' splats.
std::optional<double> splat_of(OpKind kind, const Attrs& attrs,
                               const std::vector<const TensorFacts*>& children) {
  switch (kind) {
  case OpKind::Full:
    return attrs.get<double>("fill_value");
  case OpKind::Constant: {
    const auto& v = attrs.get<std::vector<double>>("value");
    if (v.empty()) return std::nullopt;
    for (double x : v) {
      if (x != v[0]) return std::nullopt;
    }
    return v[0];
  }
  // Moving or repeating elements keeps a splat a splat.
  case OpKind::Reshape:
  case OpKind::Broadcast:
  case OpKind::Transpose:
  case OpKind::Permute:
  case OpKind::Slice:
    return children[0]->splat;
  default:
    return std::nullopt;
  }
}

} // namespace

TensorAnalysis::TensorAnalysis(std::vector<TensorType> argument_types)
    : argument_types_(std::move(argument_types)) {}

const Attrs& TensorAnalysis::attrs_of(const egraph::EGraph& eg, const egraph::ENode& node) const {
  if (attr_cache_.size() <= node.attrs) attr_cache_.resize(node.attrs + 1);
  std::optional<Attrs>& slot = attr_cache_[node.attrs];
  if (!slot) {
    std::optional<OpKind> kind = op_of(node.op);
    if (!kind) throw InternalError(fmt::format("tensor e-graph: unknown op '{}'", node.op.str()));
    // An argument's payload is its index, not op attributes.
    slot = *kind == OpKind::Argument ? Attrs{} : complete_from_payload(*kind, eg.attrs(node.attrs));
  }
  return *slot;
}

TensorType infer_node_type(const egraph::EGraph& eg, const TensorAnalysis& facts,
                           const egraph::ENode& node) {
  std::optional<OpKind> kind = op_of(node.op);
  if (!kind) throw InternalError(fmt::format("tensor e-graph: unknown op '{}'", node.op.str()));
  const OpInfo& info = op_info(*kind);
  int arity = static_cast<int>(node.arity());
  if (arity < info.min_operands || (info.max_operands >= 0 && arity > info.max_operands)) {
    throw Error(fmt::format("'ttir.{}': expected {} operands, got {}", info.name, info.min_operands,
                            arity));
  }
  std::vector<const TensorType*> operands;
  for (egraph::Id c : node.children) operands.push_back(&facts[eg.find(c)].type);
  const Attrs& attrs = facts.attrs_of(eg, node);
  try {
    return info.infer(InferArgs{operands, attrs});
  } catch (const Error& e) {
    throw Error(fmt::format("'ttir.{}': {}", info.name, e.diagnostic().message));
  }
}

TensorFacts TensorAnalysis::make(const egraph::EGraph& eg, const egraph::ENode& node) const {
  TensorFacts f;
  f.users = 1;
  std::optional<OpKind> kind = op_of(node.op);
  if (!kind) throw InternalError(fmt::format("tensor e-graph: unknown op '{}'", node.op.str()));
  if (*kind == OpKind::Argument) {
    const egraph::AttrValue* index = eg.attrs(node.attrs).find(argument_index_attr());
    if (index == nullptr || !index->is_int() || index->as_int() < 0 ||
        static_cast<size_t>(index->as_int()) >= argument_types_.size()) {
      throw InternalError("tensor e-graph: argument without a valid index");
    }
    f.type = argument_types_[static_cast<size_t>(index->as_int())];
    f.type.encoding.clear();
    f.is_argument = true;
    return f;
  }
  try {
    f.type = infer_node_type(eg, *this, node);
  } catch (const Error& e) {
    // Appliers type-check every node before adding it, so this is a defect of tilesat.
    throw InternalError(fmt::format("tensor e-graph: ill-typed e-node: {}", e.what()));
  }
  std::vector<const TensorFacts*> children;
  for (egraph::Id c : node.children) children.push_back(&(*this)[eg.find(c)]);
  f.splat = splat_of(*kind, attrs_of(eg, node), children);
  return f;
}

egraph::DidMerge TensorAnalysis::merge(TensorFacts& a, TensorFacts b) const {
  if (!a.type.same_value_type(b.type)) {
    throw InternalError(fmt::format("tensor e-graph: merged values of types {} and {} (an unsound "
                                    "rewrite)",
                                    a.type.str(), b.type.str()));
  }
  egraph::DidMerge d;
  if (!a.splat && b.splat) {
    a.splat = b.splat;
    d.into_changed = true;
  } else if (a.splat && !b.splat) {
    d.from_changed = true;
  }
  // The source value's facts win over those of a node a rewrite made (users 1, no exit).
  if (b.users > a.users || (b.users == a.users && a.exits.empty() && !b.exits.empty())) {
    a.users = b.users;
    a.exits = std::move(b.exits);
    a.region = std::move(b.region);
    d.into_changed = true;
  } else if (a.users > b.users || (!a.exits.empty() && b.exits.empty())) {
    d.from_changed = true;
  }
  if (b.is_argument && !a.is_argument) {
    a.is_argument = true;
    d.into_changed = true;
  } else if (a.is_argument && !b.is_argument) {
    d.from_changed = true;
  }
  return d;
}

void TensorAnalysis::set_source_users(egraph::Id cls, uint32_t users) {
  data_mut(cls).users = users;
}

void TensorAnalysis::set_source_exits(egraph::Id cls, std::vector<egraph::Id> exits,
                                      std::vector<std::pair<egraph::Id, uint32_t>> region) {
  TensorFacts& f = data_mut(cls);
  f.exits = std::move(exits);
  f.region = std::move(region);
}

uint32_t shared_users(const egraph::EGraph& eg, const TensorAnalysis& facts, egraph::Id cls,
                      int depth) {
  // Breadth first, each class once: a class whose reshapes and permutes are merged back into
  // it (or into each other) has many such parents, and walking every path to `depth` was
  // their number to that power.
  std::vector<egraph::Id> seen{eg.find(cls)}, level = seen, next;
  uint32_t users = facts[seen[0]].users;
  for (int d = 0; d < depth && !level.empty(); ++d) {
    next.clear();
    for (egraph::Id c : level)
      for (egraph::NodeId p : eg.eclass(c).parents) {
        std::optional<OpKind> k = op_of(eg.node(p).op);
        if (k != OpKind::Reshape && k != OpKind::Permute && k != OpKind::Transpose) continue;
        egraph::Id up = eg.find(p);
        if (std::find(seen.begin(), seen.end(), up) != seen.end()) continue;
        seen.push_back(up);
        next.push_back(up);
        users = std::max(users, facts[up].users);
      }
    std::swap(level, next);
  }
  return users;
}

} // namespace tilesat::rewrites
