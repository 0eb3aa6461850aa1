// stablehlo.cpp: StableHLO ops converted to TTIR nodes as they are read.
#include "tilesat/graph/stablehlo.h"

#include "text/import.h"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>

namespace tilesat {
namespace {

constexpr StableHloOpMapping kMappings[] = {
    {"stablehlo.add", "ttir.add", "same shapes, no attributes"},
    {"stablehlo.subtract", "ttir.subtract", "same shapes, no attributes"},
    {"stablehlo.multiply", "ttir.multiply", "same shapes, no attributes"},
    {"stablehlo.divide", "ttir.divide", "same shapes, no attributes"},
    {"stablehlo.maximum", "ttir.maximum", "same shapes, no attributes"},
    {"stablehlo.minimum", "ttir.minimum", "same shapes, no attributes"},
    {"stablehlo.exponential", "ttir.exp", "elementwise"},
    {"stablehlo.log", "ttir.log", "elementwise"},
    {"stablehlo.negate", "ttir.neg", "elementwise"},
    {"stablehlo.abs", "ttir.abs", "elementwise"},
    {"stablehlo.sine", "ttir.sin", "elementwise"},
    {"stablehlo.cosine", "ttir.cos", "elementwise"},
    {"stablehlo.tanh", "ttir.tanh", "elementwise"},
    {"stablehlo.logistic", "ttir.sigmoid", "elementwise"},
    {"stablehlo.sqrt", "ttir.sqrt", "elementwise"},
    {"stablehlo.rsqrt", "ttir.rsqrt", "elementwise"},
    {"stablehlo.transpose", "ttir.transpose",
     "dims = [p...]: a swap of dims i < j becomes transpose{dim0 = j, dim1 = i}, any other "
     "permutation ttir.permute{permutation = p}"},
    {"stablehlo.dot_general", "ttir.matmul",
     "contracting_dims = [l] x [r] on the last two dims become transpose_a/transpose_b; "
     "batching_dims must be the leading dims of both operands"},
    {"stablehlo.broadcast_in_dim", "ttir.broadcast",
     "dims = [d...] becomes broadcast{shape = result shape, dims = d}"},
    {"stablehlo.constant", "ttir.constant",
     "dense<...> becomes constant{value, shape and dtype of the result}"},
    {"stablehlo.reshape", "ttir.reshape", "shape = the result shape"},
    {"stablehlo.convert", "ttir.typecast", "dtype = the result element type"},
    {"stablehlo.concatenate", "ttir.concat", "dim = d becomes concat{dim = d}"},
};

} // namespace

std::span<const StableHloOpMapping> stablehlo_op_mappings() {
  return kMappings;
}

const StableHloOpMapping* find_stablehlo_op(std::string_view name) {
  for (const StableHloOpMapping& m : kMappings) {
    if (m.stablehlo == name) return &m;
  }
  return nullptr;
}

namespace text {
namespace {

/// The attribute under any of its spellings (custom form `dims`, generic `permutation`...).
const ParsedAttr* find_attr(const OpRecord& rec, std::initializer_list<std::string_view> keys) {
  for (std::string_view k : keys) {
    if (const ParsedAttr* a = rec.attr(k)) return a;
  }
  return nullptr;
}

const ParsedAttr& require_attr(const OpRecord& rec, std::initializer_list<std::string_view> keys) {
  if (const ParsedAttr* a = find_attr(rec, keys)) return *a;
  throw Error(rec.loc, fmt::format("'{}' needs attribute '{}'", rec.name, *keys.begin()));
}

void transpose_attrs(const OpRecord& rec, OpKind& kind, Attrs& attrs) {
  const ParsedAttr& a = require_attr(rec, {"dims", "permutation"});
  std::vector<int64_t> perm = int_list(a, "dims", rec.name);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> iota(perm.size());
  std::iota(iota.begin(), iota.end(), 0);
  if (sorted != iota) {
    throw Error(a.loc,
                fmt::format("attribute 'dims' of '{}': expected a permutation of 0..{}, "
                            "got {}",
                            rec.name, static_cast<int64_t>(perm.size()) - 1, render_attr(a)));
  }
  std::vector<int64_t> moved;
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) moved.push_back(static_cast<int64_t>(i));
  }
  if (moved.size() == 2) {
    kind = OpKind::Transpose;
    attrs.set("dim0", moved[1]);
    attrs.set("dim1", moved[0]);
    return;
  }
  kind = OpKind::Permute;
  attrs.set("permutation", perm);
}

/// dot_general as a matmul: contracting one of the last two dims of each operand, with any
/// batching dims leading and in order.
void dot_general_attrs(const OpRecord& rec, Attrs& attrs) {
  std::vector<int64_t> lc, rc, lb, rb;
  if (const ParsedAttr* p = find_attr(rec, {"contracting_dims"}); p != nullptr) {
    if (p->kind != ParsedAttr::Kind::Pair) {
      throw Error(p->loc, fmt::format("attribute 'contracting_dims' of '{}': expected "
                                      "[lhs dims] x [rhs dims], got {}",
                                      rec.name, render_attr(*p)));
    }
    lc = int_list(p->elems[0], "contracting_dims", rec.name);
    rc = int_list(p->elems[1], "contracting_dims", rec.name);
  } else {
    throw Error(rec.loc, fmt::format("'{}' needs attribute 'contracting_dims'", rec.name));
  }
  if (const ParsedAttr* p = find_attr(rec, {"batching_dims"}); p != nullptr) {
    if (p->kind != ParsedAttr::Kind::Pair) {
      throw Error(p->loc, fmt::format("attribute 'batching_dims' of '{}': expected "
                                      "[lhs dims] x [rhs dims], got {}",
                                      rec.name, render_attr(*p)));
    }
    lb = int_list(p->elems[0], "batching_dims", rec.name);
    rb = int_list(p->elems[1], "batching_dims", rec.name);
  }
  set_matmul_transposes(rec, DotDims{lc, rc, lb, rb}, attrs);
}

} // namespace

void import_stablehlo_op(FunctionScope& s, OpRecord& rec) {
  const StableHloOpMapping* m = find_stablehlo_op(rec.name);
  if (m == nullptr) throw Error(rec.loc, fmt::format("unsupported StableHLO op '{}'", rec.name));
  if (!rec.has_result_type) throw Error(rec.loc, fmt::format("'{}' has no result type", rec.name));
  std::string_view op = std::string_view(rec.name).substr(10); // after "stablehlo."
  OpKind kind = *op_by_name(m->ttir.substr(5));
  const TensorType& rt = rec.result_type;
  Attrs attrs;
  if (op == "transpose") {
    transpose_attrs(rec, kind, attrs);
  } else if (op == "dot_general") {
    dot_general_attrs(rec, attrs);
  } else if (op == "broadcast_in_dim") {
    const ParsedAttr& d = require_attr(rec, {"dims", "broadcast_dimensions"});
    attrs.set("shape", rt.shape.dims());
    attrs.set("dims", int_list(d, "dims", rec.name));
  } else if (op == "constant") {
    const ParsedAttr* v = rec.positional.empty() ? rec.attr("value") : &rec.positional[0];
    if (v == nullptr) throw Error(rec.loc, "'stablehlo.constant' needs a dense<...> value");
    attrs.set("value", convert_attr(*v, AttrKind::FloatList, "value", rec.name));
    attrs.set("shape", rt.shape.dims());
    attrs.set("dtype", rt.dtype);
  } else if (op == "reshape") {
    attrs.set("shape", rt.shape.dims());
  } else if (op == "convert") {
    attrs.set("dtype", rt.dtype);
  } else if (op == "concatenate") {
    const ParsedAttr& d = require_attr(rec, {"dim", "dimension"});
    attrs.set("dim", convert_attr(d, AttrKind::Int, "dim", rec.name));
  }
  if (op != "constant" && !rec.positional.empty()) {
    throw Error(rec.positional[0].loc, fmt::format("unexpected value {} in '{}'",
                                                   render_attr(rec.positional[0]), rec.name));
  }
  std::vector<NodeId> operands = resolve_operands(s, rec);
  NodeId id = s.graph.add_op_typed(kind, std::move(operands), std::move(attrs), rt, rec.loc);
  define_result(s, rec, id);
}

} // namespace text
} // namespace tilesat
