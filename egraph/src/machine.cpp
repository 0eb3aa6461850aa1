// Compiling patterns to e-matching programs and running them over a rebuilt e-graph.
#include "tilesat/egraph/machine.h"

#include "tilesat/egraph/egraph.h"
#include "tilesat/egraph/pattern.h"

namespace tilesat::egraph {

const AttrValue& Subst::attr(Var v) const {
  auto [id, index] = attr_ref(v);
  return eg_->attrs(id).entries()[index].value;
}

namespace detail {
namespace {

constexpr std::uint32_t kUnset = 0xffffffffu;

class Compiler {
public:
  Compiler(const Pattern& p, std::vector<Instruction>& code, std::vector<AttrCheck>& checks,
           std::vector<AttrValue>& literals, std::vector<std::uint32_t>& var_regs,
           std::vector<std::uint32_t>& attr_var_regs, std::uint32_t& num_regs,
           std::uint32_t& num_attr_regs)
      : p_(p), code_(code), checks_(checks), literals_(literals), var_regs_(var_regs),
        attr_var_regs_(attr_var_regs), num_regs_(num_regs), num_attr_regs_(num_attr_regs) {
    var_regs_.assign(p.num_class_vars(), kUnset);
    attr_var_regs_.assign(p.num_attr_vars(), kUnset);
  }

  std::uint32_t literal(const AttrValue& v) {
    literals_.push_back(v);
    return static_cast<std::uint32_t>(literals_.size() - 1);
  }

  void emit(std::uint32_t idx, std::uint32_t reg) {
    const PatternNode& n = p_.nodes()[idx];
    switch (n.kind) {
    case PatternNode::Kind::kVar: {
      std::uint32_t& r = var_regs_[n.var.index];
      if (r == kUnset) {
        r = reg;
      } else {
        code_.push_back(Instruction{Instruction::Kind::kCompare, reg, r, {}, 0});
      }
      return;
    }
    case PatternNode::Kind::kLiteral:
      code_.push_back(Instruction{Instruction::Kind::kCheckClass, reg, literal(n.literal), {}, 0});
      return;
    case PatternNode::Kind::kOp:
      break;
    }
    Instruction bind{Instruction::Kind::kBind, reg, num_regs_, n.op,
                     static_cast<std::uint32_t>(n.children.size())};
    num_regs_ += bind.arity;
    bind.checks_begin = static_cast<std::uint32_t>(checks_.size());
    for (const PatternAttr& a : n.attrs) {
      if (!a.is_var) {
        checks_.push_back(AttrCheck{AttrCheck::Kind::kEquals, a.key, literal(a.value)});
        continue;
      }
      std::uint32_t slot = a.var.index - p_.num_class_vars();
      std::uint32_t& r = attr_var_regs_[slot];
      if (r == kUnset) {
        r = num_attr_regs_++;
        checks_.push_back(AttrCheck{AttrCheck::Kind::kBind, a.key, r});
      } else {
        checks_.push_back(AttrCheck{AttrCheck::Kind::kCompare, a.key, r});
      }
    }
    bind.checks_end = static_cast<std::uint32_t>(checks_.size());
    code_.push_back(bind);
    // Cheap filters (variables, literals) first, then nested operators.
    for (std::size_t i = 0; i < n.children.size(); ++i)
      if (p_.nodes()[n.children[i]].kind != PatternNode::Kind::kOp)
        emit(n.children[i], bind.out + static_cast<std::uint32_t>(i));
    for (std::size_t i = 0; i < n.children.size(); ++i)
      if (p_.nodes()[n.children[i]].kind == PatternNode::Kind::kOp)
        emit(n.children[i], bind.out + static_cast<std::uint32_t>(i));
  }

private:
  const Pattern& p_;
  std::vector<Instruction>& code_;
  std::vector<AttrCheck>& checks_;
  std::vector<AttrValue>& literals_;
  std::vector<std::uint32_t>& var_regs_;
  std::vector<std::uint32_t>& attr_var_regs_;
  std::uint32_t& num_regs_;
  std::uint32_t& num_attr_regs_;
};

} // namespace

Program compile(const Pattern& p) {
  Program prog;
  Compiler c(p, prog.code_, prog.checks_, prog.literals_, prog.var_regs_, prog.attr_var_regs_,
             prog.num_regs_, prog.num_attr_regs_);
  const PatternNode& root = p.nodes()[p.root()];
  switch (root.kind) {
  case PatternNode::Kind::kOp:
    prog.root_kind_ = Program::Root::kOp;
    prog.root_op_ = root.op;
    break;
  case PatternNode::Kind::kVar:
    prog.root_kind_ = Program::Root::kVar;
    break;
  case PatternNode::Kind::kLiteral:
    prog.root_kind_ = Program::Root::kLiteral;
    break;
  }
  c.emit(p.root(), 0);
  if (prog.root_kind_ == Program::Root::kLiteral) {
    prog.root_literal_ = prog.code_.front().out;
    prog.code_.clear();
  }
  return prog;
}

struct Program::Runner {
  const Program& p;
  const EGraph& eg;
  Matches& out;
  std::size_t limit;
  std::size_t count = 0;
  std::vector<Id> regs;
  std::vector<std::pair<AttrId, std::uint32_t>> attr_regs;
  std::vector<Id> literal_classes;

  Runner(const Program& prog, const EGraph& g, Matches& o, std::size_t lim)
      : p(prog), eg(g), out(o), limit(lim), regs(prog.num_regs_, kNoId),
        attr_regs(prog.num_attr_regs_), literal_classes(prog.literals_.size(), kNoId) {
    for (const Instruction& in : prog.code_)
      if (in.kind == Instruction::Kind::kCheckClass) literal_classes[in.out] = lookup(in.out);
    if (prog.root_kind_ == Root::kLiteral)
      literal_classes[prog.root_literal_] = lookup(prog.root_literal_);
  }

  Id lookup(std::uint32_t literal) const {
    auto attrs = eg.attr_table().find(Attrs::literal(p.literals_[literal]));
    if (!attrs) return kNoId;
    auto id = eg.lookup(Symbol::constant(), {}, *attrs);
    return id ? *id : kNoId;
  }

  bool check_attrs(const Instruction& in, AttrId attrs_id) {
    const Attrs& attrs = eg.attrs(attrs_id);
    for (std::uint32_t k = in.checks_begin; k < in.checks_end; ++k) {
      const AttrCheck& c = p.checks_[k];
      int idx = attrs.index_of(c.key);
      if (idx < 0) return false;
      const AttrValue& v = attrs.entries()[static_cast<std::size_t>(idx)].value;
      switch (c.kind) {
      case AttrCheck::Kind::kEquals:
        if (!(v == p.literals_[c.slot])) return false;
        break;
      case AttrCheck::Kind::kBind:
        attr_regs[c.slot] = {attrs_id, static_cast<std::uint32_t>(idx)};
        break;
      case AttrCheck::Kind::kCompare: {
        auto [bid, bidx] = attr_regs[c.slot];
        if (!(eg.attrs(bid).entries()[bidx].value == v)) return false;
        break;
      }
      }
    }
    return true;
  }

  void yield() {
    Id* rec = out.append();
    rec[0] = regs[0];
    std::size_t k = 1;
    for (std::uint32_t r : p.var_regs_) rec[k++] = regs[r];
    for (std::uint32_t r : p.attr_var_regs_) {
      rec[k++] = attr_regs[r].first;
      rec[k++] = attr_regs[r].second;
    }
  }

  /// Runs from instruction `pc`; false once the match limit is reached.
  bool run(std::size_t pc) {
    if (pc == p.code_.size()) {
      yield();
      return ++count < limit;
    }
    const Instruction& in = p.code_[pc];
    switch (in.kind) {
    case Instruction::Kind::kCompare:
      if (regs[in.reg] != regs[in.out]) return true;
      return run(pc + 1);
    case Instruction::Kind::kCheckClass:
      if (regs[in.reg] != literal_classes[in.out]) return true;
      return run(pc + 1);
    case Instruction::Kind::kBind:
      break;
    }
    for (NodeId n : eg.nodes_with_op(regs[in.reg], in.op)) {
      ENode node = eg.node(n);
      if (node.children.size() != in.arity) continue;
      if (in.checks_begin != in.checks_end && !check_attrs(in, node.attrs)) continue;
      for (std::uint32_t i = 0; i < in.arity; ++i) regs[in.out + i] = node.children[i];
      if (!run(pc + 1)) return false;
    }
    return true;
  }
};

void Program::search(const EGraph& eg, std::size_t limit, Matches& out,
                     const Deadline& deadline) const {
  if (limit == 0) return;
  Runner r(*this, eg, out, limit);
  std::size_t step = 0;
  switch (root_kind_) {
  case Root::kOp:
    for (Id cls : eg.classes_with_op(root_op_)) {
      r.regs[0] = cls;
      if (!r.run(0) || deadline.passed_at(++step)) return;
    }
    return;
  case Root::kVar:
    for (Id cls : eg.classes()) {
      r.regs[0] = cls;
      if (!r.run(0) || deadline.passed_at(++step)) return;
    }
    return;
  case Root::kLiteral: {
    Id cls = r.literal_classes[root_literal_];
    if (cls == kNoId) return;
    r.regs[0] = cls;
    r.run(0);
    return;
  }
  }
}

void Program::search_class(const EGraph& eg, Id cls, std::size_t limit, Matches& out) const {
  if (limit == 0) return;
  Runner r(*this, eg, out, limit);
  cls = eg.find(cls);
  if (root_kind_ == Root::kLiteral && r.literal_classes[root_literal_] != cls) return;
  r.regs[0] = cls;
  r.run(0);
}

} // namespace detail
} // namespace tilesat::egraph
