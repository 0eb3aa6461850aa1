// check_rules.cpp: small instances of each rule's left side, the rule fired on them, and Z3
// asked whether the two sides can differ.
#include "tilesat/egraph/multipattern.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/rewrites/builtins.h"
#include "tilesat/rewrites/payload.h"
#include "tilesat/rewrites/soundness.h"
#include "tilesat/rewrites/tensor_analysis.h"
#include "z3_tensor.h"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>

namespace tilesat::rewrites {
namespace {

using egraph::PatternNode;

// Instances tried per rule, and instances that must fire and be proved.
constexpr size_t kMaxTries = 60'000;
constexpr size_t kInstancesWanted = 12;

const std::vector<Shape>& candidate_shapes() {
  static const std::vector<Shape> s = {Shape{2, 3}, Shape{3, 2}, Shape{3}, Shape{1, 3}, Shape{2, 1},
                                       Shape{3, 3}, Shape{}, Shape{2, 3, 3}, Shape{2, 2, 3},
                                       // Attention heads: [B, S, 2 parts x H x D], [B, H, S, D].
                                       Shape{1, 2, 4}, Shape{1, 2, 2, 2}};
  return s;
}

// How a class variable is instantiated: an argument, or a splat constant 0 or 1.
struct LeafChoice {
  Shape shape;
  int kind = 0; // 0: argument, 1: full 0, 2: full 1
};

// Constants are tried only where a guard asks for one: a splat would hide data movement bugs.
std::vector<LeafChoice> leaf_domain(bool constants) {
  std::vector<LeafChoice> d;
  for (int kind = 0; kind < (constants ? 3 : 1); ++kind) {
    for (const Shape& s : candidate_shapes()) d.push_back({s, kind});
  }
  return d;
}

using IntList = std::vector<int64_t>;

// Values an attribute variable takes, by the attribute it stands for.
std::optional<std::vector<egraph::AttrValue>> attr_domain(std::string_view key, AttrKind kind) {
  std::vector<egraph::AttrValue> d;
  auto lists = [&](std::initializer_list<IntList> ls) {
    for (const IntList& l : ls) d.emplace_back(l);
  };
  if (kind == AttrKind::Bool) return std::vector<egraph::AttrValue>{false, true};
  if (key == "dim0" || key == "dim1") {
    for (int v : {0, 1, 2, -1}) d.emplace_back(v);
  } else if (key == "permutation") {
    lists({{1, 0},
           {0, 1},
           {1, 2, 0},
           {2, 0, 1},
           {0, 2, 1},
           {1, 0, 2},
           {2, 1, 0},
           {0, 1, 2},
           {0, 2, 1, 3},
           {0, 2, 3, 1}});
  } else if (key == "shape") {
    lists({{2, 3},
           {3, 2},
           {6},
           {3, 3},
           {2, 3, 3},
           {2, 2, 3},
           {1, 2, 3},
           {3, 1, 2},
           {9},
           {1, 6},
           {1, 2, 1, 2},
           {1, 2, 2, 1},
           {1, 2, 4}});
  } else if (key == "dims" || key == "broadcast_dims") {
    lists({{}, {0}, {1}, {0, 1}, {1, 0}, {1, 2}, {0, 2}});
  } else if (key == "activation") {
    for (const char* a : {"", "relu"}) d.emplace_back(std::string(a));
  } else if (key == "begins" || key == "ends") {
    lists({{0, 0},
           {0, 1},
           {1, 2},
           {0, 3},
           {2, 3},
           {1, 1},
           {0, 0, 1},
           {1, 2, 3},
           {0, 1, 2},
           {0, 0, 2},
           {1, 2, 4}});
  } else if (key == "dim_arg") {
    lists({{0}, {1}, {-1}, {}});
  } else if (kind == AttrKind::Int) {
    for (int v : {0, 1, -1}) d.emplace_back(v);
  } else if (kind == AttrKind::Float) {
    for (double v : {0.0, 1.0}) d.emplace_back(v);
  } else {
    return std::nullopt;
  }
  return d;
}

std::string shape_text(const Shape& s) {
  return s.rank() == 0 ? "scalar" : s.str();
}

// What an instance is built from: a pattern, or every part of a multi-pattern, as one list of
// nodes (children first) whose variables are the rule's. A multi-pattern's root variables are
// no leaves: each stands for the class its part's root node builds.
class LeftSide {
public:
  explicit LeftSide(const egraph::Pattern& p)
      : nodes_(p.nodes()), roots_{p.root()}, root_vars_{kNoRootVar}, names_(p.var_names()),
        num_class_vars_(p.num_class_vars()) {}
  explicit LeftSide(const egraph::MultiPattern& mp)
      : names_(mp.var_names()), num_class_vars_(mp.num_class_vars()) {
    for (const egraph::MultiPattern::Part& part : mp.parts()) {
      auto offset = static_cast<uint32_t>(nodes_.size());
      for (PatternNode n : part.pattern.nodes()) {
        if (n.kind == PatternNode::Kind::kVar) n.var = part.vars[n.var.index];
        for (egraph::PatternAttr& a : n.attrs) {
          if (a.is_var) a.var = part.vars[a.var.index];
        }
        for (uint32_t& c : n.children) c += offset;
        nodes_.push_back(std::move(n));
      }
      roots_.push_back(offset + part.pattern.root());
      root_vars_.push_back(part.root.index);
    }
  }

  static constexpr uint32_t kNoRootVar = ~0u;
  const std::vector<PatternNode>& nodes() const { return nodes_; }
  /// Each part's root node, and the root variable it binds (kNoRootVar for a pattern).
  const std::vector<uint32_t>& roots() const { return roots_; }
  const std::vector<uint32_t>& root_vars() const { return root_vars_; }
  bool is_root_var(uint32_t v) const {
    return std::find(root_vars_.begin(), root_vars_.end(), v) != root_vars_.end();
  }
  const std::vector<std::string>& var_names() const { return names_; }
  uint32_t num_class_vars() const { return num_class_vars_; }
  uint32_t num_attr_vars() const { return static_cast<uint32_t>(names_.size()) - num_class_vars_; }

private:
  std::vector<PatternNode> nodes_;
  std::vector<uint32_t> roots_, root_vars_;
  std::vector<std::string> names_;
  uint32_t num_class_vars_ = 0;
};

class InstanceChecker {
public:
  /// Instances of `instance` (the rule's left side, or a probe term for a rule whose left side
  /// is a bare variable); `constants`: every class variable may also be a splat constant.
  InstanceChecker(const egraph::Rewrite& rule, LeftSide instance, bool constants)
      : rule_(rule), lhs_(std::move(instance)), constants_(constants) {}

  RuleCheck run() {
    RuleCheck out;
    out.rule = rule_.name();
    std::vector<uint32_t> seen_roots;
    for (size_t k = 0; k < lhs_.roots().size(); ++k) {
      if (lhs_.nodes()[lhs_.roots()[k]].kind != PatternNode::Kind::kOp)
        return not_checkable(out, "no op to instantiate");
      uint32_t rv = lhs_.root_vars()[k];
      if (rv == LeftSide::kNoRootVar) continue;
      if (std::find(seen_roots.begin(), seen_roots.end(), rv) != seen_roots.end())
        return not_checkable(out, "two parts share a root (one class holding both terms)");
      seen_roots.push_back(rv);
    }
    // Domains: one per class variable, then one per attribute variable.
    std::vector<size_t> sizes;
    for (uint32_t i = 0; i < lhs_.num_class_vars(); ++i) {
      if (lhs_.is_root_var(i)) { // built by its part, not chosen
        leaves_.push_back({LeafChoice{}});
        sizes.push_back(1);
        continue;
      }
      bool splat = constants_;
      for (const auto& c : rule_.conditions()) {
        std::vector<std::string> vars = c->var_names();
        splat = splat ||
                (c->name() == "splat-equals" && !vars.empty() && vars[0] == lhs_.var_names()[i]);
      }
      leaves_.push_back(leaf_domain(splat));
      sizes.push_back(leaves_.back().size());
    }
    for (uint32_t i = 0; i < lhs_.num_attr_vars(); ++i) {
      std::optional<std::vector<egraph::AttrValue>> d = domain_of(lhs_.num_class_vars() + i);
      if (!d) {
        return not_checkable(out, fmt::format("no small values for attribute variable {}",
                                              lhs_.var_names()[lhs_.num_class_vars() + i]));
      }
      attr_domains_.push_back(std::move(*d));
      sizes.push_back(attr_domains_.back().size());
    }
    // Required attributes the left side leaves open take small values too.
    for (size_t i = 0; i < lhs_.nodes().size(); ++i) {
      const PatternNode& n = lhs_.nodes()[i];
      if (n.kind != PatternNode::Kind::kOp) continue;
      std::optional<OpKind> k = op_of(n.op);
      if (!k) continue;
      for (const AttrSpec& spec : op_info(*k).attrs) {
        if (spec.default_value) continue;
        bool written = false;
        for (const egraph::PatternAttr& a : n.attrs) written = written || a.key.str() == spec.name;
        if (written) continue;
        std::optional<std::vector<egraph::AttrValue>> d = attr_domain(spec.name, spec.kind);
        if (!d) {
          return not_checkable(out, fmt::format("no small values for attribute '{}' of '{}'",
                                                spec.name, op_info(*k).name));
        }
        open_attrs_.push_back({i, std::string(spec.name)});
        attr_domains_.push_back(std::move(*d));
        sizes.push_back(attr_domains_.back().size());
      }
    }
    // Walk the assignments in a scattered order (a stride coprime to their number), so the
    // instances that fire differ in shapes and attributes rather than in the last variable.
    uint64_t total = 1;
    for (size_t n : sizes) total = std::min<uint64_t>(total * n, uint64_t{1} << 40);
    uint64_t stride = 1'000'003;
    while (std::gcd(stride, total) != 1) stride += 2;
    std::vector<size_t> pick(sizes.size(), 0);
    size_t proved = 0;
    std::string instances;
    for (uint64_t t = 0; t < std::min<uint64_t>(total, kMaxTries); ++t) {
      uint64_t code = (t * stride) % total;
      for (size_t d = sizes.size(); d-- > 0;) {
        pick[d] = static_cast<size_t>(code % sizes[d]);
        code /= sizes[d];
      }
      std::optional<std::string> verdict = try_instance(pick, instances);
      if (verdict && !verdict->empty()) {
        out.status = Soundness::Refuted;
        out.detail = *verdict;
        return out;
      }
      if (verdict) ++proved;
      if (proved == kInstancesWanted) break;
    }
    if (proved == 0) {
      return not_checkable(
          out, skipped_.empty()
                   ? "no small instance (shapes up to 2x3x3 and 1x2x2x2, constants 0 and 1) "
                     "on which the rule fires"
                   : "the instances that fire need " + skipped_);
    }
    out.status = Soundness::Proved;
    out.detail = fmt::format("{} instance{}: {}", proved, proved == 1 ? "" : "s", instances);
    return out;
  }

private:
  static RuleCheck not_checkable(RuleCheck c, std::string why) {
    c.status = Soundness::NotCheckable;
    c.detail = std::move(why);
    return c;
  }

  std::optional<std::vector<egraph::AttrValue>> domain_of(uint32_t var) const {
    for (const PatternNode& n : lhs_.nodes()) {
      if (n.kind != PatternNode::Kind::kOp) continue;
      std::optional<OpKind> k = op_of(n.op);
      for (const egraph::PatternAttr& a : n.attrs) {
        if (a.is_var && a.var.index == var && k) {
          return attr_domain(a.key.str(), attr_kind_of(*k, a.key.str()));
        }
      }
    }
    return std::nullopt;
  }

  // nullopt: the instance is ill-typed or the rule did not fire; "": proved; else the
  // counterexample.
  std::optional<std::string> try_instance(const std::vector<size_t>& pick, std::string& log) {
    egraph::EGraph eg;
    std::vector<TensorType> arg_types;
    uint32_t ncv = lhs_.num_class_vars();
    for (uint32_t i = 0; i < ncv; ++i) {
      arg_types.push_back(TensorType{DType::F32, leaves_[i][pick[i]].shape, {}});
    }
    TensorAnalysis& facts = eg.add_analysis<TensorAnalysis>(arg_types);
    std::vector<egraph::Id> var_class(ncv, egraph::kNoId);
    for (uint32_t i = 0; i < ncv; ++i) {
      const LeafChoice& leaf = leaves_[i][pick[i]];
      if (lhs_.is_root_var(i)) continue;
      if (leaf.kind == 0) {
        egraph::Attrs p{{egraph::Symbol::intern("index"), egraph::AttrValue(static_cast<int>(i))}};
        var_class[i] = eg.add(op_symbol(OpKind::Argument), {}, eg.intern_attrs(p));
      } else {
        Attrs a;
        a.set("shape", leaf.shape.dims());
        a.set("fill_value", leaf.kind == 1 ? 0.0 : 1.0);
        var_class[i] =
            eg.add(op_symbol(OpKind::Full), {}, eg.intern_attrs(to_payload(OpKind::Full, a)));
      }
    }
    std::vector<egraph::Id> ids(lhs_.nodes().size());
    for (size_t i = 0; i < lhs_.nodes().size(); ++i) {
      const PatternNode& n = lhs_.nodes()[i];
      if (n.kind == PatternNode::Kind::kVar) {
        ids[i] = var_class[n.var.index];
        if (ids[i] == egraph::kNoId) return std::nullopt; // a root used before its part
        continue;
      }
      if (n.kind != PatternNode::Kind::kOp) return std::nullopt;
      OpKind kind = *op_of(n.op);
      Attrs attrs;
      try {
        for (const egraph::PatternAttr& a : n.attrs) {
          const egraph::AttrValue& v =
              a.is_var ? attr_domains_[a.var.index - ncv][pick[a.var.index]] : a.value;
          attrs.set(std::string(a.key.str()),
                    from_egraph_value(v, attr_kind_of(kind, a.key.str()), a.key.str()));
        }
        for (size_t s = 0; s < open_attrs_.size(); ++s) {
          if (open_attrs_[s].first != i) continue;
          size_t slot = lhs_.num_attr_vars() + s;
          const std::string& key = open_attrs_[s].second;
          attrs.set(key, from_egraph_value(attr_domains_[slot][pick[ncv + slot]],
                                           attr_kind_of(kind, key), key));
        }
        std::vector<const TensorType*> operands;
        for (uint32_t c : n.children) operands.push_back(&facts[eg.find(ids[c])].type);
        const OpInfo& info = op_info(kind);
        if (static_cast<int>(operands.size()) < info.min_operands) return std::nullopt;
        Attrs complete = complete_attrs(kind, attrs);
        info.infer(InferArgs{operands, complete});
      } catch (const Error&) {
        return std::nullopt;
      } catch (const InternalError&) {
        return std::nullopt;
      }
      std::vector<egraph::Id> children;
      for (uint32_t c : n.children) children.push_back(ids[c]);
      ids[i] = eg.add(op_symbol(kind), children, eg.intern_attrs(to_payload(kind, attrs)));
      for (size_t k = 0; k < lhs_.roots().size(); ++k) {
        if (lhs_.roots()[k] == i && lhs_.root_vars()[k] != LeftSide::kNoRootVar)
          var_class[lhs_.root_vars()[k]] = ids[i];
      }
    }
    eg.rebuild();
    egraph::Id root = eg.find(ids[lhs_.roots().front()]);
    egraph::Matches m;
    rule_.search(eg, m, 1000);
    egraph::ApplyResult applied = rule_.apply(eg, m);
    eg.rebuild();
    if (applied.applied == 0) return std::nullopt;
    try {
      return prove(eg, facts, root, pick, log);
    } catch (const Error& e) {
      skipped_ = e.diagnostic().message; // an instance Z3 cannot encode: try others
      return std::nullopt;
    }
  }

  std::optional<std::string> prove(const egraph::EGraph& eg, const TensorAnalysis& facts,
                                   egraph::Id root, const std::vector<size_t>& pick,
                                   std::string& log) {
    std::string shapes;
    for (uint32_t i = 0; i < lhs_.num_class_vars(); ++i) {
      if (lhs_.is_root_var(i)) continue;
      const LeafChoice& leaf = leaves_[i][pick[i]];
      shapes += fmt::format("{}{}={}{}", shapes.empty() ? "" : " ", lhs_.var_names()[i],
                            shape_text(leaf.shape),
                            leaf.kind == 0   ? ""
                            : leaf.kind == 1 ? " zeros"
                                             : " ones");
    }
    for (uint32_t i = 0; i < lhs_.num_attr_vars(); ++i) {
      uint32_t v = lhs_.num_class_vars() + i;
      shapes += fmt::format(" {}={}", lhs_.var_names()[v], attr_domains_[i][pick[v]].to_string());
    }
    for (size_t s = 0; s < open_attrs_.size(); ++s) {
      size_t slot = lhs_.num_attr_vars() + s;
      shapes += fmt::format(" {}={}", open_attrs_[s].second,
                            attr_domains_[slot][pick[lhs_.num_class_vars() + slot]].to_string());
    }
    z3::context ctx;
    soundness::Z3Tensors enc(ctx, eg, facts);
    root = eg.find(root);
    (void)root; // every class is checked: a rule may also fire below the root
    for (egraph::Id cls : eg.classes()) {
      if (eg.eclass(cls).size() < 2) continue;
      const soundness::Elements& reference = enc.of_class(cls);
      for (egraph::NodeId n : eg.eclass(cls).nodes) {
        soundness::Elements other = enc.of_node(n);
        if (other.size() != reference.size()) return std::string("the sides have different sizes");
        z3::solver s(ctx);
        z3::expr differ = ctx.bool_val(false);
        for (size_t i = 0; i < other.size(); ++i) differ = differ || (reference[i] != other[i]);
        s.add(differ);
        s.set("timeout", 10000u);
        z3::check_result r = s.check();
        if (r == z3::unknown) return std::nullopt;
        if (r == z3::sat) {
          z3::model model = s.get_model();
          std::string cex = "with " + shapes + ": ";
          for (size_t i = 0; i < other.size(); ++i) {
            if (model.eval(reference[i] != other[i], true).is_true()) {
              cex += fmt::format("element {}: left {} vs right {}", i,
                                 model.eval(reference[i], true).to_string(),
                                 model.eval(other[i], true).to_string());
              break;
            }
          }
          for (const auto& [cls, elems] : enc.inputs()) {
            cex += fmt::format("; input class {} =", cls);
            for (const z3::expr& e : elems) cex += " " + model.eval(e, true).to_string();
          }
          return cex;
        }
      }
    }
    log += (log.empty() ? "" : "; ") + shapes;
    return std::string();
  }

  const egraph::Rewrite& rule_;
  LeftSide lhs_;
  bool constants_;
  std::vector<std::vector<LeafChoice>> leaves_; // per class variable
  // Attribute variables' domains, then those of open_attrs_.
  std::vector<std::vector<egraph::AttrValue>> attr_domains_;
  std::string skipped_; // why the last firing instance could not be encoded
  // Required attributes the left side does not write: (pattern node, key).
  std::vector<std::pair<size_t, std::string>> open_attrs_;
};

// Elementwise trees that rules with a bare-variable left side (fusion) are tried on.
const std::vector<egraph::Pattern>& probes() {
  static const std::vector<egraph::Pattern> p = [] {
    std::vector<egraph::Pattern> v;
    for (const char* t : {"(relu (add ?a ?b))", "(sigmoid (tanh (exp (neg ?a))))",
                          "(multiply (add (exp ?a) (exp (neg ?a))) ?c)",
                          "(subtract (maximum ?a ?b) (abs (divide ?a ?c)))"}) {
      v.push_back(egraph::Pattern::parse(t));
    }
    return v;
  }();
  return p;
}

RuleCheck check_rule(const egraph::Rewrite& rule) {
  SizeThresholdsOff small_instances; // a size threshold does not change what a rule computes
  if (const auto* multi = dynamic_cast<const egraph::MultiPattern*>(&rule.searcher()))
    return InstanceChecker(rule, LeftSide(*multi), false).run();
  const egraph::Pattern& lhs = *rule.lhs();
  if (lhs.nodes()[lhs.root()].kind == PatternNode::Kind::kOp) {
    return InstanceChecker(rule, LeftSide(lhs), false).run();
  }
  RuleCheck out;
  out.rule = rule.name();
  std::vector<std::string> proved;
  for (const egraph::Pattern& probe : probes()) {
    RuleCheck c = InstanceChecker(rule, LeftSide(probe), true).run();
    if (c.status == Soundness::Refuted) {
      c.detail = fmt::format("on {}: {}", probe.to_string(), c.detail);
      return c;
    }
    if (c.status == Soundness::Proved) proved.push_back(probe.to_string());
  }
  if (proved.empty()) {
    out.detail = "the left side is a bare variable and no probe term made the rule fire";
    return out;
  }
  out.status = Soundness::Proved;
  out.detail = fmt::format("on instances of {}", fmt::join(proved, ", "));
  return out;
}

} // namespace

std::string RuleCheck::to_string() const {
  switch (status) {
  case Soundness::Proved:
    return fmt::format("{}: proved ({})", rule, detail);
  case Soundness::Refuted:
    return fmt::format("{}: REFUTED: {}", rule, detail);
  case Soundness::NotCheckable:
    return fmt::format("{}: not checkable: {}", rule, detail);
  }
  return rule;
}

std::vector<RuleCheck> check_rule_file(const RuleFile& file) {
  std::vector<RuleCheck> out;
  for (size_t i = 0; i < file.rewrites.size(); ++i) {
    RuleCheck c;
    try {
      c = check_rule(file.rewrites[i]);
    } catch (const std::exception& e) {
      c.rule = file.rewrites[i].name();
      c.status = Soundness::NotCheckable;
      c.detail = e.what();
    }
    c.origin = file.origins[i];
    out.push_back(std::move(c));
  }
  return out;
}

} // namespace tilesat::rewrites
