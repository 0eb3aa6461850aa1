// Rule files: tensor rewrite rules as text, loaded into egraph rewrites (docs/rules.md).
//
// One rule per line, `name: lhs => rhs if guard(args), ...`; `<=>` gives both directions;
// `#` starts a comment; `ops NAME = add, multiply` declares an op set, and a rule naming
// NAME as an op stands for one rule per member; `layout NAME: OPS => tile l1 block_sharded`
// declares a physical variant for the cost model and `reads NAME: OPS => l1 sharded` where
// ops read their operands (layout_rule.h); `mesh NAME: OPS => shard(d)... -> shard(d)` how
// ops split over the chips of a mesh (mesh_rule.h). Left and right sides are egraph
// patterns over the op registry's names; a right side may instead be a computed one, `@name(args)`.
// A left side of several parts, `?p = (linear ?x ?w1 ?b1), ?q = (linear ?x ?w2 ?b2)`, is a
// multi-pattern (egraph/multipattern.h): its parts match together, joined on shared variables,
// and its computed right side rewrites each root.
// Loading checks every op, arity, attribute, variable, guard and applier, and reports the
// first problem as `file:line:col: error: ...` (a tilesat::Error).
//
//   RuleFile f = parse_rule_file("transpose: (transpose[dim0=?i, dim1=?j] "
//                                "(transpose[dim0=?i, dim1=?j] ?x)) => ?x", "inline.rules");
//   f.rewrites.size();   // 1
//   RuleFile g = load_rule_file("my.rules");
#pragma once

#include "tilesat/egraph/rewrite.h"
#include "tilesat/rewrites/layout_rule.h"
#include "tilesat/rewrites/mesh_rule.h"

#include <string>
#include <string_view>
#include <vector>

namespace tilesat::rewrites {

/// Where a rule came from, for reports and errors.
struct RuleOrigin {
  std::string file;
  int line = 0;
  std::string text; // the rule's line as written
};

struct RuleFile {
  std::string path;
  /// The rules in file order (a `<=>` rule gives `name` then `name-rev`, an op set one rule
  /// per member named `name.member`).
  std::vector<egraph::Rewrite> rewrites;
  /// origins[i] is where rewrites[i] came from.
  std::vector<RuleOrigin> origins;
  /// The `layout` lines in file order (layout_rule.h): variants for the cost model, not
  /// rewrites.
  std::vector<LayoutRule> layouts;
  /// The `reads` lines in file order (layout_rule.h): where ops read their operands from.
  std::vector<OperandRule> reads;
  /// The `mesh` lines in file order (mesh_rule.h): how ops may be split over a mesh.
  std::vector<MeshRule> meshes;
};

/// Parses rule text; `filename` is what errors call it.
RuleFile parse_rule_file(std::string_view text, std::string filename);
/// Reads and parses a rule file; throws tilesat::Error when it cannot be read or is invalid.
RuleFile load_rule_file(const std::string& path);

} // namespace tilesat::rewrites
