// Mesh rules: how each op may be split over the chips of a mesh, as rule-file data.
//
// A value on a mesh is replicated (every chip holds all of it), sharded (tensor dim d cut into
// equal blocks over the chips of a mesh axis or of the whole mesh) or a partial sum (every chip
// holds a summand; the value is their sum). A rule file line
//
//   mesh NAME: OPS => OPERAND, OPERAND... -> RESULT
//
// says that ops in OPS (as in `layout` lines) whose operands are distributed so may compute
// their result so, each chip running the op on its local blocks (docs/rules.md). A term is
// `replicated`, `partial`, `shard(N)` (tensor dim N of that operand or result, negative counts
// from the end; a matmul's operands as the product reads them, after transpose_a/b) or
// `shard(d)` with a name: the result split along any dim d the op carries through block by
// block, each operand split along the dim the op reads for it, or replicated where the
// operand does not vary along d (a matmul's weight for a row split, a broadcast operand). The
// cost model (cost/mesh_partition.h) works out which dims an op carries; `...` after the last
// operand repeats it for any further operands (an op with another operand count is not
// matched). Replicated operands and result are always allowed; the cost model prices the
// collectives that convert between distributions.
//
//   RuleFile f = parse_rule_file("mesh k-split: matmul => shard(-1), shard(-2) -> partial\n",
//                                "x.rules");
//   f.meshes[0].matches(OpKind::Matmul, 2);   // true
//   f.meshes[0].operand(1).dim;               // -2
#pragma once

#include "tilesat/rewrites/layout_rule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilesat::rewrites {

/// One distribution term of a `mesh` line.
struct MeshTerm {
  enum class Kind : uint8_t {
    Replicated, ///< every chip holds the whole tensor
    Partial,    ///< every chip holds a summand
    ShardDim,   ///< `shard(N)`: dim `dim` split over the chips
    ShardVar,   ///< `shard(d)`: split along a dim the op carries (the rule's variable)
  };
  Kind kind = Kind::Replicated;
  /// ShardDim: the dim (negative counts from the end).
  int64_t dim = 0;
  friend bool operator==(const MeshTerm&, const MeshTerm&) = default;
};

/// One `mesh` line of a rule file.
struct MeshRule : OpSelection {
  std::string name;
  std::vector<MeshTerm> operands;
  /// `...` after the last operand: it stands for every further operand too.
  bool repeat_last = false;
  MeshTerm result;
  /// "file:line" the rule came from, for reports.
  std::string origin;

  /// Whether the rule applies to an op of `kind` with `arity` operands.
  bool matches(OpKind kind, size_t arity) const;
  /// The term for operand `i` (the last one for `i` past the end with `...`).
  const MeshTerm& operand(size_t i) const;
};

/// "replicated", "partial", "shard(-1)", "shard(d)".
std::string mesh_term_str(const MeshTerm& t);

} // namespace tilesat::rewrites
