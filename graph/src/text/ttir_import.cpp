// ttir_import.cpp: `ttir.*` ops to Graph nodes, accepting tt-mlir's current and legacy forms.
//
// tt-mlir spells some ops and attributes differently from tilesat's canonical op table; the
// differences are resolved here, once: `ttir.zeros`/`ttir.ones` are `full`, `ttir.div` is
// `divide`, `ttir.slice_static` is `slice`, ops outside the op table that are a few of its ops
// are expanded (ttir_composite.cpp), `broadcast_dimensions` repeat factors become broadcast{shape},
// and attributes implied by the result type (a constant's or full's shape and dtype, a typecast's
// dtype) are filled in from it.
#include "text/import.h"

#include <fmt/format.h>

namespace tilesat::text {
namespace {

struct Alias {
  std::string_view ttir;
  OpKind kind;
};
constexpr Alias kAliases[] = {{"zeros", OpKind::Full},
                              {"ones", OpKind::Full},
                              {"div", OpKind::Divide},
                              {"slice_static", OpKind::Slice}};

OpKind resolve_kind(const OpRecord& rec, std::string_view op) {
  for (const Alias& a : kAliases) {
    if (a.ttir == op) return a.kind;
  }
  std::optional<OpKind> k = op_by_name(op);
  if (!k || *k == OpKind::Argument) {
    throw Error(rec.name_loc, fmt::format("unknown op '{}'", rec.name));
  }
  return *k;
}

/// tt-mlir's broadcast{broadcast_dimensions = array<i64: 1, 32>} repeats dim i factor[i]
/// times; tilesat's broadcast names the result shape instead.
std::vector<int64_t> repeat_shape(const OpRecord& rec, const ParsedAttr& a) {
  std::vector<int64_t> factors = int_list(a, "broadcast_dimensions", rec.name);
  if (rec.operand_types.empty()) return factors;
  const Shape& in = rec.operand_types[0].shape;
  if (static_cast<int64_t>(factors.size()) != in.rank()) {
    throw Error(a.loc, fmt::format("attribute 'broadcast_dimensions' of '{}': expected {} "
                                   "repeat factors (the operand's rank), got {}",
                                   rec.name, in.rank(), factors.size()));
  }
  std::vector<int64_t> shape;
  for (int64_t i = 0; i < in.rank(); ++i) {
    int64_t f = factors[static_cast<size_t>(i)];
    if (f < 1 || (f > 1 && in[i] != 1)) {
      throw Error(a.loc, fmt::format("attribute 'broadcast_dimensions' of '{}': factor {} for "
                                     "dim {} of extent {} (expected 1, or any factor for an "
                                     "extent of 1)",
                                     rec.name, f, i, in[i]));
    }
    shape.push_back(in[i] * f);
  }
  return shape;
}

/// tt-mlir writes no group size on all_gather and reduce_scatter: the result type implies it
/// (the gathered dim grows, the scattered dim shrinks, by the chips of the group). Left unset
/// when the types do not say, so the op's verifier names the missing attribute.
void set_cluster_size(const OpRecord& rec, OpKind kind, Attrs& attrs) {
  bool gather = kind == OpKind::AllGather;
  const auto* dim = std::get_if<int64_t>(attrs.find(gather ? "all_gather_dim" : "scatter_dim"));
  if (dim == nullptr || rec.operand_types.size() != 1) return;
  const Shape& in = rec.operand_types[0].shape;
  const Shape& out = rec.result_type.shape;
  int64_t d = *dim < 0 ? *dim + in.rank() : *dim;
  if (d < 0 || d >= in.rank() || out.rank() != in.rank()) return;
  int64_t big = gather ? out[d] : in[d], small = gather ? in[d] : out[d];
  if (small > 0 && big % small == 0) attrs.set("cluster_size", big / small);
}

/// tt-mlir's dot_general{batch_dims_lhs, batch_dims_rhs, contract_dims_lhs,
/// contract_dims_rhs} is a matmul when it contracts one of the last two dims of each operand
/// with any batch dims leading (what tt-mlir's decomposition pass turns into ttir.matmul);
/// otherwise permutes and reshapes around one (define_general_dot).
void import_ttir_dot_general(FunctionScope& s, OpRecord& rec) {
  auto dims = [&](std::string_view key, bool required) {
    const ParsedAttr* a = rec.attr(key);
    if (a == nullptr) {
      if (required) throw Error(rec.loc, fmt::format("'{}' needs attribute '{}'", rec.name, key));
      return std::vector<int64_t>{};
    }
    return int_list(*a, key, rec.name);
  };
  for (const auto& [key, value] : rec.attrs) {
    if (key != "batch_dims_lhs" && key != "batch_dims_rhs" && key != "contract_dims_lhs" &&
        key != "contract_dims_rhs") {
      throw Error(value.loc, fmt::format("unknown attribute '{}' of '{}'", key, rec.name));
    }
  }
  DotDims d{dims("contract_dims_lhs", true), dims("contract_dims_rhs", true),
            dims("batch_dims_lhs", false), dims("batch_dims_rhs", false)};
  Attrs attrs;
  if (!matmul_transposes(rec, d, attrs)) return define_general_dot(s, rec, d);
  std::vector<NodeId> operands = resolve_operands(s, rec);
  NodeId id = s.graph.add_op_typed(OpKind::Matmul, std::move(operands), std::move(attrs),
                                   rec.result_type, rec.loc);
  define_result(s, rec, id);
}

} // namespace

void import_ttir_op(FunctionScope& s, OpRecord& rec) {
  // `tensor.empty()` (MLIR's tensor dialect) is a destination like `ttir.empty()`.
  std::string_view op =
      rec.name == "tensor.empty" ? std::string_view("empty") : std::string_view(rec.name).substr(5);
  if (!rec.has_result_type) throw Error(rec.loc, fmt::format("'{}' has no result type", rec.name));
  if (op == "empty") {
    if (!rec.operands.empty()) {
      throw Error(rec.operands[0].loc, "expected no operands for 'ttir.empty'");
    }
    define_result(s, rec, std::nullopt);
    return;
  }
  if (op == "dot_general") {
    import_ttir_dot_general(s, rec);
    return;
  }
  if (!op_by_name(op) && import_ttir_composite(s, rec, op)) return;
  OpKind kind = resolve_kind(rec, op);
  if (!rec.positional.empty()) {
    throw Error(rec.positional[0].loc, fmt::format("unexpected value {} in '{}'",
                                                   render_attr(rec.positional[0]), rec.name));
  }
  std::vector<NodeId> operands = resolve_operands(s, rec);
  const OpInfo& info = op_info(kind);
  Attrs attrs;
  if (op == "zeros" || op == "ones") attrs.set("fill_value", op == "ones" ? 1.0 : 0.0);
  for (const auto& [key, value] : rec.attrs) {
    if (kind == OpKind::Broadcast && key == "broadcast_dimensions") {
      attrs.set("shape", repeat_shape(rec, value));
      continue;
    }
    const AttrSpec* spec = info.attr_spec(key);
    if (spec != nullptr && spec->scalar_ok && value.kind == ParsedAttr::Kind::Int) {
      attrs.set(key, value.i);
    } else if (spec != nullptr && spec->kind != AttrKind::Opaque) {
      attrs.set(key, convert_attr(value, spec->kind, key, rec.name));
      if (kind == OpKind::Constant && key == "value" && value.type) {
        if (!attrs.has("shape")) attrs.set("shape", value.type->shape.dims());
        if (!attrs.has("dtype")) attrs.set("dtype", value.type->dtype);
      }
    } else {
      attrs.set(key, OpaqueAttr{render_attr(value)});
    }
  }
  // Attributes the result type implies, when the text leaves them out.
  const TensorType& rt = rec.result_type;
  if (kind == OpKind::Constant || kind == OpKind::Full) {
    if (!attrs.has("shape")) attrs.set("shape", rt.shape.dims());
    if (!attrs.has("dtype")) attrs.set("dtype", rt.dtype);
  }
  if (kind == OpKind::Typecast && !attrs.has("dtype")) attrs.set("dtype", rt.dtype);
  if ((kind == OpKind::AllGather || kind == OpKind::ReduceScatter) && !attrs.has("cluster_size")) {
    set_cluster_size(rec, kind, attrs);
  }
  NodeId id = s.graph.add_op_typed(kind, std::move(operands), std::move(attrs), rt, rec.loc);
  define_result(s, rec, id);
}

} // namespace tilesat::text
