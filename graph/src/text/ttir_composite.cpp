// ttir_composite.cpp: tt-mlir ops outside the op table, expanded into table ops as read.
//
// Each entry names the op, the operands and attributes it takes, how it is read (the text of
// `ttir_composite_ops()`) and a function that builds the expansion with the graph Builder.
// The expansion's nodes carry the op's location, an error inside it names the op, and its
// result must have the declared shape (a declared element type that differs is a typecast).
// That machinery (define_expansion) and the expansions themselves (build_ttir_composite,
// pad_dim, counting_constant) are shared with the StableHLO importer through import.h.
#include "text/import.h"
#include "tilesat/graph/builder.h"
#include "tilesat/graph/ttir_composites.h"

#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tilesat::text {
namespace {

/// The most elements an expansion holds in one constant it computes (arange's values,
/// cumsum's triangle).
constexpr int kMaxFoldedLog2 = 26;
constexpr int64_t kMaxFoldedElements = int64_t{1} << kMaxFoldedLog2;

} // namespace

Value pad_dim(Builder& b, Value x, int64_t d, int64_t low, int64_t high, double value) {
  auto block = [&](int64_t n) {
    std::vector<int64_t> dims = b.type(x).shape.dims();
    dims[static_cast<size_t>(d)] = n;
    return b.full(Shape(dims), value, b.type(x).dtype);
  };
  std::vector<Value> parts;
  if (low > 0) parts.push_back(block(low));
  parts.push_back(x);
  if (high > 0) parts.push_back(block(high));
  return parts.size() > 1 ? b.concat(parts, d) : x;
}

Value counting_constant(Builder& b, const OpRecord& rec, int64_t d, double start, double step) {
  const TensorType& rt = rec.result_type;
  if (rt.shape.numel() > kMaxFoldedElements) {
    throw Error(rec.loc, fmt::format("'{}': the result {} has more than 2^{} elements, too many "
                                     "to hold as a constant",
                                     rec.name, rt.str(), kMaxFoldedLog2));
  }
  Tensor t(TensorType{rt.dtype, rt.shape, {}});
  int64_t inner = 1;
  for (int64_t i = d + 1; i < rt.shape.rank(); ++i) inner *= rt.shape[i];
  for (int64_t i = 0; i < t.numel(); ++i) {
    t[i] = static_cast<float>(start + step * static_cast<double>((i / inner) % rt.shape[d]));
  }
  return b.constant(t);
}

namespace {

/// One op being expanded: its operands as Builder values and its attributes.
struct Expansion {
  Builder& b;
  std::vector<Value> x;
  const OpRecord& rec;

  DType dtype(Value v) const { return b.type(v).dtype; }
  const Shape& shape(Value v) const { return b.type(v).shape; }
  Value scalar(double v, Value like) { return b.scalar(v, dtype(like)); }

  const ParsedAttr* find(std::string_view key) const { return rec.attr(key); }
  [[noreturn]] void missing(std::string_view key) const {
    throw Error(rec.loc, fmt::format("'{}' needs attribute '{}'", rec.name, key));
  }
  double number(std::string_view key, std::optional<double> def = std::nullopt) const {
    if (const ParsedAttr* a = find(key)) {
      return std::get<double>(convert_attr(*a, AttrKind::Float, key, rec.name));
    }
    if (!def) missing(key);
    return *def;
  }
  int64_t integer(std::string_view key, std::optional<int64_t> def = std::nullopt) const {
    if (const ParsedAttr* a = find(key)) {
      return std::get<int64_t>(convert_attr(*a, AttrKind::Int, key, rec.name));
    }
    if (!def) missing(key);
    return *def;
  }
  bool flag(std::string_view key, bool def) const {
    if (const ParsedAttr* a = find(key)) {
      return std::get<bool>(convert_attr(*a, AttrKind::Bool, key, rec.name));
    }
    return def;
  }
  std::string string(std::string_view key, std::string def) const {
    if (const ParsedAttr* a = find(key)) {
      return std::get<std::string>(convert_attr(*a, AttrKind::String, key, rec.name));
    }
    return def;
  }
  /// An int list; a single integer counts as a list of one.
  std::vector<int64_t> ints(std::string_view key,
                            std::optional<std::vector<int64_t>> def = std::nullopt) const {
    if (const ParsedAttr* a = find(key)) {
      if (a->kind == ParsedAttr::Kind::Int) return {a->i};
      return int_list(*a, key, rec.name);
    }
    if (!def) missing(key);
    return *def;
  }
  /// `d` counted from the end when negative, checked against `rank`.
  int64_t dim(int64_t d, int64_t rank, std::string_view key) const {
    int64_t n = d < 0 ? d + rank : d;
    if (n < 0 || n >= rank) {
      throw Error(find(key) != nullptr ? find(key)->loc : rec.loc,
                  fmt::format("attribute '{}' of '{}': dim {} is out of range for rank {}", key,
                              rec.name, d, rank));
    }
    return n;
  }
  /// The reduced dims of `dim_arg` (all when absent), each in range.
  ReduceOptions reduce_options(Value v) const {
    int64_t rank = shape(v).rank();
    ReduceOptions o;
    o.keep_dim = flag("keep_dim", false);
    for (int64_t d : ints("dim_arg", std::vector<int64_t>{}))
      o.dims.push_back(dim(d, rank, "dim_arg"));
    return o;
  }
};

// 1 where `v` is nonzero, else 0.
Value truth(Expansion& e, Value v) {
  Value one = e.scalar(1, v);
  Value zero = e.scalar(0, v);
  return e.b.subtract(one, e.b.equal(v, zero));
}

// `x` repeated `times` along `d`: each copy after the last (`interleave` false: the whole
// extent repeats, as ttir.repeat) or each element `times` over (true, as repeat_interleave).
Value repeat_along(Builder& b, Value x, int64_t d, int64_t times, bool interleave) {
  if (times == 1) return x;
  std::vector<int64_t> dims = b.type(x).shape.dims();
  if (dims[static_cast<size_t>(d)] == 1) {
    dims[static_cast<size_t>(d)] = times;
    return b.broadcast(x, Shape(dims));
  }
  std::vector<int64_t> split = dims;
  auto at = split.begin() + d + (interleave ? 1 : 0);
  split.insert(at, 1);
  Value grown = b.reshape(x, split);
  split[static_cast<size_t>(d + (interleave ? 1 : 0))] = times;
  grown = b.broadcast(grown, Shape(split));
  dims[static_cast<size_t>(d)] *= times;
  return b.reshape(grown, dims);
}

// A constant whose values count 0, 1, ... along `d` of `shape` (the other dims 1).
Value iota(Builder& b, int64_t n, int64_t d, int64_t rank, DType dtype) {
  std::vector<int64_t> dims(static_cast<size_t>(rank), 1);
  dims[static_cast<size_t>(d)] = n;
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = static_cast<double>(i);
  return b.constant(Shape(dims), std::move(values), dtype);
}

// --- Elementwise ---

Value ge(Expansion& e) {
  Value gt = e.b.greater(e.x[0], e.x[1]);
  Value eq = e.b.equal(e.x[0], e.x[1]);
  return e.b.maximum(gt, eq);
}
Value le(Expansion& e) {
  Value lt = e.b.less(e.x[0], e.x[1]);
  Value eq = e.b.equal(e.x[0], e.x[1]);
  return e.b.maximum(lt, eq);
}
Value ne(Expansion& e) {
  Value eq = e.b.equal(e.x[0], e.x[1]);
  return e.b.subtract(e.scalar(1, eq), eq);
}
Value logical_not(Expansion& e) {
  return e.b.equal(e.x[0], e.scalar(0, e.x[0]));
}
Value logical_and(Expansion& e) {
  Value a = truth(e, e.x[0]);
  Value b = truth(e, e.x[1]);
  return e.b.multiply(a, b);
}
Value logical_or(Expansion& e) {
  Value a = truth(e, e.x[0]);
  Value b = truth(e, e.x[1]);
  return e.b.maximum(a, b);
}
Value logical_xor(Expansion& e) {
  Value a = truth(e, e.x[0]);
  Value b = truth(e, e.x[1]);
  Value same = e.b.equal(a, b);
  return e.b.subtract(e.scalar(1, same), same);
}
// The value truncated toward zero (through i32), then moved down (floor) or up (ceil) by one
// where that went the wrong way.
Value round_to_integer(Expansion& e, bool up) {
  Value x = e.x[0];
  if (e.dtype(x) == DType::I32) return x;
  Value t = e.b.typecast(e.b.typecast(x, DType::I32), e.dtype(x));
  return up ? e.b.add(t, e.b.less(t, x)) : e.b.subtract(t, e.b.greater(t, x));
}
Value floor_op(Expansion& e) {
  return round_to_integer(e, false);
}
Value ceil_op(Expansion& e) {
  return round_to_integer(e, true);
}
// x - y * trunc(x / y), the sign of x (C's fmod; StableHLO's remainder, which tt-mlir reads
// as ttir.remainder); integers through f32 (exact below 2^24).
Value remainder(Expansion& e) {
  DType dt = e.dtype(e.x[0]);
  DType real = dt == DType::I32 ? DType::F32 : dt;
  auto cast = [&](Value v, DType to) { return e.dtype(v) == to ? v : e.b.typecast(v, to); };
  Value x = cast(e.x[0], real), y = cast(e.x[1], real);
  Value t = cast(cast(e.b.divide(x, y), DType::I32), real);
  return cast(e.b.subtract(x, e.b.multiply(y, t)), dt);
}
Value sign(Expansion& e) {
  Value x = e.x[0];
  Value zero = e.scalar(0, x);
  Value positive = e.b.greater(x, zero);
  Value negative = e.b.less(x, zero);
  return e.b.subtract(positive, negative);
}
Value clamp_scalar(Expansion& e) {
  Value x = e.x[0];
  double lo = e.number("min"), hi = e.number("max");
  Value above = e.b.maximum(x, e.scalar(lo, x));
  return e.b.minimum(above, e.scalar(hi, x));
}
Value clamp_tensor(Expansion& e) {
  return e.b.minimum(e.b.maximum(e.x[0], e.x[1]), e.x[2]);
}
Value leaky_relu(Expansion& e) {
  Value x = e.x[0];
  double slope = e.number("parameter", 0.01);
  Value below = e.b.minimum(x, e.scalar(0, x));
  Value negative = e.b.multiply(below, e.scalar(slope, x));
  Value positive = e.b.relu(x);
  return e.b.add(positive, negative);
}
Value relu6(Expansion& e) {
  Value r = e.b.relu(e.x[0]);
  return e.b.minimum(r, e.scalar(6, e.x[0]));
}
Value hardsigmoid(Expansion& e) {
  Value x = e.x[0];
  Value scaled = e.b.multiply(x, e.scalar(1.0 / 6.0, x));
  Value y = e.b.add(scaled, e.scalar(0.5, x));
  Value above = e.b.maximum(y, e.scalar(0, x));
  return e.b.minimum(above, e.scalar(1, x));
}
Value log1p(Expansion& e) {
  return e.b.log(e.b.add(e.x[0], e.scalar(1, e.x[0])));
}
Value expm1(Expansion& e) {
  Value ex = e.b.exp(e.x[0]);
  return e.b.subtract(ex, e.scalar(1, e.x[0]));
}
Value tan(Expansion& e) {
  Value s = e.b.sin(e.x[0]);
  Value c = e.b.cos(e.x[0]);
  return e.b.divide(s, c);
}
Value isfinite(Expansion& e) {
  Value x = e.x[0];
  Value diff = e.b.subtract(x, x);
  return e.b.equal(diff, e.scalar(0, x));
}
Value square(Expansion& e) {
  return e.b.multiply(e.x[0], e.x[0]);
}
Value erfc(Expansion& e) {
  Value one = e.scalar(1, e.x[0]);
  return e.b.subtract(one, e.b.erf(e.x[0]));
}

// --- Data movement ---

// squeeze and unsqueeze: a reshape to the shape the dim implies.
Value squeeze(Expansion& e) {
  std::vector<int64_t> dims = e.shape(e.x[0]).dims();
  int64_t d = e.dim(e.integer("dim"), static_cast<int64_t>(dims.size()), "dim");
  if (dims[static_cast<size_t>(d)] != 1) {
    throw Error(e.find("dim")->loc, fmt::format("attribute 'dim' of '{}': dim {} has extent {}, "
                                                "expected 1",
                                                e.rec.name, d, dims[static_cast<size_t>(d)]));
  }
  dims.erase(dims.begin() + d);
  return e.b.reshape(e.x[0], dims);
}
Value unsqueeze(Expansion& e) {
  std::vector<int64_t> dims = e.shape(e.x[0]).dims();
  int64_t d = e.dim(e.integer("dim"), static_cast<int64_t>(dims.size()) + 1, "dim");
  dims.insert(dims.begin() + d, 1);
  return e.b.reshape(e.x[0], dims);
}
Value repeat(Expansion& e) {
  Value x = e.x[0];
  std::vector<int64_t> times = e.ints("repeat_dimensions");
  int64_t rank = e.shape(x).rank();
  if (static_cast<int64_t>(times.size()) != rank) {
    throw Error(e.find("repeat_dimensions")->loc,
                fmt::format("attribute 'repeat_dimensions' of '{}': expected {} factors (the "
                            "operand's rank), got {}",
                            e.rec.name, rank, times.size()));
  }
  for (int64_t d = 0; d < rank; ++d) {
    int64_t t = times[static_cast<size_t>(d)];
    if (t < 1) {
      throw Error(e.find("repeat_dimensions")->loc,
                  fmt::format("attribute 'repeat_dimensions' of '{}': factor {} for dim {}, "
                              "expected at least 1",
                              e.rec.name, t, d));
    }
    x = repeat_along(e.b, x, d, t, false);
  }
  return x;
}
Value repeat_interleave(Expansion& e) {
  Value x = e.x[0];
  int64_t times = e.integer("repeats");
  if (times < 1) {
    throw Error(
        e.find("repeats")->loc,
        fmt::format("attribute 'repeats' of '{}': expected at least 1, got {}", e.rec.name, times));
  }
  int64_t d = e.dim(e.integer("dim"), e.shape(x).rank(), "dim");
  return repeat_along(e.b, x, d, times, true);
}
// Blocks of the pad value concatenated before and after each padded dim.
Value pad(Expansion& e) {
  Value x = e.x[0];
  std::vector<int64_t> p = e.ints("padding");
  int64_t rank = e.shape(x).rank();
  const SourceLoc& at = e.find("padding")->loc;
  if (static_cast<int64_t>(p.size()) != 2 * rank) {
    throw Error(at, fmt::format("attribute 'padding' of '{}': expected {} values (low and high "
                                "per dim), got {}",
                                e.rec.name, 2 * rank, p.size()));
  }
  double value = e.number("value", 0.0);
  for (int64_t d = 0; d < rank; ++d) {
    for (int side = 0; side < 2; ++side) {
      int64_t n = p[static_cast<size_t>(2 * d + side)];
      if (n < 0) {
        throw Error(at, fmt::format("attribute 'padding' of '{}': negative padding {} for dim {}",
                                    e.rec.name, n, d));
      }
    }
    x = pad_dim(e.b, x, d, p[static_cast<size_t>(2 * d)], p[static_cast<size_t>(2 * d + 1)], value);
  }
  return x;
}
Value reverse(Expansion& e) {
  Value x = e.x[0];
  int64_t rank = e.shape(x).rank();
  for (int64_t raw : e.ints("dimensions")) {
    int64_t d = e.dim(raw, rank, "dimensions");
    int64_t n = e.shape(x)[d];
    std::vector<double> idx(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) idx[static_cast<size_t>(i)] = static_cast<double>(n - 1 - i);
    x = e.b.take(x, e.b.constant(Shape{n}, std::move(idx), DType::I32), d);
  }
  return x;
}
// A constant of the result type counting from start by step along arange_dimension.
Value arange(Expansion& e) {
  const TensorType& rt = e.rec.result_type;
  double start = e.number("start"), end = e.number("end"), step = e.number("step", 1.0);
  int64_t d = e.dim(e.integer("arange_dimension", 0), std::max<int64_t>(rt.shape.rank(), 1),
                    "arange_dimension");
  if (step == 0) {
    throw Error(e.find("step")->loc,
                fmt::format("attribute 'step' of '{}': expected a nonzero step", e.rec.name));
  }
  double count = std::ceil((end - start) / step);
  if (rt.shape.rank() == 0 || !(count == static_cast<double>(rt.shape[d]))) {
    throw Error(e.rec.loc, fmt::format("'{}': {} values from {} to {} by {}, but the result type "
                                       "{} has {} along dim {}",
                                       e.rec.name, std::max(count, 0.0), start, end, step, rt.str(),
                                       rt.shape.rank() == 0 ? 1 : rt.shape[d], d));
  }
  return counting_constant(e.b, e.rec, d, start, step);
}
// One dim's window [begin, end) by step, the other dims whole (a slice).
Value index(Expansion& e) {
  Value x = e.x[0];
  const Shape& in = e.shape(x);
  int64_t d = e.dim(e.integer("dim"), in.rank(), "dim");
  std::vector<int64_t> begins(static_cast<size_t>(in.rank()), 0),
      ends = in.dims(), steps(static_cast<size_t>(in.rank()), 1);
  begins[static_cast<size_t>(d)] = e.integer("begin");
  ends[static_cast<size_t>(d)] = e.integer("end");
  steps[static_cast<size_t>(d)] = e.integer("step", 1);
  return e.b.slice(x, begins, ends, steps);
}
Value embedding(Expansion& e) {
  Value ids = e.x[0];
  if (e.dtype(ids) != DType::I32) ids = e.b.typecast(ids, DType::I32);
  return e.b.take(e.x[1], ids, 0);
}
Value upsample2d(Expansion& e) {
  Value x = e.x[0];
  if (e.shape(x).rank() != 4) {
    throw Error(e.rec.loc, fmt::format("'{}': expected an NHWC operand of rank 4, got {}",
                                       e.rec.name, e.b.type(x).str()));
  }
  std::string mode = e.string("mode", "nearest");
  if (mode != "nearest") {
    throw Error(e.find("mode")->loc,
                fmt::format("attribute 'mode' of '{}': only \"nearest\" is supported, got \"{}\"",
                            e.rec.name, mode));
  }
  std::vector<int64_t> f = e.ints("scale_factor");
  if (f.size() == 1) f.push_back(f[0]);
  if (f.size() != 2 || f[0] < 1 || f[1] < 1) {
    throw Error(e.find("scale_factor")->loc,
                fmt::format("attribute 'scale_factor' of '{}': expected one or two positive "
                            "integers, got {}",
                            e.rec.name, fmt::join(f, ", ")));
  }
  x = repeat_along(e.b, x, 1, f[0], true);
  return repeat_along(e.b, x, 2, f[1], true);
}

// --- Normalization ---

// Inference batch norm: (x - mean) * (scale / sqrt(variance + epsilon)) + offset, the
// per-channel vectors along `dimension`.
Value batch_norm(Expansion& e) {
  if (e.flag("training", false)) {
    throw Error(e.find("training")->loc,
                fmt::format("attribute 'training' of '{}': only inference (false) is supported",
                            e.rec.name));
  }
  Value x = e.x[0], scale = e.x[1], offset = e.x[2], mean = e.x[3], var = e.x[4];
  int64_t d = e.dim(e.integer("dimension", 1), e.shape(x).rank(), "dimension");
  double eps = e.number("epsilon", 1e-5);
  BinaryOptions along{.broadcast_dims = {d}};
  Value factor = e.b.multiply(e.b.rsqrt(e.b.add(var, e.scalar(eps, var))), scale);
  Value y = e.b.multiply(e.b.subtract(x, mean, along), factor, along);
  return e.b.add(y, offset, along);
}

// --- Reductions ---

Value min_op(Expansion& e) {
  Value negated = e.b.neg(e.x[0]);
  return e.b.neg(e.b.max(negated, e.reduce_options(e.x[0])));
}
Value reduce_and(Expansion& e) {
  Value zero = e.b.equal(e.x[0], e.scalar(0, e.x[0]));
  Value any_zero = e.b.max(zero, e.reduce_options(e.x[0]));
  return e.b.subtract(e.scalar(1, any_zero), any_zero);
}
Value reduce_or(Expansion& e) {
  return e.b.max(truth(e, e.x[0]), e.reduce_options(e.x[0]));
}
// The first index of the maximum along one dim, computed in f32 (exact indices below 2^24).
Value argmax(Expansion& e) {
  Value x = e.x[0];
  if (e.dtype(x) != DType::F32) x = e.b.typecast(x, DType::F32);
  int64_t rank = e.shape(x).rank();
  ReduceOptions o = e.reduce_options(x);
  if (o.dims.size() != 1) {
    throw Error(e.rec.loc, fmt::format("'{}': expected one dim in 'dim_arg', got {}", e.rec.name,
                                       o.dims.size()));
  }
  int64_t d = o.dims[0], n = e.shape(x)[d];
  Value hit = e.b.equal(x, e.b.max(x, {.dims = {d}, .keep_dim = true}));
  Value idx = iota(e.b, n, d, rank, DType::F32);
  Value candidates = e.b.where(hit, idx, e.b.scalar(static_cast<double>(n), DType::F32));
  return e.b.neg(e.b.max(e.b.neg(candidates), {.dims = {d}, .keep_dim = o.keep_dim}));
}
// A running sum along `dim`: a matrix product with an upper triangle of ones.
Value cumsum(Expansion& e) {
  Value x = e.x[0];
  DType dt = e.dtype(x);
  if (dt == DType::I32) x = e.b.typecast(x, DType::F32);
  int64_t rank = e.shape(x).rank();
  int64_t d = e.dim(e.integer("dim"), rank, "dim");
  if (d != rank - 1) x = e.b.transpose(x, d, rank - 1);
  int64_t n = e.shape(x)[rank - 1];
  if (n * n > kMaxFoldedElements) {
    throw Error(e.rec.loc, fmt::format("'{}': a running sum over {} values takes a {} x {} "
                                       "matrix, more than 2^{} elements",
                                       e.rec.name, n, n, n, kMaxFoldedLog2));
  }
  std::vector<double> tri(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i; j < n; ++j) tri[static_cast<size_t>(i * n + j)] = 1.0;
  Value y = e.b.matmul(x, e.b.constant(Shape{n, n}, std::move(tri), e.dtype(x)));
  if (d != rank - 1) y = e.b.transpose(y, d, rank - 1);
  return dt == DType::I32 ? e.b.typecast(y, dt) : y;
}

struct Entry {
  TtirComposite doc;
  int min_operands;
  int max_operands;
  Value (*build)(Expansion&);
};

const Entry kEntries[] = {
    {{"ge", "", "maximum(gt(a, b), eq(a, b))"}, 2, 2, ge},
    {{"le", "", "maximum(lt(a, b), eq(a, b))"}, 2, 2, le},
    {{"ne", "", "1 - eq(a, b)"}, 2, 2, ne},
    {{"logical_not", "", "eq(x, 0)"}, 1, 1, logical_not},
    {{"logical_and", "", "(1 - eq(a, 0)) * (1 - eq(b, 0))"}, 2, 2, logical_and},
    {{"logical_or", "", "maximum(1 - eq(a, 0), 1 - eq(b, 0))"}, 2, 2, logical_or},
    {{"logical_xor", "", "1 - eq(1 - eq(a, 0), 1 - eq(b, 0))"}, 2, 2, logical_xor},
    {{"floor", "", "t - gt(t, x), t = x truncated through i32 (magnitudes below 2^31)"},
     1,
     1,
     floor_op},
    {{"ceil", "", "t + lt(t, x), t = x truncated through i32 (magnitudes below 2^31)"},
     1,
     1,
     ceil_op},
    {{"sign", "", "gt(x, 0) - lt(x, 0)"}, 1, 1, sign},
    {{"remainder", "", "x - y * trunc(x / y), trunc through i32 (the sign of x, as C's fmod)"},
     2,
     2,
     remainder},
    {{"clamp_scalar", "min, max", "minimum(maximum(x, min), max)"}, 1, 1, clamp_scalar},
    {{"clamp_tensor", "", "minimum(maximum(x, min), max) with tensor bounds"}, 3, 3, clamp_tensor},
    {{"leaky_relu", "parameter (0.01)", "relu(x) + parameter * minimum(x, 0)"}, 1, 1, leaky_relu},
    {{"relu6", "", "minimum(relu(x), 6)"}, 1, 1, relu6},
    {{"hardsigmoid", "", "minimum(maximum(x / 6 + 0.5, 0), 1)"}, 1, 1, hardsigmoid},
    {{"log1p", "", "log(x + 1)"}, 1, 1, log1p},
    {{"expm1", "", "exp(x) - 1"}, 1, 1, expm1},
    {{"tan", "", "sin(x) / cos(x)"}, 1, 1, tan},
    {{"isfinite", "", "eq(x - x, 0)"}, 1, 1, isfinite},
    {{"square", "", "x * x"}, 1, 1, square},
    {{"erfc", "", "1 - erf(x)"}, 1, 1, erfc},
    {{"squeeze", "dim", "reshape dropping the extent-1 dim"}, 1, 1, squeeze},
    {{"unsqueeze", "dim", "reshape adding an extent-1 dim"}, 1, 1, unsqueeze},
    {{"repeat", "repeat_dimensions", "per repeated dim: reshape, broadcast, reshape"},
     1,
     1,
     repeat},
    {{"repeat_interleave", "repeats, dim", "reshape, broadcast, reshape"}, 1, 1, repeat_interleave},
    {{"pad", "padding (low, high per dim), value (0)", "concat with full blocks of value"},
     1,
     1,
     pad},
    {{"reverse", "dimensions", "take with descending indices per dim"}, 1, 1, reverse},
    {{"index", "dim, begin, end, step (1)", "slice of one dim"}, 1, 1, index},
    {{"arange", "start, end, step (1), arange_dimension (0), dtype (the result's)", "constant"},
     0,
     0,
     arange},
    {{"embedding", "", "take(weight, indices as i32, dim 0)"}, 2, 2, embedding},
    {{"upsample2d", "scale_factor, mode (\"nearest\" only)",
      "nearest: reshape, broadcast, reshape per spatial dim of NHWC"},
     1,
     1,
     upsample2d},
    {{"batch_norm", "epsilon (1e-5), dimension (1), training (false only)",
      "(x - mean) * (scale * rsqrt(variance + epsilon)) + offset"},
     5,
     5,
     batch_norm},
    {{"batch_norm_inference", "epsilon (1e-5), dimension (1)",
      "(x - mean) * (scale * rsqrt(variance + epsilon)) + offset"},
     5,
     5,
     batch_norm},
    {{"min", "dim_arg, keep_dim", "neg(max(neg(x)))"}, 1, 1, min_op},
    {{"reduce_and", "dim_arg, keep_dim", "1 - max(eq(x, 0))"}, 1, 1, reduce_and},
    {{"reduce_or", "dim_arg, keep_dim", "max(1 - eq(x, 0))"}, 1, 1, reduce_or},
    {{"argmax", "dim_arg (one dim), keep_dim",
      "the least index where eq(x, max(x)), in f32, then the result type"},
     1,
     1,
     argmax},
    {{"cumsum", "dim", "matmul with an upper triangle of ones (i32 through f32)"}, 1, 1, cumsum},
};

/// The attribute names an entry's `attributes` text lists (each before its " (default)").
bool takes_attribute(const Entry& entry, std::string_view key) {
  std::string_view list = entry.doc.attributes;
  while (!list.empty()) {
    size_t end = list.find(", ");
    std::string_view item = list.substr(0, end);
    // Commas inside a parenthesized default ("(low, high per dim)") do not end an item.
    if (size_t open = item.find(" ("); open != std::string_view::npos) {
      size_t close = list.find(')', open);
      end = list.find(", ", close);
      item = item.substr(0, open);
    }
    if (item == key) return true;
    if (end == std::string_view::npos) break;
    list.remove_prefix(end + 2);
  }
  return false;
}

const Entry* find_entry(std::string_view name) {
  for (const Entry& e : kEntries) {
    if (e.doc.name == name) return &e;
  }
  return nullptr;
}

} // namespace

bool import_ttir_composite(FunctionScope& s, OpRecord& rec, std::string_view op) {
  const Entry* entry = find_entry(op);
  if (entry == nullptr) return false;
  for (const auto& [key, value] : rec.attrs) {
    // Legacy TTIR writes operand constraints on every op; they say nothing about values.
    if (key == "operand_constraints" || key == "operandSegmentSizes") continue;
    if (!takes_attribute(*entry, key)) {
      throw Error(value.loc,
                  fmt::format("unknown attribute '{}' of '{}'{}", key, rec.name,
                              entry->doc.attributes.empty()
                                  ? std::string(" (it takes none)")
                                  : fmt::format(" (it takes {})", entry->doc.attributes)));
    }
  }
  if (!rec.positional.empty()) {
    throw Error(rec.positional[0].loc, fmt::format("unexpected value {} in '{}'",
                                                   render_attr(rec.positional[0]), rec.name));
  }
  std::vector<NodeId> operands = resolve_operands(s, rec);
  int n = static_cast<int>(operands.size());
  if (n < entry->min_operands || n > entry->max_operands) {
    throw Error(rec.loc, fmt::format("'{}' expects {} operand{}, got {}", rec.name,
                                     entry->min_operands, entry->min_operands == 1 ? "" : "s", n));
  }
  std::vector<Value> x;
  for (NodeId id : operands) x.push_back(Value{id});
  define_expansion(s, rec, entry->doc.reading,
                   [&](Builder& b) { return build_ttir_composite(b, op, std::move(x), rec); });
  return true;
}

Value build_ttir_composite(Builder& b, std::string_view op, std::vector<Value> x,
                           const OpRecord& rec) {
  const Entry* entry = find_entry(op);
  if (entry == nullptr) throw Error(rec.loc, fmt::format("no tt-mlir composite '{}'", op));
  Expansion e{b, std::move(x), rec};
  return entry->build(e);
}

void define_expansions(FunctionScope& s, const OpRecord& rec, std::string_view reading,
                       const std::function<std::vector<Value>(Builder&)>& build) {
  size_t first_new = s.graph.num_nodes();
  Builder b(s.graph);
  std::span<const TensorType> declared = rec.result_types;
  if (rec.results.empty()) declared = std::span<const TensorType>(&rec.result_type, 1);
  std::vector<Value> results;
  try {
    results = build(b);
    for (size_t i = 0; i < results.size() && i < declared.size(); ++i) {
      const TensorType& rt = declared[i];
      if (b.type(results[i]).shape != rt.shape) {
        throw Error(rec.loc,
                    fmt::format("'{}': declared {}type {}, but the operands give {}", rec.name,
                                rec.results.empty() ? std::string("result ")
                                                    : fmt::format("result {} ", rec.results[i]),
                                rt.str(), b.type(results[i]).str()));
      }
      if (b.type(results[i]).dtype != rt.dtype) results[i] = b.typecast(results[i], rt.dtype);
    }
  } catch (const Error& err) {
    if (!err.diagnostic().loc.file.empty() || err.diagnostic().loc.line != 0) throw;
    throw Error(rec.loc,
                fmt::format("'{}' (read as {}): {}", rec.name, reading, err.diagnostic().message));
  }
  for (size_t id = first_new; id < s.graph.num_nodes(); ++id) {
    s.graph.mutable_node(static_cast<NodeId>(id)).loc = rec.loc;
  }
  if (!rec.results.empty()) {
    std::vector<NodeId> ids;
    for (Value v : results) ids.push_back(v.id);
    define_results(s, rec, ids, "the expansion gives");
  } else if (results.at(0).id < first_new) {
    define_alias(s, rec, results[0].id);
  } else {
    define_result(s, rec, results[0].id);
  }
}

void define_expansion(FunctionScope& s, const OpRecord& rec, std::string_view reading,
                      const std::function<Value(Builder&)>& build) {
  define_expansions(s, rec, reading, [&](Builder& b) { return std::vector<Value>{build(b)}; });
}

} // namespace tilesat::text

namespace tilesat {

std::span<const TtirComposite> ttir_composite_ops() {
  static const std::vector<TtirComposite> docs = [] {
    std::vector<TtirComposite> v;
    for (const text::Entry& e : text::kEntries) v.push_back(e.doc);
    return v;
  }();
  return docs;
}

const TtirComposite* find_ttir_composite(std::string_view name) {
  for (const TtirComposite& c : ttir_composite_ops()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

} // namespace tilesat
