// layout_rule.cpp: which ops a layout rule applies to.
#include "tilesat/rewrites/layout_rule.h"

#include <algorithm>

namespace tilesat::rewrites {

bool LayoutRule::applies_to(OpKind producer) const {
  auto has = [producer](const std::vector<OpKind>& v) {
    return std::find(v.begin(), v.end(), producer) != v.end();
  };
  return (all || has(ops)) && !has(excluded);
}

} // namespace tilesat::rewrites
