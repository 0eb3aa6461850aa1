// The named guards and computed right sides (appliers) that rule files may use.
//
// Rules are data, but some conditions and some right sides need computation: "the transpose
// swaps the last two dims", "compose these two permutations". Those are C++ functions
// registered here by name with their parameter kinds and a one-line description; the rule
// loader checks every use against this table (unknown name, wrong number or kind of
// arguments). Guards live in guards.cpp; appliers in one file per rule family.
//
//   const GuardDef* g = find_guard("splat-equals");     // params: Tensor, Attr
//   const ApplierDef* a = find_applier("compose-permutations");
//   for (const GuardDef& d : all_guards()) fmt::print("{}: {}\n", d.name, d.doc);
#pragma once

#include "tilesat/rewrites/match_context.h"

#include <span>
#include <string_view>
#include <vector>

namespace tilesat::rewrites {

/// While one lives on a thread, size thresholds (guards that only restrict rules to big
/// values, such as `result-elements-at-least`) accept: verify-rules checks what a rule computes
/// on small instances, which a size threshold does not change.
class SizeThresholdsOff {
public:
  SizeThresholdsOff();
  ~SizeThresholdsOff();
  SizeThresholdsOff(const SizeThresholdsOff&) = delete;
  SizeThresholdsOff& operator=(const SizeThresholdsOff&) = delete;
  static bool active();
};

struct GuardDef {
  std::string_view name;
  std::vector<ParamKind> params;
  std::string_view doc;
  /// Accepts, or declines with a reason (a string literal).
  egraph::Verdict (*check)(const MatchContext&);
};

struct ApplierDef {
  std::string_view name;
  std::vector<ParamKind> params;
  std::string_view doc;
  /// The class to union with the match's root, or kNoId to decline.
  egraph::Id (*apply)(ApplyContext&);
};

std::span<const GuardDef> all_guards();
const GuardDef* find_guard(std::string_view name);
std::span<const ApplierDef> all_appliers();
const ApplierDef* find_applier(std::string_view name);

} // namespace tilesat::rewrites
