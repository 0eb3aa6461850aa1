// The e-matching virtual machine: a pattern compiled to a short instruction list run with
// backtracking over an e-class's nodes (as egg's machine.rs). Internal to the engine.
//
// Registers hold class ids. `Bind` walks the nodes of the class in a register that have the
// instruction's operator (a binary search in the op-sorted class list), checks arity and
// attribute constraints, binds attribute variables and writes the children to fresh
// registers; `Compare` checks a repeated variable; `CheckClass` checks a literal leaf against
// its class, looked up once per search.
//
//   detail::Program p = detail::compile(pattern);
//   p.search(eg, limit, matches);
#pragma once

#include "tilesat/egraph/attr.h"
#include "tilesat/egraph/deadline.h"
#include "tilesat/egraph/id.h"
#include "tilesat/egraph/subst.h"
#include "tilesat/egraph/symbol.h"

#include <cstdint>
#include <vector>

namespace tilesat::egraph {

class EGraph;
class Pattern;

namespace detail {

struct AttrCheck {
  enum class Kind : std::uint8_t { kEquals, kBind, kCompare };
  Kind kind;
  Symbol key;
  std::uint32_t slot; // literal index (kEquals) or attribute register (kBind, kCompare)
};

struct Instruction {
  enum class Kind : std::uint8_t { kBind, kCompare, kCheckClass };
  Kind kind;
  std::uint32_t reg;   // the class register examined
  std::uint32_t out;   // kBind: first child register; kCompare: other register;
                       // kCheckClass: literal index
  Symbol op;           // kBind
  std::uint32_t arity; // kBind
  std::uint32_t checks_begin = 0;
  std::uint32_t checks_end = 0;
};

class Program {
public:
  /// Appends the matches of the pattern to `out` (already reset by the caller), stopping after
  /// `limit` matches or once `deadline` passed. Requires a rebuilt e-graph.
  void search(const EGraph& eg, std::size_t limit, Matches& out,
              const Deadline& deadline = {}) const;
  /// Matches rooted at one class only.
  void search_class(const EGraph& eg, Id cls, std::size_t limit, Matches& out) const;

private:
  friend Program compile(const Pattern& p);
  enum class Root : std::uint8_t { kOp, kVar, kLiteral };
  struct Runner;

  std::vector<Instruction> code_;
  std::vector<AttrCheck> checks_;
  std::vector<AttrValue> literals_;          // attribute literal values and literal leaves
  std::vector<std::uint32_t> var_regs_;      // class var -> register
  std::vector<std::uint32_t> attr_var_regs_; // attr var -> attribute register
  std::uint32_t num_regs_ = 1;
  std::uint32_t num_attr_regs_ = 0;
  Root root_kind_ = Root::kOp;
  Symbol root_op_;
  std::uint32_t root_literal_ = 0;
};

Program compile(const Pattern& p);

} // namespace detail
} // namespace tilesat::egraph
