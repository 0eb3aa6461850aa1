// The body of a `fused_eltwise` op: a tree of elementwise ops over the op's operands.
//
// A fused elementwise kernel (seed 001's D2M fusion) evaluates several elementwise ops in one
// pass over the tiles. tilesat records which ops as a string attribute `body`, an
// s-expression over operand references `%0`, `%1`, ... and numeric literals, so the op prints
// and parses as ordinary TTIR and its semantics are those of the ops it names.
//
//   FusedBody b = parse_fused_body("(multiply (add (exp %0) (exp (neg %0))) 0.5)");
//   b.num_ops();              // 5
//   b.max_operand();          // 0
//   print_fused_body(b);      // the same text
#pragma once

#include "tilesat/graph/op.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilesat {

/// One node of a fused body: an op over earlier nodes, an operand reference, or a literal.
struct FusedNode {
  enum class Kind : uint8_t { Op, Operand, Literal };
  Kind kind = Kind::Op;
  OpKind op = OpKind::Add;    // Kind::Op
  int64_t operand = 0;        // Kind::Operand: the index after '%'
  double literal = 0;         // Kind::Literal
  std::vector<uint32_t> args; // Kind::Op: indices of earlier nodes
};

/// A fused body as nodes in post-order (children before parents); the root is the last.
struct FusedBody {
  std::vector<FusedNode> nodes;

  uint32_t root() const { return static_cast<uint32_t>(nodes.size() - 1); }
  /// Number of op nodes.
  size_t num_ops() const;
  /// The largest operand index referenced, or -1 when none is.
  int64_t max_operand() const;
};

/// Parses a body; throws tilesat::Error "expected X, got Y" for bad syntax, an unknown op, an
/// op that is not elementwise unary or binary, or a wrong number of arguments.
FusedBody parse_fused_body(std::string_view text);
/// The canonical text of a body (literals in the shortest form that reads back exactly).
std::string print_fused_body(const FusedBody& body);
/// Whether `kind` may appear in a fused body: elementwise unary or binary ops without
/// required attributes (typecast needs its dtype, so it is not one of them).
bool fusable_in_body(OpKind kind);

} // namespace tilesat
