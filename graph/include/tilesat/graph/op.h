// The op registry: one table entry per op kind, declaring everything about it.
//
// Each entry names the op, its operands, its typed attributes with defaults, its algebraic
// traits, a one-line summary, its shape/dtype inference and its reference semantics. The
// parser, printer, verifier, interpreter and later stages all read this table, so an op is
// declared once (graph/src/op_table.cpp).
//
//   const OpInfo& info = op_info(OpKind::Transpose);
//   info.name;                              // "transpose"
//   op_by_name("matmul");                   // OpKind::Matmul
//   info.has_trait(OpTrait::Involution);    // false (transpose is only for equal dims)
#pragma once

#include "tilesat/graph/attribute.h"
#include "tilesat/graph/tensor.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace tilesat {

enum class OpKind : uint16_t {
#define TILESAT_OP(Enum, name) Enum,
#include "tilesat/graph/ops.def"
};

inline constexpr int kNumOpKinds = 0
#define TILESAT_OP(Enum, name) +1
#include "tilesat/graph/ops.def"
    ;

/// Algebraic and structural properties of an op kind (a bit set).
enum class OpTrait : uint32_t {
  None = 0,
  Leaf = 1u << 0,              // no operands (argument, constant, full)
  ElementwiseUnary = 1u << 1,  // out[i] = f(in[i])
  ElementwiseBinary = 1u << 2, // out[i] = f(a[i], b[i]) after broadcasting
  Commutative = 1u << 3,       // f(a, b) = f(b, a)
  Associative = 1u << 4,       // f(f(a, b), c) = f(a, f(b, c))
  Idempotent = 1u << 5,        // f(f(x)) = f(x)
  Involution = 1u << 6,        // f(f(x)) = x
  Reduction = 1u << 7,         // reduces over dims
  DataMovement = 1u << 8,      // only moves or copies elements
  Fused = 1u << 9,             // a fusion of other ops
  MultiChip = 1u << 10,        // moves or combines values between the chips of a mesh
};
constexpr OpTrait operator|(OpTrait a, OpTrait b) {
  return static_cast<OpTrait>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}

/// How one attribute of an op kind is declared.
struct AttrSpec {
  std::string_view name;
  AttrKind kind;
  /// nullopt: the attribute is required.
  std::optional<AttrValue> default_value;
  std::string_view doc;
  /// An int list that may also be written as one integer meaning that value in every position
  /// (tt-mlir's `stride = 1 : i32`); the integer is kept as written, so it prints back alike.
  bool scalar_ok = false;
  /// Kept (and printed) after optimization even when it equals the default, as tt-mlir always
  /// writes it (conv2d's `groups = 1`).
  bool kept = false;
};

/// Context passed to an op's shape/dtype inference.
struct InferArgs {
  std::span<const TensorType* const> operands;
  const Attrs& attrs; // with defaults filled in
};

/// Context passed to an op's reference semantics.
struct EvalArgs {
  std::span<const Tensor* const> operands;
  const Attrs& attrs; // with defaults filled in
  const TensorType& result;
};

/// Everything the registry knows about one op kind.
struct OpInfo {
  OpKind kind;
  std::string_view name; // without dialect prefix: "matmul"
  int min_operands;
  int max_operands; // -1: variadic
  uint32_t traits;  // OpTrait bits
  std::vector<AttrSpec> attrs;
  std::string_view summary;
  /// Result type from operand types and attributes; throws tilesat::Error with an
  /// "expected X, got Y" message (the caller adds the op and its location).
  TensorType (*infer)(const InferArgs&);
  /// Reference semantics in f32 (the ground truth of every numeric test).
  Tensor (*eval)(const EvalArgs&);

  bool has_trait(OpTrait t) const { return (traits & static_cast<uint32_t>(t)) != 0; }
  const AttrSpec* attr_spec(std::string_view attr) const;
};

const OpInfo& op_info(OpKind kind);
/// Looks an op up by its name without dialect prefix ("add", not "ttir.add").
std::optional<OpKind> op_by_name(std::string_view name);
std::string_view op_name(OpKind kind);
/// All op kinds in declaration order.
std::span<const OpKind> all_op_kinds();

/// `attrs` with every declared default filled in; throws tilesat::Error naming the op and
/// attribute when a required one is missing or one has the wrong kind.
Attrs complete_attrs(OpKind kind, const Attrs& attrs);

} // namespace tilesat
