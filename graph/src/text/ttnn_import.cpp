// ttnn_import.cpp: `ttnn.*` ops (tt-mlir's TTNN dialect) to Graph nodes.
//
// TTNN ops are device ops: most are TTIR ops under another prefix (`ttnn.relu`, `ttnn.add`,
// `ttnn.softmax`, ...) and go through the TTIR importer. What differs is resolved here:
// `ttnn.matmul` may carry a folded `activation` (a bias-less linear in tilesat), `ttnn.linear`
// is linear, `ttnn.to_layout` / `ttnn.to_memory_config` only move a value (they import as the
// value itself, or as a typecast when the element type changes), and placement attributes
// (`memory_config`, `dtype`, `layout`, program and compute configs) are dropped: tilesat plans
// placements itself, and a typecast's or full's dtype comes from its result type.
#include "text/import.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>

namespace tilesat::text {
namespace {

/// Attributes that say where or how a TTNN op runs, not what it computes.
constexpr std::array<std::string_view, 7> kPlacementAttrs = {
    "memory_config",  "dtype",          "output_dtype",         "layout",
    "compute_config", "program_config", "matmul_program_config"};

bool is_placement_attr(std::string_view key) {
  return std::find(kPlacementAttrs.begin(), kPlacementAttrs.end(), key) != kPlacementAttrs.end();
}

/// `ttnn.to_layout` / `ttnn.to_memory_config`: the operand itself under a new name, or a
/// typecast when the result's element type differs.
void import_layout_change(FunctionScope& s, OpRecord& rec) {
  std::vector<NodeId> operands = resolve_operands(s, rec);
  if (operands.size() != 1) {
    throw Error(rec.loc,
                fmt::format("expected 1 operand for '{}', got {}", rec.name, operands.size()));
  }
  const TensorType& in = s.graph.node(operands[0]).type;
  if (in.shape != rec.result_type.shape) {
    throw Error(rec.loc, fmt::format("'{}' keeps the shape: expected result type with shape {}, "
                                     "got {}",
                                     rec.name, in.shape.str(), rec.result_type.str()));
  }
  if (in.dtype != rec.result_type.dtype) {
    Attrs attrs;
    attrs.set("dtype", rec.result_type.dtype);
    NodeId id = s.graph.add_op_typed(OpKind::Typecast, std::move(operands), std::move(attrs),
                                     rec.result_type, rec.loc);
    define_result(s, rec, id);
    return;
  }
  define_alias(s, rec, operands[0]);
}

/// `ttnn.matmul` (a matmul, or with `activation` a bias-less linear) and `ttnn.linear`.
void import_matmul(FunctionScope& s, OpRecord& rec, bool linear) {
  Attrs attrs;
  std::string activation;
  for (const auto& [key, value] : rec.attrs) {
    if (key == "transpose_a" || key == "transpose_b") {
      attrs.set(key, convert_attr(value, AttrKind::Bool, key, rec.name));
    } else if (key == "activation") {
      activation = std::get<std::string>(convert_attr(value, AttrKind::String, key, rec.name));
    } else {
      throw Error(value.loc, fmt::format("unknown attribute '{}' of '{}'", key, rec.name));
    }
  }
  std::vector<NodeId> operands = resolve_operands(s, rec);
  size_t max_operands = linear ? 3 : 2;
  if (operands.size() < 2 || operands.size() > max_operands) {
    throw Error(rec.loc, fmt::format("expected {} operands for '{}', got {}",
                                     linear ? "2 or 3" : "2", rec.name, operands.size()));
  }
  OpKind kind = OpKind::Matmul;
  if (linear || !activation.empty()) {
    kind = OpKind::Linear;
    if (!activation.empty()) attrs.set("activation", activation);
  }
  NodeId id =
      s.graph.add_op_typed(kind, std::move(operands), std::move(attrs), rec.result_type, rec.loc);
  define_result(s, rec, id);
}

} // namespace

void import_ttnn_op(FunctionScope& s, OpRecord& rec) {
  std::string_view op = std::string_view(rec.name).substr(5);
  if (!rec.has_result_type) throw Error(rec.loc, fmt::format("'{}' has no result type", rec.name));
  // A filled tensor's shape is its result type's (TTNN spells it `#ttnn.shape<64x128>`).
  bool filled = op == "full" || op == "zeros" || op == "ones";
  std::erase_if(rec.attrs, [&](const NamedAttr& a) {
    return is_placement_attr(a.first) || (filled && a.first == "shape");
  });
  if (op == "to_layout" || op == "to_memory_config") {
    import_layout_change(s, rec);
  } else if (op == "matmul" || op == "linear") {
    import_matmul(s, rec, op == "linear");
  } else if (op == "empty" || op == "dot_general") {
    // Not device ops tilesat reads: ttnn.empty allocates on a device, and dot_general is TTIR.
    throw Error(rec.name_loc, fmt::format("unknown op '{}'", rec.name));
  } else {
    // The same op as in TTIR: name, operands and attributes.
    import_ttir_op(s, rec);
  }
}

} // namespace tilesat::text
