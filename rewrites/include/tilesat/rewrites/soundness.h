// Rule soundness: every rule checked with Z3 on small symbolic tensors.
//
// For each rule, tilesat builds small instances of its left side (shapes up to 2x3x3 and the
// attention heads' 1x2x4 and 1x2x2x2, the
// attribute values and constants its guards need), lets the rule fire on them as it would in
// an optimization, and asks Z3 whether the two sides can differ anywhere: elements are real
// numbers, elementwise transcendental ops (exp, log, tanh, ...) are uninterpreted functions
// (only structure matters), data movement and broadcasting are exact index maps taken from
// the reference interpreter. Rounding to f32/bf16 is not modelled. A rule is proved when every
// instance that fired is unsatisfiable-to-differ, refuted with the differing element and the
// inputs when one is not, and not checkable (with the reason) when no instance fires.
//
//   for (const RuleCheck& c : check_rule_file(load_rule_file("my.rules")))
//     fmt::print("{}\n", c.to_string());   // "neg-neg: proved (2 instances)"
#pragma once

#include "tilesat/rewrites/rule_file.h"

#include <string>
#include <vector>

namespace tilesat::rewrites {

enum class Soundness { Proved, Refuted, NotCheckable };

struct RuleCheck {
  std::string rule;
  RuleOrigin origin;
  Soundness status = Soundness::NotCheckable;
  /// Proved: the instances; refuted: the counterexample; not checkable: why.
  std::string detail;

  /// "name: proved (...)", "name: REFUTED: ...", "name: not checkable: ...".
  std::string to_string() const;
};

/// Checks every rule of `file`, in order.
std::vector<RuleCheck> check_rule_file(const RuleFile& file);

} // namespace tilesat::rewrites
