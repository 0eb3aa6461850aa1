// mesh_rule.cpp: which ops a mesh rule matches, and its terms as text.
#include "tilesat/rewrites/mesh_rule.h"

#include <fmt/format.h>

namespace tilesat::rewrites {

bool MeshRule::matches(OpKind kind, size_t arity) const {
  if (!applies_to(kind)) return false;
  return arity == operands.size() || (repeat_last && arity >= operands.size());
}

const MeshTerm& MeshRule::operand(size_t i) const {
  return i < operands.size() ? operands[i] : operands.back();
}

std::string mesh_term_str(const MeshTerm& t) {
  switch (t.kind) {
  case MeshTerm::Kind::Replicated:
    return "replicated";
  case MeshTerm::Kind::Partial:
    return "partial";
  case MeshTerm::Kind::ShardDim:
    return fmt::format("shard({})", t.dim);
  case MeshTerm::Kind::ShardVar:
    return "shard(d)";
  }
  return "?";
}

} // namespace tilesat::rewrites
