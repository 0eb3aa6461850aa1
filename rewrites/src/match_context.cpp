// match_context.cpp: argument access for guards and appliers, the left side's inner classes,
// and type-checked e-node creation.
#include "tilesat/rewrites/match_context.h"

#include "tilesat/graph/diagnostic.h"
#include "tilesat/rewrites/payload.h"

#include <fmt/format.h>

namespace tilesat::rewrites {

MatchContext::MatchContext(const egraph::EGraph& eg, const TensorAnalysis& facts, egraph::Id root,
                           const egraph::Subst& subst, std::span<const RuleArg> args,
                           std::span<const egraph::Var> vars, const egraph::Pattern* lhs)
    : eg_(eg), facts_(facts), root_(eg.find(root)), subst_(subst), args_(args), lhs_(lhs) {
  size_t next = 0;
  for (const RuleArg& a : args_) {
    if (a.var.empty()) {
      arg_vars_.emplace_back();
    } else {
      if (next >= vars.size()) throw InternalError("match context: fewer variables than args");
      arg_vars_.emplace_back(vars[next++]);
    }
  }
}

egraph::Id MatchContext::cls(size_t i) const {
  if (i >= args_.size() || args_[i].kind != ParamKind::Tensor || !arg_vars_[i]) {
    throw InternalError(fmt::format("match context: argument {} is not a tensor", i));
  }
  return eg_.find(subst_[*arg_vars_[i]]);
}

const egraph::AttrValue& MatchContext::attr(size_t i) const {
  if (i >= args_.size() || args_[i].kind != ParamKind::Attr) {
    throw InternalError(fmt::format("match context: argument {} is not an attribute", i));
  }
  if (!arg_vars_[i]) return args_[i].literal;
  return subst_.attr(*arg_vars_[i]);
}

std::optional<std::vector<int64_t>> MatchContext::int_list(size_t i) const {
  const egraph::AttrValue& v = attr(i);
  if (v.kind() != egraph::AttrValue::Kind::kIntList) return std::nullopt;
  return v.as_int_list();
}

std::optional<int64_t> MatchContext::integer(size_t i) const {
  const egraph::AttrValue& v = attr(i);
  if (!v.is_int()) return std::nullopt;
  return v.as_int();
}

std::optional<double> MatchContext::number(size_t i) const {
  const egraph::AttrValue& v = attr(i);
  if (v.kind() == egraph::AttrValue::Kind::kDouble) return v.as_double();
  if (v.is_rational()) {
    egraph::Rational r = v.as_rational();
    return static_cast<double>(r.num) / static_cast<double>(r.den);
  }
  return std::nullopt;
}

bool MatchContext::match(uint32_t pi, egraph::Id cls, std::vector<egraph::Id>& classes,
                         egraph::NodeId* root_node) const {
  const egraph::PatternNode& p = lhs_->nodes()[pi];
  cls = eg_.find(cls);
  switch (p.kind) {
  case egraph::PatternNode::Kind::kVar:
    return eg_.find(subst_[p.var]) == cls;
  case egraph::PatternNode::Kind::kLiteral:
    return true;
  case egraph::PatternNode::Kind::kOp:
    break;
  }
  for (egraph::NodeId n : eg_.nodes_with_op(cls, p.op)) {
    egraph::ENode node = eg_.node(n);
    if (node.arity() != p.children.size()) continue;
    const egraph::Attrs& payload = eg_.attrs(node.attrs);
    bool ok = true;
    for (const egraph::PatternAttr& a : p.attrs) {
      const egraph::AttrValue* v = payload.find(a.key);
      if (v == nullptr || *v != (a.is_var ? subst_.attr(a.var) : a.value)) {
        ok = false;
        break;
      }
    }
    for (size_t c = 0; ok && c < p.children.size(); ++c) {
      ok = match(p.children[c], node.children[c], classes, nullptr);
    }
    if (!ok) continue;
    classes[pi] = cls;
    if (root_node != nullptr) *root_node = n;
    return true;
  }
  return false;
}

std::vector<egraph::Id> MatchContext::inner_classes() const {
  std::vector<egraph::Id> out;
  if (lhs_ == nullptr) return out;
  std::vector<egraph::Id> classes(lhs_->nodes().size(), egraph::kNoId);
  egraph::NodeId root_node = egraph::kNoId;
  if (!match(lhs_->root(), root_, classes, &root_node)) return out;
  for (uint32_t i = 0; i < lhs_->root(); ++i) {
    if (lhs_->nodes()[i].kind == egraph::PatternNode::Kind::kOp && classes[i] != egraph::kNoId) {
      out.push_back(classes[i]);
    }
  }
  return out;
}

std::vector<egraph::Id> MatchContext::leaf_classes() const {
  std::vector<egraph::Id> out;
  if (lhs_ == nullptr) return out;
  for (const egraph::PatternNode& p : lhs_->nodes()) {
    if (p.kind == egraph::PatternNode::Kind::kVar) out.push_back(eg_.find(subst_[p.var]));
  }
  return out;
}

egraph::NodeId MatchContext::root_node() const {
  if (lhs_ == nullptr) return egraph::kNoId;
  std::vector<egraph::Id> classes(lhs_->nodes().size(), egraph::kNoId);
  egraph::NodeId root_node = egraph::kNoId;
  if (!match(lhs_->root(), root_, classes, &root_node)) return egraph::kNoId;
  return root_node;
}

std::optional<TensorType> ApplyContext::type_of(OpKind kind, std::span<const egraph::Id> children,
                                                const Attrs& attrs) const {
  const OpInfo& info = op_info(kind);
  int arity = static_cast<int>(children.size());
  if (arity < info.min_operands || (info.max_operands >= 0 && arity > info.max_operands)) {
    return std::nullopt;
  }
  std::vector<const TensorType*> operands;
  for (egraph::Id c : children) operands.push_back(&analysis()[mut_.find(c)].type);
  try {
    Attrs complete = complete_attrs(kind, attrs);
    return info.infer(InferArgs{operands, complete});
  } catch (const Error&) {
    return std::nullopt;
  }
}

egraph::Id ApplyContext::add(OpKind kind, std::span<const egraph::Id> children,
                             const Attrs& attrs) {
  if (!type_of(kind, children, attrs)) return egraph::kNoId;
  egraph::AttrId p = mut_.intern_attrs(to_payload(kind, attrs));
  return mut_.add(op_symbol(kind), children, p);
}

egraph::Id ApplyContext::if_fits_root(egraph::Id id) const {
  if (id == egraph::kNoId) return id;
  const TensorType& t = analysis()[mut_.find(id)].type;
  return t.same_value_type(root().type) ? id : egraph::kNoId;
}

bool ApplyContext::unite(egraph::Id cls, egraph::Id id) {
  if (cls == egraph::kNoId || id == egraph::kNoId) return false;
  const TensorType& a = analysis()[mut_.find(cls)].type;
  if (!a.same_value_type(analysis()[mut_.find(id)].type)) return false;
  return mut_.merge(cls, id, egraph::Justification::rule(rule_));
}

} // namespace tilesat::rewrites
