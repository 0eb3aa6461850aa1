// layout_rule.cpp: which ops a layout or reads rule applies to, and what a reads rule accepts.
#include "tilesat/rewrites/layout_rule.h"

#include <algorithm>

namespace tilesat::rewrites {

bool OpSelection::applies_to(OpKind kind) const {
  auto has = [kind](const std::vector<OpKind>& v) {
    return std::find(v.begin(), v.end(), kind) != v.end();
  };
  return (all || has(ops)) && !has(excluded);
}

bool OperandRule::accepts(LayoutBuffer b, LayoutMemory m) const {
  return b == buffer && std::find(memory.begin(), memory.end(), m) != memory.end();
}

} // namespace tilesat::rewrites
