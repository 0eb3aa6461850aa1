// stablehlo.cpp: StableHLO ops converted to TTIR nodes as they are read.
//
// Most ops become one table op; compare, the logical and rounding ops, clamp, iota, pad and
// reduce are expanded into a few with the graph Builder (define_expansion), reusing the tt-mlir
// composites of ttir_composite.cpp where the logic is the same.
#include "tilesat/graph/stablehlo.h"

#include "text/attr_parser.h"
#include "text/import.h"
#include "tilesat/graph/ttir_composites.h"
#include "tilesat/graph/window.h"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
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
     "contracting_dims = [l] x [r] on the last two dims with leading batching_dims become "
     "transpose_a/transpose_b; any other dims: permutes and reshapes around one batched "
     "matmul"},
    {"stablehlo.dot", "ttir.matmul",
     "a dot_general contracting the last dim of the left operand with the first of the right "
     "(ranks 1 or 2)"},
    {"stablehlo.broadcast_in_dim", "ttir.broadcast",
     "dims = [d...] becomes broadcast{shape = result shape, dims = d}"},
    {"stablehlo.constant", "ttir.constant",
     "dense<...> becomes constant{value, shape and dtype of the result}"},
    {"stablehlo.reshape", "ttir.reshape", "shape = the result shape"},
    {"stablehlo.convert", "ttir.typecast", "dtype = the result element type"},
    {"stablehlo.concatenate", "ttir.concat", "dim = d becomes concat{dim = d}"},
    {"stablehlo.power", "ttir.pow", "same shapes, no attributes"},
    {"stablehlo.select", "ttir.where",
     "where(pred, on_true, on_false); pred may be rank-0; pretty form `: pred type, result type`"},
    {"stablehlo.compare", "ttir.eq",
     "comparison_direction EQ, NE, LT, LE, GT, GE: eq, ttir.ne, lt, ttir.le, gt, ttir.ge, the "
     "1 or 0 typecast to the declared type (i1 reads as i32); compare_type ignored"},
    {"stablehlo.clamp", "ttir.clamp_tensor",
     "clamp(min, operand, max) becomes clamp_tensor(operand, min, max); min and max may be "
     "rank-0"},
    {"stablehlo.exponential_minus_one", "ttir.expm1", "elementwise"},
    {"stablehlo.log_plus_one", "ttir.log1p", "elementwise"},
    {"stablehlo.floor", "ttir.floor", "elementwise"},
    {"stablehlo.ceil", "ttir.ceil", "elementwise"},
    {"stablehlo.sign", "ttir.sign", "elementwise"},
    {"stablehlo.remainder", "ttir.remainder", "same shapes: x - y * trunc(x / y)"},
    {"stablehlo.round_nearest_afz", "ttir.floor",
     "sign(x) * floor(|x| + 1/2): halves away from zero"},
    {"stablehlo.round_nearest_even", "ttir.floor",
     "r - (r - x == 1/2) * (r - 2 floor(r / 2)), r = floor(x + 1/2): halves to even"},
    {"stablehlo.tan", "ttir.tan", "elementwise"},
    {"stablehlo.is_finite", "ttir.isfinite", "elementwise, the result typecast to i1 (as i32)"},
    {"stablehlo.not", "ttir.logical_not", "booleans (i1) only"},
    {"stablehlo.and", "ttir.logical_and", "booleans (i1) only"},
    {"stablehlo.or", "ttir.logical_or", "booleans (i1) only"},
    {"stablehlo.xor", "ttir.logical_xor", "booleans (i1) only"},
    {"stablehlo.iota", "ttir.constant",
     "dim = d (generic: iota_dimension) becomes a constant counting 0, 1, ... along d"},
    {"stablehlo.slice", "ttir.slice",
     "[start:limit:stride, ...] (generic: start_indices, limit_indices, strides) becomes "
     "slice{begins, ends, step}"},
    {"stablehlo.pad", "ttir.concat",
     "low = [..], high = [..] (generic: edge_padding_low/high) with a constant padding value "
     "become concats with full blocks of it; interior padding must be 0, edges at least 0"},
    {"stablehlo.reduce", "ttir.sum",
     "applies (or a reducer of one op) add: sum, maximum: max, minimum: neg(max(neg(x))) over "
     "`dimensions`; an init value other than the reducer's identity is combined with the "
     "result"},
    {"stablehlo.convolution", "ttir.conv2d",
     "1 or 2 spatial dims (1-D: a unit dim 1 after dim 0); dim_numbers (generic: "
     "dimension_numbers) give conv2d's dims and the "
     "kernel's permutation to [o, i, 0, 1]; window stride, pad, rhs_dilate and "
     "feature_group_count become stride, padding, dilation and groups; lhs_dilate spreads "
     "the input with zeros; reversal and batch_group_count must be false / 1"},
    {"stablehlo.gather", "ttir.embedding",
     "a lookup along one axis a (start_index_map = collapsed_slice_dims = [a], slice_sizes 1 "
     "at a and whole elsewhere, one index per position): take(operand, indices clamped to "
     "the axis, a), permuted to offset_dims"},
    {"chlo.erf", "ttir.erf", "elementwise (CHLO, as JAX writes the exact gelu)"},
    {"stablehlo.reverse", "ttir.reverse", "dims = [d...] (generic: dimensions)"},
    {"stablehlo.batch_norm_inference", "ttir.batch_norm_inference",
     "(operand, scale, offset, mean, variance) with epsilon; feature_index is the dimension"},
    {"stablehlo.dynamic_slice", "ttir.slice",
     "start indices that fold to constants (constants, or ops on constants), clamped into "
     "[0, extent - size]: slice{begins, ends = begins + sizes}; generic: slice_sizes"},
    {"stablehlo.dynamic_update_slice", "ttir.concat",
     "start indices that fold to constants, clamped: the operand's slices before and after "
     "the update along each dim concatenated around it"},
    {"stablehlo.composite", "",
     "the decomposition function inlined as a call (the composite's name and attributes "
     "only label it)"},
    {"stablehlo.while", "",
     "unrolled: the condition evaluated on the loop values before each trip (the values it "
     "reads must fold to constants), the body's ops copied in per trip"},
    {"stablehlo.optimization_barrier", "",
     "no op: each result is its operand (the barrier only orders XLA's scheduling, as "
     "jax.checkpoint writes it)"},
    {"stablehlo.custom_call", "",
     "@Sharding, @SPMDFullToShardShape and @SPMDShardToFullShape (JAX's sharding "
     "annotations) whose result has its operand's type: no op, as tilesat partitions meshes "
     "itself; any other target is an error"},
    {"stablehlo.reduce_window", "ttir.max_pool2d",
     "windows over at most 2 dims, the others moved ahead and flattened to [1, C, H, W]; "
     "maximum: max_pool2d, add: avg_pool2d (padding counted) times the window size, minimum: "
     "neg(max_pool2d(neg(x))); base dilations must be 1"},
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

/// The fields of `#stablehlo.<kind><key = value, ...>` (gather's dimension numbers) as named
/// attributes; every error is reported at the attribute.
std::vector<NamedAttr> alias_fields(const OpRecord& rec, const ParsedAttr& a, std::string_view key,
                                    std::string_view kind) {
  std::string head = fmt::format("#stablehlo.{}<", kind);
  if (a.kind != ParsedAttr::Kind::Alias || !a.spelling.starts_with(head)) {
    throw Error(a.loc, fmt::format("attribute '{}' of '{}': expected {}...>, got {}", key, rec.name,
                                   head, render_attr(a)));
  }
  std::string body =
      "{" + a.spelling.substr(head.size(), a.spelling.size() - head.size() - 1) + "}";
  try {
    Cursor c(body, a.loc.file);
    std::vector<NamedAttr> fields = parse_attr_dict(c);
    if (!c.is(Tok::Eof)) c.expected("the end of the attribute");
    return fields;
  } catch (const Error& e) {
    throw Error(a.loc, fmt::format("attribute '{}' of '{}': {} (in {})", key, rec.name,
                                   e.diagnostic().message, render_attr(a)));
  }
}

/// The operand nodes of `rec`, which must number `n`.
std::vector<NodeId> operands_of(FunctionScope& s, OpRecord& rec, size_t n) {
  std::vector<NodeId> operands = resolve_operands(s, rec);
  if (operands.size() != n) {
    throw Error(rec.loc, fmt::format("'{}' expects {} operand{}, got {}", rec.name, n,
                                     n == 1 ? "" : "s", operands.size()));
  }
  return operands;
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

/// dot_general's dims: `contracting_dims = [..] x [..]` and `batching_dims` (custom form) or
/// `dot_dimension_numbers = #stablehlo.dot<...>` (generic form).
DotDims dot_general_dims(const OpRecord& rec) {
  std::vector<int64_t> lc, rc, lb, rb;
  if (const ParsedAttr* d = rec.attr("dot_dimension_numbers"); d != nullptr) {
    // The generic form: #stablehlo.dot<lhs_batching_dimensions = [..], ...>.
    for (const auto& [k, v] : alias_fields(rec, *d, "dot_dimension_numbers", "dot")) {
      std::string field = "dot_dimension_numbers." + k;
      std::vector<int64_t>* dims = k == "lhs_contracting_dimensions"   ? &lc
                                   : k == "rhs_contracting_dimensions" ? &rc
                                   : k == "lhs_batching_dimensions"    ? &lb
                                   : k == "rhs_batching_dimensions"    ? &rb
                                                                       : nullptr;
      if (dims == nullptr) {
        throw Error(d->loc, fmt::format("attribute 'dot_dimension_numbers' of '{}': unknown "
                                        "field '{}'",
                                        rec.name, k));
      }
      *dims = int_list(v, field, rec.name);
    }
  } else if (const ParsedAttr* p = find_attr(rec, {"contracting_dims"}); p != nullptr) {
    if (p->kind != ParsedAttr::Kind::Pair || p->elems.size() != 2) {
      throw Error(p->loc, fmt::format("attribute 'contracting_dims' of '{}': expected "
                                      "[lhs dims] x [rhs dims], got {}",
                                      rec.name, render_attr(*p)));
    }
    lc = int_list(p->elems[0], "contracting_dims", rec.name);
    rc = int_list(p->elems[1], "contracting_dims", rec.name);
  } else {
    throw Error(rec.loc, fmt::format("'{}' needs attribute 'contracting_dims' (generic form: "
                                     "'dot_dimension_numbers')",
                                     rec.name));
  }
  if (const ParsedAttr* p = find_attr(rec, {"batching_dims"}); p != nullptr) {
    if (p->kind != ParsedAttr::Kind::Pair || p->elems.size() != 2) {
      throw Error(p->loc, fmt::format("attribute 'batching_dims' of '{}': expected "
                                      "[lhs dims] x [rhs dims], got {}",
                                      rec.name, render_attr(*p)));
    }
    lb = int_list(p->elems[0], "batching_dims", rec.name);
    rb = int_list(p->elems[1], "batching_dims", rec.name);
  }
  return DotDims{lc, rc, lb, rb};
}

/// stablehlo.dot: the last dim of the left operand contracted with the first of the right.
DotDims dot_dims(const OpRecord& rec) {
  if (rec.operand_types.size() != 2) {
    throw Error(rec.loc,
                fmt::format("'{}' expects 2 operands, got {}", rec.name, rec.operand_types.size()));
  }
  int64_t lhs = rec.operand_types[0].shape.rank();
  for (size_t i = 0; i < 2; ++i) {
    int64_t rank = rec.operand_types[i].shape.rank();
    if (rank < 1 || rank > 2) {
      throw Error(rec.operands[i].loc, fmt::format("operand #{} of '{}' has rank {} (expected 1 "
                                                   "or 2)",
                                                   i, rec.name, rank));
    }
  }
  return DotDims{{lhs - 1}, {0}, {}, {}};
}

/// The value of a constant node whose elements are all equal (a splat), or nullopt.
std::optional<double> splat_value(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  if (n.kind == OpKind::Full) return n.attrs.get_or<double>("fill_value", 0.0);
  if (n.kind != OpKind::Constant) return std::nullopt;
  const auto& v = n.attrs.get<std::vector<double>>("value");
  if (v.empty() || std::any_of(v.begin(), v.end(), [&](double x) { return x != v[0]; })) {
    return std::nullopt;
  }
  return v[0];
}

/// The comparison of stablehlo.compare: the first value of the custom form (`GE, %a, %b`) or
/// `comparison_direction = #stablehlo<comparison_direction GE>`.
std::string comparison_direction(const OpRecord& rec) {
  const ParsedAttr* a = find_attr(rec, {"comparison_direction"});
  if (a == nullptr && !rec.positional.empty()) a = &rec.positional[0];
  if (a == nullptr) {
    throw Error(rec.loc, fmt::format("'{}' needs attribute 'comparison_direction'", rec.name));
  }
  std::string dir = a->text;
  constexpr std::string_view head = "comparison_direction ";
  if (size_t at = a->spelling.find(head);
      a->kind == ParsedAttr::Kind::Alias && at != std::string::npos && a->spelling.back() == '>') {
    dir = a->spelling.substr(at + head.size(), a->spelling.size() - at - head.size() - 1);
  }
  for (std::string_view d : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
    if (dir == d && a->kind != ParsedAttr::Kind::String) return dir;
  }
  throw Error(a->loc, fmt::format("attribute 'comparison_direction' of '{}': expected EQ, NE, LT, "
                                  "LE, GT or GE, got {}",
                                  rec.name, render_attr(*a)));
}

/// The comparison as table ops (eq, lt, gt) or tt-mlir composites (ne, le, ge), 1 or 0 in the
/// operands' type.
void import_compare(FunctionScope& s, OpRecord& rec) {
  std::string dir = comparison_direction(rec);
  for (size_t i = rec.attr("comparison_direction") != nullptr ? 0 : 1; i < rec.positional.size();
       ++i) {
    const ParsedAttr& t = rec.positional[i];
    bool type =
        i == 1 && t.kind == ParsedAttr::Kind::Keyword &&
        (t.text == "FLOAT" || t.text == "SIGNED" || t.text == "UNSIGNED" || t.text == "TOTALORDER");
    if (!type) {
      throw Error(t.loc,
                  fmt::format("unexpected value {} in '{}'{}", render_attr(t), rec.name,
                              i == 1 ? " (expected FLOAT, SIGNED, UNSIGNED or TOTALORDER)" : ""));
    }
  }
  std::vector<NodeId> operands = operands_of(s, rec, 2);
  std::string ttir = dir == "EQ" ? "eq" : dir == "LT" ? "lt" : dir == "GT" ? "gt" : dir;
  std::transform(ttir.begin(), ttir.end(), ttir.begin(), [](char c) { return c | 0x20; });
  Value a{operands[0]}, b{operands[1]};
  define_expansion(s, rec, "ttir." + ttir, [&](Builder& bld) {
    if (dir == "EQ") return bld.equal(a, b);
    if (dir == "LT") return bld.less(a, b);
    if (dir == "GT") return bld.greater(a, b);
    return build_ttir_composite(bld, ttir, {a, b}, rec);
  });
}

/// An op read as a tt-mlir composite (ttir_composite.cpp) over the same operands (clamp's
/// reordered); the logical ops only on booleans.
void import_as_composite(FunctionScope& s, OpRecord& rec, std::string_view composite) {
  reject_positional(rec);
  bool logical = composite.starts_with("logical_");
  for (size_t i = 0; logical && i < rec.operands.size(); ++i) {
    std::string element = i < rec.operand_elements.size() ? rec.operand_elements[i] : "";
    if (element != "i1") {
      throw Error(rec.operands[i].loc,
                  fmt::format("operand #{} of '{}' has element type {}: only booleans (i1) are "
                              "supported (bitwise integer ops are not)",
                              i, rec.name, element.empty() ? std::string("unknown") : element));
    }
  }
  size_t arity = composite == "batch_norm_inference"                                   ? 5
                 : composite == "clamp_tensor"                                         ? 3
                 : (logical && composite != "logical_not") || composite == "remainder" ? 2
                                                                                       : 1;
  std::vector<NodeId> operands = operands_of(s, rec, arity);
  std::vector<Value> x;
  for (NodeId id : operands) x.push_back(Value{id});
  if (composite == "clamp_tensor") x = {x[1], x[0], x[2]}; // (min, operand, max)
  define_expansion(s, rec, find_ttir_composite(composite)->reading,
                   [&](Builder& b) { return build_ttir_composite(b, composite, x, rec); });
}

/// A constant counting along `dim` (generic: `iota_dimension`).
void import_iota(FunctionScope& s, OpRecord& rec) {
  reject_positional(rec);
  const ParsedAttr& a = require_attr(rec, {"dim", "iota_dimension"});
  auto d = std::get<int64_t>(convert_attr(a, AttrKind::Int, "dim", rec.name));
  int64_t rank = rec.result_type.shape.rank();
  if (d < 0 || d >= rank) {
    throw Error(a.loc, fmt::format("attribute 'dim' of '{}': dim {} is out of range for rank {}",
                                   rec.name, d, rank));
  }
  if (!rec.operands.empty()) {
    throw Error(rec.operands[0].loc, fmt::format("'{}' takes no operands", rec.name));
  }
  define_expansion(s, rec, "constant",
                   [&](Builder& b) { return counting_constant(b, rec, d, 0.0, 1.0); });
}

/// One integer per dim of `rank` in the attribute written under one of `keys` (`def` when
/// absent and not required).
std::vector<int64_t> per_dim(const OpRecord& rec, std::initializer_list<std::string_view> keys,
                             int64_t rank, std::optional<int64_t> def = std::nullopt) {
  const ParsedAttr* a = find_attr(rec, keys);
  if (a == nullptr && def) return std::vector<int64_t>(static_cast<size_t>(rank), *def);
  if (a == nullptr) require_attr(rec, keys);
  std::vector<int64_t> v = int_list(*a, *keys.begin(), rec.name);
  if (static_cast<int64_t>(v.size()) != rank) {
    throw Error(a->loc, fmt::format("attribute '{}' of '{}': expected {} values (one per dim), "
                                    "got {}",
                                    *keys.begin(), rec.name, rank, v.size()));
  }
  return v;
}

/// Edge padding with a constant value: concats with full blocks (as ttir.pad).
void import_pad(FunctionScope& s, OpRecord& rec) {
  reject_positional(rec);
  std::vector<NodeId> operands = operands_of(s, rec, 2);
  int64_t rank = s.graph.node(operands[0]).type.shape.rank();
  std::vector<int64_t> low = per_dim(rec, {"low", "edge_padding_low"}, rank);
  std::vector<int64_t> high = per_dim(rec, {"high", "edge_padding_high"}, rank);
  std::vector<int64_t> interior = per_dim(rec, {"interior", "interior_padding"}, rank, 0);
  if (std::any_of(interior.begin(), interior.end(), [](int64_t n) { return n != 0; })) {
    throw Error(find_attr(rec, {"interior", "interior_padding"})->loc,
                fmt::format("attribute 'interior' of '{}': only zeros are supported, got [{}]",
                            rec.name, fmt::join(interior, ", ")));
  }
  for (int64_t d = 0; d < rank; ++d) {
    for (bool is_low : {true, false}) {
      int64_t n = (is_low ? low : high)[static_cast<size_t>(d)];
      if (n < 0) {
        const ParsedAttr* a = is_low ? find_attr(rec, {"low", "edge_padding_low"})
                                     : find_attr(rec, {"high", "edge_padding_high"});
        throw Error(a->loc, fmt::format("attribute '{}' of '{}': negative padding {} for dim {} "
                                        "is not supported",
                                        is_low ? "low" : "high", rec.name, n, d));
      }
    }
  }
  std::optional<double> value = splat_value(s.graph, operands[1]);
  if (!value || s.graph.node(operands[1]).type.shape.rank() != 0) {
    throw Error(rec.operands[1].loc, fmt::format("'{}': the padding value {} must be a rank-0 "
                                                 "constant",
                                                 rec.name, rec.operands[1].name));
  }
  define_expansion(s, rec, "concat with full blocks of the padding value", [&](Builder& b) {
    Value x{operands[0]};
    for (int64_t d = 0; d < rank; ++d) {
      x = pad_dim(b, x, d, low[static_cast<size_t>(d)], high[static_cast<size_t>(d)], *value);
    }
    return x;
  });
}

/// The reducers reduce and reduce_window read: add, maximum or minimum.
const std::string& checked_reducer(const OpRecord& rec) {
  if (rec.reducer.empty()) {
    throw Error(rec.loc, fmt::format("'{}' needs a reducer region", rec.name));
  }
  const std::string& op = rec.reducer;
  if (op != "stablehlo.add" && op != "stablehlo.maximum" && op != "stablehlo.minimum") {
    throw Error(rec.reducer_loc, fmt::format("reducer '{}' of '{}' is not supported (expected "
                                             "stablehlo.add, stablehlo.maximum or "
                                             "stablehlo.minimum)",
                                             op, rec.name));
  }
  return op;
}

/// The reducer and the operands (the value, then a rank-0 init value) of a reduce or
/// reduce_window of one operand.
struct ReduceHead {
  std::string op;
  std::vector<NodeId> operands;
};

ReduceHead reduce_head(FunctionScope& s, OpRecord& rec) {
  ReduceHead h{checked_reducer(rec), {}};
  reject_positional(rec);
  h.operands = resolve_operands(s, rec);
  if (h.operands.size() != 2) {
    throw Error(rec.loc, fmt::format("'{}' of {} operands: a reduction of several operands is "
                                     "not supported",
                                     rec.name, h.operands.size() / 2));
  }
  const TensorType& it = s.graph.node(h.operands[1]).type;
  if (it.shape.rank() != 0) {
    throw Error(rec.operands[1].loc, fmt::format("'{}': the init value {} must be rank-0, got {}",
                                                 rec.name, rec.operands[1].name, it.str()));
  }
  return h;
}

/// Whether `init` is the identity of `reducer` on `dtype`: 0 for add; -inf (or the type's
/// lowest value) for maximum; inf (or the highest) for minimum.
bool is_reducer_identity(std::string_view reducer, std::optional<double> init, DType dtype) {
  bool i32 = dtype == DType::I32;
  double lowest = i32 ? -2147483648.0 : -static_cast<double>(FLT_MAX);
  double highest = i32 ? 2147483647.0 : static_cast<double>(FLT_MAX);
  return init && (reducer == "stablehlo.add"       ? *init == 0.0
                  : reducer == "stablehlo.maximum" ? *init <= lowest
                                                   : *init >= highest);
}

/// A reduce whose reducer is one add, maximum or minimum: sum, max, or neg(max(neg(x))); an
/// init value that is not the reducer's identity is combined with the result.
void import_reduce(FunctionScope& s, OpRecord& rec) {
  if (!rec.regions.empty()) return import_arg_reduce(s, rec);
  ReduceHead head = reduce_head(s, rec);
  const std::string& op = head.op;
  const std::vector<NodeId>& operands = head.operands;
  const TensorType& xt = s.graph.node(operands[0]).type;
  std::vector<int64_t> dims = reduce_dimensions(rec, xt.shape.rank());
  bool identity = is_reducer_identity(op, splat_value(s.graph, operands[1]), xt.dtype);
  std::string reading = op == "stablehlo.add"       ? "sum"
                        : op == "stablehlo.maximum" ? "max"
                                                    : "neg(max(neg(x)))";
  if (!identity) reading += " combined with the init value";
  define_expansion(s, rec, reading, [&](Builder& b) {
    Value x{operands[0]}, v{operands[1]};
    ReduceOptions o{.dims = dims};
    Value r = x;
    if (!dims.empty()) {
      r = op == "stablehlo.add"       ? b.sum(x, o)
          : op == "stablehlo.maximum" ? b.max(x, o)
                                      : b.neg(b.max(b.neg(x), o));
    }
    if (identity) return r;
    return op == "stablehlo.add"       ? b.add(r, v)
           : op == "stablehlo.maximum" ? b.maximum(r, v)
                                       : b.minimum(r, v);
  });
}

/// `n` integers of `a` (a splat dense<k> counts as n copies of k).
std::vector<int64_t> n_ints(const OpRecord& rec, const ParsedAttr& a, std::string_view key,
                            size_t n) {
  std::vector<int64_t> v = int_list(a, key, rec.name);
  if (v.size() == 1 && n > 1 && a.kind == ParsedAttr::Kind::Dense) v.assign(n, v[0]);
  if (v.size() != n) {
    throw Error(a.loc, fmt::format("attribute '{}' of '{}': expected {} values, got {}", key,
                                   rec.name, n, v.size()));
  }
  return v;
}

/// Whether every value of a list attribute (ints or booleans) is 0 / false.
bool all_zero(const ParsedAttr& a) {
  if (a.kind == ParsedAttr::Kind::Bool) return !a.b;
  if (a.kind == ParsedAttr::Kind::Int) return a.i == 0;
  return std::all_of(a.elems.begin(), a.elems.end(), all_zero);
}

/// The letters of a convolution's dimension numbers, one list each for the input, the kernel
/// and the output: `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` (custom form) or
/// `#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>` (generic form).
using ConvLetters = std::array<std::vector<std::string>, 3>;

ConvLetters conv_letters(const OpRecord& rec) {
  const ParsedAttr& a = require_attr(rec, {"dim_numbers", "dimension_numbers"});
  auto bad = [&](std::string_view why) {
    return Error(a.loc, fmt::format("attribute 'dim_numbers' of '{}': {}, got {}", rec.name, why,
                                    render_attr(a)));
  };
  constexpr std::string_view form = "expected [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f] (input x "
                                    "kernel -> output)";
  ConvLetters parts;
  if (a.kind == ParsedAttr::Kind::Pair && a.elems.size() == 3) {
    for (size_t p = 0; p < 3; ++p) {
      for (const ParsedAttr& e : a.elems[p].elems) {
        if (e.kind == ParsedAttr::Kind::Keyword) {
          parts[p].push_back(e.text);
        } else if (e.kind == ParsedAttr::Kind::Int) {
          parts[p].push_back(std::to_string(e.i));
        } else {
          throw bad(form);
        }
      }
    }
  } else if (constexpr std::string_view head = "#stablehlo.conv<";
             a.kind == ParsedAttr::Kind::Alias && a.spelling.starts_with(head)) {
    std::string_view body(a.spelling);
    body = body.substr(head.size(), body.size() - head.size() - 1);
    // Lists separated by `x` and `->`; spaces anywhere.
    size_t part = 0;
    bool open = false;
    std::string item;
    std::string_view between[] = {"", "x", "->"};
    std::string gap;
    for (char ch : body) {
      if (ch == ' ') continue;
      if (ch == '[') {
        if (open || part > 2 || gap != between[part]) throw bad(form);
        open = true;
        gap.clear();
      } else if (open && (ch == ',' || ch == ']')) {
        if (item.empty()) throw bad(form);
        parts[part].push_back(std::move(item));
        item.clear();
        if (ch == ']') {
          open = false;
          ++part;
        }
      } else if (open) {
        item += ch;
      } else {
        gap += ch;
      }
    }
    if (part != 3 || open || !gap.empty()) throw bad(form);
  } else {
    throw bad(form);
  }
  // 2-D, or 1-D (spatial dim 0 alone) in all three.
  size_t letters = parts[0].size() == 3 ? 3 : 4;
  const char* sets[3][4] = {{"b", "f", "0", "1"}, {"i", "o", "0", "1"}, {"b", "f", "0", "1"}};
  for (size_t p = 0; p < 3; ++p) {
    std::vector<std::string> want(sets[p], sets[p] + letters), got = parts[p];
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    if (got != want) {
      throw bad(parts[p].size() < 3 || parts[p].size() > 4
                    ? "only 1-D and 2-D convolutions (spatial dims 0, or 0 and 1) are supported"
                    : form);
    }
  }
  return parts;
}

/// Where `letter` is in `dims` (conv_letters checked that it is there).
int64_t letter_at(const std::vector<std::string>& dims, std::string_view letter) {
  return std::find(dims.begin(), dims.end(), letter) - dims.begin();
}

bool is_identity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

/// A window attribute of convolution: in the custom form's `window = {stride = ...}` under
/// `custom`, or in the generic form under `generic`.
const ParsedAttr* window_attr(const OpRecord& rec, std::string_view custom,
                              std::string_view generic) {
  if (const ParsedAttr* w = rec.attr("window"); w != nullptr && w->kind == ParsedAttr::Kind::Dict) {
    for (const ParsedAttr& e : w->elems) {
      if (e.key == custom) return &e;
    }
    return nullptr;
  }
  return rec.attr(generic);
}

/// `x` with `k - 1` zeros between consecutive elements along `d` (StableHLO's lhs_dilation):
/// each element and a block of zeros concatenated along a new dim, flattened, the trailing
/// zeros sliced off.
Value spread(Builder& b, Value x, int64_t d, int64_t k) {
  if (k == 1) return x;
  std::vector<int64_t> dims = b.type(x).shape.dims();
  auto at = static_cast<size_t>(d);
  std::vector<int64_t> split = dims;
  split.insert(split.begin() + d + 1, 1);
  Value column = b.reshape(x, split);
  split[at + 1] = k - 1;
  Value zeros = b.full(Shape(split), 0.0, b.type(x).dtype);
  Value both = b.concat({column, zeros}, d + 1);
  std::vector<int64_t> flat = dims;
  flat[at] *= k;
  Value spread = b.reshape(both, flat);
  std::vector<int64_t> begins(dims.size(), 0), ends = flat;
  ends[at] = (dims[at] - 1) * k + 1;
  return b.slice(spread, begins, ends);
}

/// A 2-D convolution as ttir.conv2d in the input's layout, the kernel permuted to
/// [out, in / groups, 0, 1] and the result to the declared output layout when they differ. A
/// 1-D convolution is a 2-D one with a unit spatial dim 1 after dim 0 of each operand.
void import_convolution(FunctionScope& s, OpRecord& rec) {
  reject_positional(rec);
  std::vector<NodeId> operands = operands_of(s, rec, 2);
  ConvLetters l = conv_letters(rec);
  size_t ns = l[0].size() - 2; // spatial dims
  if (const ParsedAttr* w = rec.attr("window"); w != nullptr && w->kind != ParsedAttr::Kind::Dict) {
    throw Error(w->loc, fmt::format("attribute 'window' of '{}': expected {{stride = [..], pad = "
                                    "[[..], [..]], ...}}, got {}",
                                    rec.name, render_attr(*w)));
  }
  // One value per spatial dim (pad: two), a 1-D window extended by the unit dim's.
  auto spatial = [&](std::string_view custom, std::string_view generic, size_t per, int64_t def) {
    const ParsedAttr* a = window_attr(rec, custom, generic);
    std::vector<int64_t> v =
        a == nullptr ? std::vector<int64_t>(ns * per, def) : n_ints(rec, *a, custom, ns * per);
    v.resize(2 * per, def == 1 ? 1 : 0);
    return v;
  };
  std::vector<int64_t> stride = spatial("stride", "window_strides", 1, 1);
  std::vector<int64_t> dilation = spatial("rhs_dilate", "rhs_dilation", 1, 1);
  std::vector<int64_t> lhs_dilation = spatial("lhs_dilate", "lhs_dilation", 1, 1);
  std::vector<int64_t> pad = spatial("pad", "padding", 2, 0);
  auto unsupported = [&](std::string_view custom, std::string_view generic, std::string what) {
    const ParsedAttr* a = window_attr(rec, custom, generic);
    throw Error(a != nullptr ? a->loc : rec.loc,
                fmt::format("'{}': {} is not supported", rec.name, what));
  };
  for (int64_t v : lhs_dilation) {
    if (v < 1) unsupported("lhs_dilate", "lhs_dilation", fmt::format("input dilation {}", v));
  }
  for (int64_t v : stride) {
    if (v < 1) unsupported("stride", "window_strides", fmt::format("stride {}", v));
  }
  for (int64_t v : dilation) {
    if (v < 1) unsupported("rhs_dilate", "rhs_dilation", fmt::format("dilation {}", v));
  }
  for (int64_t v : pad) {
    if (v < 0) unsupported("pad", "padding", fmt::format("negative padding {}", v));
  }
  if (const ParsedAttr* a = window_attr(rec, "reverse", "window_reversal");
      a != nullptr && !all_zero(*a)) {
    unsupported("reverse", "window_reversal", "a reversed window");
  }
  auto count = [&](std::string_view key) -> int64_t {
    const ParsedAttr* a = rec.attr(key);
    return a == nullptr ? 1 : std::get<int64_t>(convert_attr(*a, AttrKind::Int, key, rec.name));
  };
  int64_t groups = count("feature_group_count");
  if (int64_t bg = count("batch_group_count"); bg != 1) {
    throw Error(rec.attr("batch_group_count")->loc,
                fmt::format("'{}': batch_group_count {} is not supported", rec.name, bg));
  }
  if (ns == 1) {
    for (std::vector<std::string>& part : l) {
      part.insert(part.begin() + letter_at(part, "0") + 1, "1");
    }
  }
  const std::vector<std::string>& in = l[0];
  const std::vector<std::string>& kernel = l[1];
  const std::vector<std::string>& out = l[2];
  Conv2dOptions o;
  o.stride = stride;
  o.dilation = dilation;
  o.padding = {pad[0], pad[2], pad[1], pad[3]}; // [[top, bottom], [left, right]]
  o.groups = groups;
  o.dims = ConvDims{letter_at(in, "b"), letter_at(in, "0"), letter_at(in, "1"), letter_at(in, "f")};
  std::vector<int64_t> kernel_perm = {letter_at(kernel, "o"), letter_at(kernel, "i"),
                                      letter_at(kernel, "0"), letter_at(kernel, "1")};
  std::vector<int64_t> out_perm;
  for (const std::string& d : out) out_perm.push_back(letter_at(in, d));
  // A 1-D operand with its unit dim 1 after dim 0.
  auto unit_after_0 = [&](Builder& b, Value v, const std::vector<std::string>& letters) {
    std::vector<int64_t> dims = b.type(v).shape.dims();
    dims.insert(dims.begin() + letter_at(letters, "0") + 1, 1);
    return b.reshape(v, dims);
  };
  define_expansion(s, rec, "ttir.conv2d", [&](Builder& b) {
    Value x{operands[0]}, w{operands[1]};
    if (ns == 1) {
      x = unit_after_0(b, x, in);
      w = unit_after_0(b, w, kernel);
    }
    // Input dilation (a transposed convolution): zeros between the input's elements.
    x = spread(b, x, letter_at(in, "0"), lhs_dilation[0]);
    x = spread(b, x, letter_at(in, "1"), lhs_dilation[1]);
    if (!is_identity(kernel_perm)) w = b.permute(w, kernel_perm);
    Value y = b.conv2d(x, w, o);
    if (!is_identity(out_perm)) y = b.permute(y, out_perm);
    if (ns == 1) {
      std::vector<int64_t> dims = b.type(y).shape.dims();
      dims.erase(dims.begin() + letter_at(out, "1"));
      y = b.reshape(y, dims);
    }
    return y;
  });
}

/// A pooling reduce_window: the window's dims (at most two) moved last and the others
/// flattened ahead of them, [1, C, H, W]; max_pool2d, avg_pool2d times the window size, or
/// neg(max_pool2d(neg(x))); then the result shaped and ordered back.
void import_reduce_window(FunctionScope& s, OpRecord& rec) {
  ReduceHead head = reduce_head(s, rec);
  const std::string& op = head.op;
  const std::vector<NodeId>& operands = head.operands;
  const TensorType& xt = s.graph.node(operands[0]).type;
  int64_t rank = xt.shape.rank();
  auto n = static_cast<size_t>(rank);
  std::vector<int64_t> window = per_dim(rec, {"window_dimensions"}, rank);
  std::vector<int64_t> stride = per_dim(rec, {"window_strides"}, rank, 1);
  std::vector<int64_t> dilation = per_dim(rec, {"window_dilations"}, rank, 1);
  std::vector<int64_t> base = per_dim(rec, {"base_dilations"}, rank, 1);
  std::vector<int64_t> pad(2 * n, 0);
  if (const ParsedAttr* a = rec.attr("padding")) pad = n_ints(rec, *a, "padding", 2 * n);
  for (size_t d = 0; d < n; ++d) {
    auto fail = [&](std::string_view key, std::string what) {
      throw Error(find_attr(rec, {key})->loc,
                  fmt::format("attribute '{}' of '{}': {} for dim {} is not supported", key,
                              rec.name, what, d));
    };
    if (base[d] != 1) fail("base_dilations", fmt::format("base dilation {}", base[d]));
    if (window[d] < 1) fail("window_dimensions", fmt::format("window {}", window[d]));
    if (stride[d] < 1) fail("window_strides", fmt::format("stride {}", stride[d]));
    if (dilation[d] < 1) fail("window_dilations", fmt::format("dilation {}", dilation[d]));
    if (pad[2 * d] < 0 || pad[2 * d + 1] < 0) fail("padding", "negative padding");
  }
  // The dims the window moves along; trivial dims fill up to two, from the last.
  std::vector<int64_t> spatial;
  for (size_t d = 0; d < n; ++d) {
    if (window[d] != 1 || stride[d] != 1 || pad[2 * d] != 0 || pad[2 * d + 1] != 0) {
      spatial.push_back(static_cast<int64_t>(d));
    }
  }
  if (spatial.size() > 2) {
    throw Error(rec.loc, fmt::format("'{}': a window over {} dims ([{}]) is not supported (at "
                                     "most 2)",
                                     rec.name, spatial.size(), fmt::join(spatial, ", ")));
  }
  if (rank < 2) {
    throw Error(rec.loc, fmt::format("'{}': an operand of rank {} is not supported (at least 2)",
                                     rec.name, rank));
  }
  for (int64_t d = rank - 1; spatial.size() < 2; --d) {
    if (std::find(spatial.begin(), spatial.end(), d) == spatial.end()) spatial.push_back(d);
  }
  std::sort(spatial.begin(), spatial.end());
  std::vector<int64_t> perm, others;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(spatial.begin(), spatial.end(), d) == spatial.end()) others.push_back(d);
  }
  perm = others;
  perm.insert(perm.end(), spatial.begin(), spatial.end());
  auto h = static_cast<size_t>(spatial[0]), w = static_cast<size_t>(spatial[1]);
  Pool2dOptions o;
  o.stride = {stride[h], stride[w]};
  o.dilation = {dilation[h], dilation[w]};
  o.padding = {pad[2 * h], pad[2 * w], pad[2 * h + 1], pad[2 * w + 1]};
  o.count_include_pad = true;
  std::vector<int64_t> kernel = {window[h], window[w]};
  std::optional<double> init = splat_value(s.graph, operands[1]);
  bool identity = is_reducer_identity(op, init, xt.dtype);
  bool padded = o.padding != std::vector<int64_t>{0, 0, 0, 0};
  if (!identity && op == "stablehlo.add" && padded) {
    throw Error(rec.operands[1].loc,
                fmt::format("'{}': an add reducer with padding needs the init value 0", rec.name));
  }
  std::string reading = op == "stablehlo.add"       ? "avg_pool2d times the window size"
                        : op == "stablehlo.maximum" ? "max_pool2d"
                                                    : "neg(max_pool2d(neg(x)))";
  if (!identity) reading += " combined with the init value";
  // Channels last (the window on the two dims before the last, as JAX's NHWC): the pool's
  // flattened NHWC form [1, 1, N*H*W, C], no permutes.
  bool channels_last = spatial[0] == rank - 3 && spatial[1] == rank - 2;
  define_expansion(s, rec, reading, [&](Builder& b) {
    Value x{operands[0]}, v{operands[1]};
    if (!channels_last && !is_identity(perm)) x = b.permute(x, perm);
    std::vector<int64_t> moved = b.type(x).shape.dims();
    auto height = static_cast<size_t>(channels_last ? rank - 3 : rank - 2);
    int64_t lead = 1;
    for (size_t i = 0; i < height; ++i) lead *= moved[i];
    if (channels_last) {
      o.flat = FlatImage{lead, moved[height], moved[height + 1]};
      x = b.reshape(x, {1, 1, o.flat.pixels(), moved[n - 1]});
    } else {
      x = b.reshape(x, {1, lead, moved[n - 2], moved[n - 1]});
    }
    Value r;
    if (op == "stablehlo.add") {
      Value avg = b.avg_pool2d(x, kernel, o);
      r = b.multiply(avg, b.scalar(static_cast<double>(kernel[0] * kernel[1]), xt.dtype));
    } else if (op == "stablehlo.maximum") {
      r = b.max_pool2d(x, kernel, o);
    } else {
      Value negated = b.neg(x);
      r = b.neg(b.max_pool2d(negated, kernel, o));
    }
    // The pooled extents (the pool checked that the window fits).
    std::vector<int64_t> pooled = moved;
    for (size_t i : {height, height + 1}) {
      size_t d = i - height;
      pooled[i] = *window_extent(moved[i], kernel[d], o.stride[d], o.padding[d], o.padding[d + 2],
                                 o.dilation[d], false);
    }
    r = b.reshape(r, pooled);
    if (!channels_last && !is_identity(perm)) {
      std::vector<int64_t> back(n);
      for (size_t i = 0; i < n; ++i) back[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
      r = b.permute(r, back);
    }
    if (identity) return r;
    return op == "stablehlo.add"       ? b.add(r, v)
           : op == "stablehlo.maximum" ? b.maximum(r, v)
                                       : b.minimum(r, v);
  });
}

/// round_nearest_afz (halves away from zero) and round_nearest_even (halves to even), from
/// the floor composite; integers are their own rounding.
void import_round(FunctionScope& s, OpRecord& rec, bool even) {
  reject_positional(rec);
  std::vector<NodeId> operands = operands_of(s, rec, 1);
  std::string_view reading = find_stablehlo_op(rec.name)->how;
  define_expansion(s, rec, reading, [&](Builder& b) {
    Value x{operands[0]};
    DType dt = b.type(x).dtype;
    if (dt == DType::I32) return x;
    auto floor = [&](Value v) { return build_ttir_composite(b, "floor", {v}, rec); };
    Value half = b.scalar(0.5, dt);
    if (!even) {
      Value sign = build_ttir_composite(b, "sign", {x}, rec);
      return b.multiply(sign, floor(b.add(b.abs(x), half)));
    }
    Value r = floor(b.add(x, half));
    Value tie = b.equal(b.subtract(r, x), half);
    Value two = b.scalar(2, dt);
    Value odd = b.subtract(r, b.multiply(two, floor(b.divide(r, two))));
    return b.subtract(r, b.multiply(tie, odd));
  });
}

/// `%r:2 = stablehlo.optimization_barrier %a, %b`: the results are the operands.
void import_optimization_barrier(FunctionScope& s, OpRecord& rec) {
  reject_positional(rec);
  std::vector<NodeId> operands = resolve_operands(s, rec);
  size_t results = std::max<size_t>(1, rec.results.size());
  if (operands.size() != results) {
    throw Error(rec.loc, fmt::format("'{}' has {} operands and {} results: each result is one "
                                     "operand",
                                     rec.name, operands.size(), results));
  }
  define_results(s, rec, operands, "its operand is");
}

/// JAX's sharding annotations: `stablehlo.custom_call @Sharding(%x) {mhlo.sharding = ...}`.
/// On one device (and before tilesat's own mesh partition) they leave the value as it is.
void import_custom_call(FunctionScope& s, OpRecord& rec) {
  reject_positional(rec);
  const ParsedAttr& target = require_attr(rec, {"call_target_name"});
  static constexpr std::array<std::string_view, 3> kAnnotations = {
      "Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"};
  if (target.kind != ParsedAttr::Kind::String ||
      std::find(kAnnotations.begin(), kAnnotations.end(), target.text) == kAnnotations.end()) {
    throw Error(target.loc,
                fmt::format("'{}' of target {} is not supported (tilesat reads @{} as "
                            "annotations of one value)",
                            rec.name, render_attr(target), fmt::join(kAnnotations, ", @")));
  }
  std::vector<NodeId> operands = operands_of(s, rec, 1);
  const TensorType& t = s.graph.node(operands[0]).type;
  if (!t.same_value_type(rec.result_type)) {
    throw Error(rec.name_loc,
                fmt::format("'{}' @{} changes {} to {}: a shard's shape needs the partition it "
                            "came from (export the model unsharded, or let tilesat partition "
                            "it: --device t3k)",
                            rec.name, target.text, t.str(), rec.result_type.str()));
  }
  define_alias(s, rec, operands[0]);
}

/// A gather that looks up whole slices along one axis (JAX's jnp.take and embedding lookups):
/// take(operand, indices, axis), the indices clamped into the axis as StableHLO clamps start
/// indices, the result permuted when offset_dims place the slice dims otherwise.
void import_gather(FunctionScope& s, OpRecord& rec) {
  reject_positional(rec);
  std::vector<NodeId> operands = operands_of(s, rec, 2);
  const TensorType& xt = s.graph.node(operands[0]).type;
  const TensorType& it = s.graph.node(operands[1]).type;
  const ParsedAttr& dn = require_attr(rec, {"dimension_numbers"});
  std::vector<int64_t> offset, collapsed, start_map, operand_batch, index_batch;
  std::optional<int64_t> vector_dim;
  for (const auto& [k, v] : alias_fields(rec, dn, "dimension_numbers", "gather")) {
    std::string field = "dimension_numbers." + k;
    if (k == "offset_dims")
      offset = int_list(v, field, rec.name);
    else if (k == "collapsed_slice_dims")
      collapsed = int_list(v, field, rec.name);
    else if (k == "start_index_map")
      start_map = int_list(v, field, rec.name);
    else if (k == "operand_batching_dims")
      operand_batch = int_list(v, field, rec.name);
    else if (k == "start_indices_batching_dims")
      index_batch = int_list(v, field, rec.name);
    else if (k == "index_vector_dim")
      vector_dim = std::get<int64_t>(convert_attr(v, AttrKind::Int, field, rec.name));
    else
      throw Error(dn.loc, fmt::format("attribute 'dimension_numbers' of '{}': unknown field '{}'",
                                      rec.name, k));
  }
  int64_t rank = xt.shape.rank(), index_rank = it.shape.rank();
  std::vector<int64_t> sizes = per_dim(rec, {"slice_sizes"}, rank);
  int64_t vd = vector_dim.value_or(index_rank);
  auto unsupported = [&](const std::string& why) {
    throw Error(dn.loc, fmt::format("'{}': {} is not supported (a lookup along one axis is: "
                                    "start_index_map = collapsed_slice_dims = [a], slice_sizes 1 "
                                    "at a and whole elsewhere, one index per position)",
                                    rec.name, why));
  };
  if (!operand_batch.empty() || !index_batch.empty()) unsupported("a batched gather");
  if (start_map.size() != 1 || collapsed != start_map) {
    unsupported(fmt::format("start_index_map [{}] with collapsed_slice_dims [{}]",
                            fmt::join(start_map, ", "), fmt::join(collapsed, ", ")));
  }
  int64_t axis = start_map[0];
  if (axis < 0 || axis >= rank)
    unsupported(fmt::format("axis {} of a rank-{} operand", axis, rank));
  for (int64_t d = 0; d < rank; ++d) {
    int64_t want = d == axis ? 1 : xt.shape[d];
    if (sizes[static_cast<size_t>(d)] != want) {
      unsupported(
          fmt::format("slice_sizes [{}] of a {} operand", fmt::join(sizes, ", "), xt.shape.str()));
    }
  }
  if (vd < 0 || vd > index_rank || (vd < index_rank && it.shape[vd] != 1)) {
    unsupported(fmt::format("index_vector_dim {} of {} indices", vd, it.shape.str()));
  }
  std::vector<int64_t> batch = it.shape.dims();
  if (vd < index_rank) batch.erase(batch.begin() + vd);
  auto nb = static_cast<int64_t>(batch.size());
  std::vector<int64_t> sorted = offset;
  std::sort(sorted.begin(), sorted.end());
  if (static_cast<int64_t>(offset.size()) != rank - 1 || sorted != offset ||
      std::adjacent_find(offset.begin(), offset.end()) != offset.end() ||
      (!offset.empty() && (offset.front() < 0 || offset.back() >= nb + rank - 1))) {
    unsupported(fmt::format("offset_dims [{}]", fmt::join(offset, ", ")));
  }
  // take's result: the operand's dims before the axis, the batch dims, the dims after it.
  // perm[r]: where result dim r is in take's result.
  std::vector<int64_t> perm;
  int64_t k = 0, j = 0;
  for (int64_t r = 0; r < nb + rank - 1; ++r) {
    if (std::find(offset.begin(), offset.end(), r) != offset.end()) {
      perm.push_back(k < axis ? k : k + nb);
      ++k;
    } else {
      perm.push_back(axis + j++);
    }
  }
  int64_t extent = xt.shape[axis];
  define_expansion(s, rec, "take", [&](Builder& b) {
    Value ids{operands[1]};
    if (b.type(ids).dtype != DType::I32) ids = b.typecast(ids, DType::I32);
    if (vd < index_rank) ids = b.reshape(ids, batch);
    Value low = b.maximum(ids, b.scalar(0, DType::I32));
    ids = b.minimum(low, b.scalar(static_cast<double>(extent - 1), DType::I32));
    Value y = b.take(Value{operands[0]}, ids, axis);
    return is_identity(perm) ? y : b.permute(y, perm);
  });
}

/// `rec`'s attribute `from` (when present) under the name `to`.
void rename_attr(OpRecord& rec, std::string_view from, std::string_view to) {
  for (auto& [k, v] : rec.attrs) {
    if (k == from) k = std::string(to);
  }
}

} // namespace

void reject_positional(const OpRecord& rec) {
  if (!rec.positional.empty()) {
    throw Error(rec.positional[0].loc, fmt::format("unexpected value {} in '{}'",
                                                   render_attr(rec.positional[0]), rec.name));
  }
}

std::vector<int64_t> reduce_dimensions(const OpRecord& rec, int64_t rank) {
  const ParsedAttr& da = require_attr(rec, {"dimensions"});
  std::vector<int64_t> dims = int_list(da, "dimensions", rec.name);
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[static_cast<size_t>(d)]) {
      throw Error(da.loc, fmt::format("attribute 'dimensions' of '{}': dim {} is out of range or "
                                      "repeated for rank {}",
                                      rec.name, d, rank));
    }
    seen[static_cast<size_t>(d)] = true;
  }
  return dims;
}

void import_stablehlo_op(FunctionScope& s, OpRecord& rec) {
  const StableHloOpMapping* m = find_stablehlo_op(rec.name);
  if (m == nullptr) throw Error(rec.loc, fmt::format("unsupported StableHLO op '{}'", rec.name));
  if (!rec.has_result_type) throw Error(rec.loc, fmt::format("'{}' has no result type", rec.name));
  // The name after its dialect ("stablehlo." or "chlo.").
  std::string_view op = std::string_view(rec.name).substr(rec.name.find('.') + 1);
  if (op == "optimization_barrier") return import_optimization_barrier(s, rec);
  if (op == "custom_call") return import_custom_call(s, rec);
  if (op == "dynamic_slice") return import_dynamic_slice(s, rec);
  if (op == "while") throw Error(rec.loc, fmt::format("'{}' needs a body region", rec.name));
  if (op.starts_with("round_nearest_")) return import_round(s, rec, op == "round_nearest_even");
  if (op == "dynamic_update_slice") return import_dynamic_update_slice(s, rec);
  std::string_view ttir = m->ttir.substr(5);
  if (op == "compare") return import_compare(s, rec);
  if (op == "iota") return import_iota(s, rec);
  if (op == "pad") return import_pad(s, rec);
  if (op == "reduce") return import_reduce(s, rec);
  if (op == "reduce_window") return import_reduce_window(s, rec);
  if (op == "convolution") return import_convolution(s, rec);
  if (op == "gather") return import_gather(s, rec);
  // Attributes the composites name otherwise.
  if (op == "batch_norm_inference") rename_attr(rec, "feature_index", "dimension");
  if (op == "reverse") rename_attr(rec, "dims", "dimensions");
  if (find_ttir_composite(ttir) != nullptr) return import_as_composite(s, rec, ttir);
  OpKind kind = *op_by_name(ttir);
  const TensorType& rt = rec.result_type;
  Attrs attrs;
  if (op == "transpose") {
    transpose_attrs(rec, kind, attrs);
  } else if (op == "dot_general" || op == "dot") {
    DotDims d = op == "dot" ? dot_dims(rec) : dot_general_dims(rec);
    if (!matmul_transposes(rec, d, attrs)) return define_general_dot(s, rec, d);
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
  } else if (op == "slice") {
    attrs.set("begins", int_list(require_attr(rec, {"start_indices"}), "start_indices", rec.name));
    attrs.set("ends", int_list(require_attr(rec, {"limit_indices"}), "limit_indices", rec.name));
    if (const ParsedAttr* st = find_attr(rec, {"strides"})) {
      attrs.set("step", int_list(*st, "strides", rec.name));
    }
  }
  if (op != "constant") reject_positional(rec);
  std::vector<NodeId> operands = resolve_operands(s, rec);
  NodeId id = s.graph.add_op_typed(kind, std::move(operands), std::move(attrs), rt, rec.loc);
  define_result(s, rec, id);
}

} // namespace text
} // namespace tilesat
