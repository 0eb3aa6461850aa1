// tensor_rule.cpp: guards, computed right sides and type-checked right-side patterns.
#include "tensor_rule.h"

#include "tilesat/graph/diagnostic.h"
#include "tilesat/rewrites/payload.h"

#include <fmt/format.h>

namespace tilesat::rewrites::detail {
namespace {

const TensorAnalysis& analysis_of(const egraph::EGraph& eg) {
  const auto* a = eg.find_analysis<TensorAnalysis>();
  if (a == nullptr) throw InternalError("tensor rule run on an e-graph without TensorAnalysis");
  return *a;
}

std::vector<std::string> var_args(const std::vector<RuleArg>& args) {
  std::vector<std::string> out;
  for (const RuleArg& a : args) {
    if (!a.var.empty()) out.push_back(a.var);
  }
  return out;
}

} // namespace

TensorGuard::TensorGuard(const GuardDef& def, std::vector<RuleArg> args,
                         std::shared_ptr<const egraph::Pattern> lhs)
    : def_(def), args_(std::move(args)), lhs_(std::move(lhs)) {}

std::vector<std::string> TensorGuard::var_names() const {
  return var_args(args_);
}

egraph::Verdict TensorGuard::check(const egraph::EGraph& eg, egraph::Id root,
                                   const egraph::Subst& subst,
                                   std::span<const egraph::Var> vars) const {
  MatchContext m(eg, analysis_of(eg), root, subst, args_, vars, lhs_.get());
  return def_.check(m);
}

ComputedRhs::ComputedRhs(const ApplierDef& def, std::vector<RuleArg> args,
                         std::shared_ptr<const egraph::Pattern> lhs, egraph::Symbol rule)
    : def_(def), args_(std::move(args)), lhs_(std::move(lhs)), rule_(rule) {}

std::vector<std::string> ComputedRhs::var_names() const {
  return var_args(args_);
}

egraph::Id ComputedRhs::apply_one(egraph::EGraph& eg, egraph::Id root, const egraph::Subst& subst,
                                  std::span<const egraph::Var> vars) const {
  ApplyContext c(eg, analysis_of(eg), root, subst, args_, vars, lhs_.get());
  c.set_rule(rule_);
  return def_.apply(c);
}

PatternRhs::PatternRhs(std::shared_ptr<const egraph::Pattern> rhs,
                       std::shared_ptr<const egraph::Pattern> lhs)
    : rhs_(std::move(rhs)), lhs_(std::move(lhs)), names_(rhs_->var_names()) {}

egraph::Id PatternRhs::apply_one(egraph::EGraph& eg, egraph::Id root, const egraph::Subst& subst,
                                 std::span<const egraph::Var> vars) const {
  const TensorAnalysis& facts = analysis_of(eg);
  ApplyContext c(eg, facts, root, subst, {}, {}, lhs_.get());
  const auto& nodes = rhs_->nodes();
  // The graph attributes of the matched left root's opaque entries, inherited by our root.
  Attrs inherited;
  if (egraph::NodeId ln = c.root_node(); ln != egraph::kNoId) {
    egraph::ENode lnode = eg.node(ln);
    if (std::optional<OpKind> lk = op_of(lnode.op)) {
      for (const egraph::Attr& a : eg.attrs(lnode.attrs).entries()) {
        if (attr_kind_of(*lk, a.key.str()) != AttrKind::Opaque) continue;
        inherited.set(std::string(a.key.str()),
                      from_egraph_value(a.value, AttrKind::Opaque, a.key.str()));
      }
    }
  }
  // First pass: types and attributes only, so nothing is added for a declined match.
  struct Planned {
    OpKind kind = OpKind::Argument;
    Attrs attrs;
    egraph::Id cls = egraph::kNoId; // variables
  };
  std::vector<Planned> plan(nodes.size());
  std::vector<TensorType> types(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const egraph::PatternNode& p = nodes[i];
    if (p.kind == egraph::PatternNode::Kind::kVar) {
      plan[i].cls = eg.find(subst[vars[p.var.index]]);
      types[i] = facts[plan[i].cls].type;
      continue;
    }
    if (p.kind != egraph::PatternNode::Kind::kOp) return egraph::kNoId;
    std::optional<OpKind> kind = op_of(p.op);
    if (!kind) return egraph::kNoId;
    plan[i].kind = *kind;
    if (i + 1 == nodes.size()) {
      for (const auto& [k, v] : inherited.entries()) {
        if (op_info(*kind).attr_spec(k) == nullptr) plan[i].attrs.set(k, v);
      }
    }
    for (const egraph::PatternAttr& a : p.attrs) {
      const egraph::AttrValue& v = a.is_var ? subst.attr(vars[a.var.index]) : a.value;
      std::string_view key = a.key.str();
      try {
        plan[i].attrs.set(std::string(key), from_egraph_value(v, attr_kind_of(*kind, key), key));
      } catch (const InternalError&) {
        return egraph::kNoId; // a bound value of another kind: this match does not fit
      }
    }
    std::vector<const TensorType*> operands;
    for (uint32_t ch : p.children) operands.push_back(&types[ch]);
    const OpInfo& info = op_info(*kind);
    try {
      Attrs complete = complete_attrs(*kind, plan[i].attrs);
      int arity = static_cast<int>(operands.size());
      if (arity < info.min_operands || (info.max_operands >= 0 && arity > info.max_operands)) {
        return egraph::kNoId;
      }
      types[i] = info.infer(InferArgs{operands, complete});
    } catch (const Error&) {
      return egraph::kNoId;
    }
  }
  if (!types.back().same_value_type(c.root().type)) return egraph::kNoId;
  // Second pass: add.
  std::vector<egraph::Id> ids(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (plan[i].cls != egraph::kNoId) {
      ids[i] = plan[i].cls;
      continue;
    }
    std::vector<egraph::Id> children;
    for (uint32_t ch : nodes[i].children) children.push_back(ids[ch]);
    egraph::AttrId payload = eg.intern_attrs(to_payload(plan[i].kind, plan[i].attrs));
    ids[i] = eg.add(op_symbol(plan[i].kind), children, payload);
  }
  return ids.back();
}

} // namespace tilesat::rewrites::detail
