// composite.cpp: ONNX ops expressed with the graph's own ops, so they plan, lower and run like
// any other: ArgMax/ArgMin and Hardmax (a max, a comparison and a min over an index constant),
// LogSoftmax, the rest of the Reduce family, CumSum (a matrix product with a triangular
// constant), Size, CastLike, variadic Sum/Mean/Max/Min, LeakyRelu and PRelu,
// GreaterOrEqual/LessOrEqual, And/Or/Xor, hyperbolic and inverse hyperbolic functions, Tan,
// Atan, Asin, Acos (a series after range reduction),
// Sign, ThresholdedRelu, Shrink, IsInf, EyeLike, GatherElements with indices known at import
// (runtime ones: runtime_indices.cpp), TopK (k rounds of selection).
#include "converters.h"

#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <numbers>
#include <numeric>

namespace tilesat::onnx {
namespace {

using TP = ::onnx::TensorProto;

// Reduces `x` over `dims` with the result keeping them as extent 1.
ReduceOptions keep(std::vector<int64_t> dims) {
  return ReduceOptions{std::move(dims), true};
}

// `v` reduced with kept dims, reshaped to drop them unless `keep_dims`.
Value finish(Builder& b, Value v, const std::vector<int64_t>& dims, bool keep_dims) {
  if (keep_dims) return v;
  std::vector<int64_t> out;
  Shape s = b.type(v).shape;
  for (int64_t d = 0; d < s.rank(); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) out.push_back(s[d]);
  return b.reshape(v, out);
}

// Minimum over `dims` (kept): the negated maximum of the negation.
Value min_over(Builder& b, Value x, const std::vector<int64_t>& dims) {
  return b.neg(b.max(b.neg(x), keep(dims)));
}

// The index of the first (or last) maximum of `x` along `axis`, kept as extent 1, in f32.
Value arg_max_kept(Builder& b, Value x, int64_t axis, bool last) {
  x = in_f32(b, x);
  TensorType t = b.type(x);
  int64_t n = t.shape[axis];
  Value hit = b.equal(x, b.max(x, keep({axis})));
  Value idx = iota(b, n, axis, t.shape.rank(), t.dtype);
  if (last) return b.max(b.where(hit, idx, b.scalar(-1, t.dtype)), keep({axis}));
  return min_over(b, b.where(hit, idx, b.scalar(static_cast<double>(n), t.dtype)), {axis});
}

int64_t axis_attr(NodeContext& c, int64_t rank, int64_t fallback) {
  return norm_axis(c.attr_int("axis", fallback), std::max<int64_t>(rank, 1), "'axis'");
}

// The reduced dims of a Reduce* node (all when none are given), or nullopt when it is a no-op.
std::optional<std::vector<int64_t>> reduce_dims(NodeContext& c, int64_t rank) {
  std::optional<std::vector<int64_t>> axes = axes_of(c, 18, 1);
  if ((!axes || axes->empty()) && c.attr_int("noop_with_empty_axes", 0) != 0) return std::nullopt;
  std::vector<int64_t> dims;
  if (axes)
    for (int64_t a : *axes) dims.push_back(norm_axis(a, std::max<int64_t>(rank, 1), "axes"));
  if (dims.empty()) {
    dims.resize(static_cast<size_t>(rank));
    std::iota(dims.begin(), dims.end(), 0);
  }
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  return dims;
}

} // namespace

void convert_arg_extreme(NodeContext& c) {
  Builder& b = c.builder();
  Value x = c.operand(0);
  TensorType t = b.type(x);
  int64_t axis = axis_attr(c, t.shape.rank(), 0);
  bool last = c.attr_int("select_last_index", 0) != 0;
  // ArgMin is ArgMax of the negation.
  Value in = c.node().op_type() == "ArgMin" ? b.neg(x) : x;
  Value idx = arg_max_kept(b, in, axis, last);
  idx = finish(b, idx, {axis}, c.attr_int("keepdims", 1) != 0);
  c.set_output(0, b.typecast(idx, DType::I32));
}

void convert_top_k(NodeContext& c) {
  // k rounds of selection along the axis: the largest value not yet taken and the first index
  // holding it (ONNX orders equal values by index), which is then masked out. The smallest k
  // are the largest of the negation. Values and indices come out sorted (as sorted=1 asks;
  // sorted=0 allows any order).
  Builder& b = c.builder();
  Value x = c.operand(0);
  TensorType t = b.type(x);
  int64_t rank = t.shape.rank();
  if (rank < 1) c.fail("expected an input of rank >= 1, got a scalar");
  int64_t axis = axis_attr(c, rank, -1);
  int64_t k = static_int(c, 1, "K");
  const int64_t n = t.shape[axis];
  if (k < 0 || k > n)
    c.fail(fmt::format("expected 'K' in [0, {}] (the axis' extent), got {}", n, k));
  if (k == 0) c.fail("expected a positive 'K' (an empty result has no graph value)");
  bool largest = c.attr_int("largest", 1) != 0;
  Value v = in_f32(b, largest ? x : b.neg(x));
  auto f = [&](double s) { return b.scalar(s, DType::F32); };
  Value idx = iota(b, n, axis, rank, DType::F32);
  Value lowest = f(-std::numeric_limits<float>::infinity());
  std::vector<Value> values, indices;
  std::optional<Value> taken;
  for (int64_t r = 0; r < k; ++r) {
    Value avail = taken ? b.where(*taken, lowest, v) : v;
    Value m = b.max(avail, keep({axis}));
    Value hit = b.equal(avail, m);
    if (taken) hit = b.multiply(hit, b.subtract(f(1), *taken));
    Value first = min_over(b, b.where(hit, idx, f(static_cast<double>(n))), {axis});
    Value pick = b.equal(idx, first);
    taken = taken ? b.add(*taken, pick) : pick;
    values.push_back(m);
    indices.push_back(first);
  }
  Value vals = values.size() == 1 ? values[0] : b.concat(values, axis);
  if (!largest) vals = b.neg(vals);
  if (b.type(vals).dtype != t.dtype) vals = b.typecast(vals, t.dtype);
  c.set_output(0, vals);
  c.set_output(1,
               b.typecast(indices.size() == 1 ? indices[0] : b.concat(indices, axis), DType::I32));
}

void convert_hardmax(NodeContext& c) {
  Builder& b = c.builder();
  auto [in, axis] = softmax_operand(c);
  TensorType it = b.type(in);
  Value idx = iota(b, it.shape[axis], axis, it.shape.rank(), DType::F32);
  Value arg = arg_max_kept(b, in, axis, false);
  Value one_hot = b.equal(idx, arg);
  if (it.dtype != DType::F32) one_hot = b.typecast(one_hot, it.dtype);
  c.set_output(0, shaped_as_input(c, one_hot));
}

void convert_log_softmax(NodeContext& c) {
  auto [in, axis] = softmax_operand(c);
  c.set_output(0, shaped_as_input(c, log_softmax(c.builder(), in, axis)));
}

void convert_reduce_composite(NodeContext& c) {
  const std::string& type = c.node().op_type();
  Builder& b = c.builder();
  Value x = c.operand(0);
  TensorType t = b.type(x);
  std::optional<std::vector<int64_t>> dims = reduce_dims(c, t.shape.rank());
  if (!dims) {
    c.forward(0, 0);
    return;
  }
  Value y = x;
  if (type == "ReduceMin") {
    y = min_over(b, x, *dims);
  } else if (type == "ReduceSumSquare") {
    y = b.sum(b.multiply(x, x), keep(*dims));
  } else if (type == "ReduceL1") {
    y = b.sum(b.abs(x), keep(*dims));
  } else if (type == "ReduceL2") {
    y = b.sqrt(b.sum(b.multiply(x, x), keep(*dims)));
  } else if (type == "ReduceLogSum") {
    y = b.log(b.sum(x, keep(*dims)));
  } else if (type == "ReduceLogSumExp") {
    Value m = b.max(x, keep(*dims));
    y = b.add(b.log(b.sum(b.exp(b.subtract(x, m)), keep(*dims))), m);
  } else if (type == "ReduceProd") {
    // |prod| = exp(sum(log|x|)) (0 where any x is 0); its sign is (-1)^(number of negatives),
    // cos(pi * count), exact for the counts a float holds.
    Value magnitude = b.exp(b.sum(b.log(b.abs(x)), keep(*dims)));
    Value negatives = b.sum(b.less(x, b.scalar(0, t.dtype)), keep(*dims));
    y = b.multiply(magnitude, b.cos(b.multiply(negatives, b.scalar(std::numbers::pi, t.dtype))));
  } else {
    c.fail("no reduction mapping");
  }
  c.set_output(0, finish(b, y, *dims, c.attr_int("keepdims", 1) != 0));
}

void convert_cumsum(NodeContext& c) {
  Builder& b = c.builder();
  Value x = c.operand(0);
  TensorType t = b.type(x);
  int64_t rank = t.shape.rank();
  int64_t axis = norm_axis(static_int(c, 1, "axis"), std::max<int64_t>(rank, 1), "'axis'");
  bool exclusive = c.attr_int("exclusive", 0) != 0;
  bool reverse = c.attr_int("reverse", 0) != 0;
  int64_t n = t.shape[axis];
  // y[..., j] = sum_i x[..., i] * T[i][j] with the axis last: T[i][j] is 1 where i <= j
  // (i < j exclusive; i >= j, i > j reversed).
  std::vector<double> tri(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      bool in = reverse ? (exclusive ? i > j : i >= j) : (exclusive ? i < j : i <= j);
      tri[static_cast<size_t>(i * n + j)] = in ? 1.0 : 0.0;
    }
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[static_cast<size_t>(axis)], perm.back());
  Value last = axis == rank - 1 ? x : b.permute(x, perm);
  Shape ls = b.type(last).shape;
  Value flat = b.reshape(last, {ls.numel() / std::max<int64_t>(n, 1), n});
  Value y = b.matmul(flat, b.constant(Shape{n, n}, std::move(tri), t.dtype));
  y = b.reshape(y, ls.dims());
  c.set_output(0, axis == rank - 1 ? y : b.permute(y, perm));
}

void convert_size(NodeContext& c) {
  c.set_static_output(0, host(TP::INT64, {}, {static_cast<double>(c.input_shape(0).numel())}));
}

void convert_cast_like(NodeContext& c) {
  DType to = c.input_type(1).dtype;
  if (c.input_static(0)) {
    HostTensor x = *c.input(0).data;
    x.elem_type = c.input(1).data ? c.input(1).data.elem_type() : x.elem_type;
    c.set_static_output(0, std::move(x));
    return;
  }
  Value x = c.operand(0);
  c.set_output(0, c.builder().type(x).dtype == to ? x : c.builder().typecast(x, to));
}

void convert_variadic(NodeContext& c) {
  const std::string& type = c.node().op_type();
  // Two-input Max and Min are binary ops (folded when both inputs are known).
  if ((type == "Max" || type == "Min") && c.num_inputs() == 2) {
    convert_binary(c);
    return;
  }
  Builder& b = c.builder();
  if (c.num_inputs() == 0) c.fail("expected at least one input");
  Value acc = c.operand(0);
  for (size_t i = 1; i < c.num_inputs(); ++i) {
    Value v = operand_like(c, i, b.type(acc).dtype, true);
    acc = type == "Max" ? b.maximum(acc, v) : type == "Min" ? b.minimum(acc, v) : b.add(acc, v);
  }
  if (type == "Mean")
    acc = b.divide(acc, b.scalar(static_cast<double>(c.num_inputs()), b.type(acc).dtype));
  c.set_output(0, acc);
}

void convert_leaky_relu(NodeContext& c) {
  Builder& b = c.builder();
  Value x = c.operand(0);
  DType d = b.type(x).dtype;
  // max(x, 0) + slope * min(x, 0), for any slope.
  Value slope = c.node().op_type() == "PRelu" ? operand_like(c, 1, d, true)
                                              : b.scalar(c.attr_float("alpha", 0.01), d);
  Value zero = b.scalar(0, d);
  Value pos = b.maximum(x, zero);
  Value neg = b.multiply(slope, b.minimum(x, zero));
  c.set_output(0, b.add(pos, neg));
}

void convert_compare_or_equal(NodeContext& c) {
  // a >= b is not (a < b); a <= b is not (a > b): 1 - the strict comparison.
  Builder& b = c.builder();
  Value x = c.operand(0);
  DType d = b.type(x).dtype;
  Value y = operand_like(c, 1, d, true);
  Value strict = c.node().op_type() == "GreaterOrEqual" ? b.less(x, y) : b.greater(x, y);
  c.set_output(0, b.subtract(b.scalar(1, b.type(strict).dtype), strict));
}

void convert_logical(NodeContext& c) {
  // Booleans are 1/0: a and b is a*b, a or b is max(a, b), a xor b is |a - b|.
  Builder& b = c.builder();
  Value x = c.operand(0);
  Value y = operand_like(c, 1, b.type(x).dtype, true);
  const std::string& type = c.node().op_type();
  c.set_output(0, type == "And"  ? b.multiply(x, y)
                  : type == "Or" ? b.maximum(x, y)
                                 : b.abs(b.subtract(x, y)));
}

// atan(x): |x| > 1 folded to pi/2 - atan(1/|x|), the argument halved twice
// (atan(a) = 2 atan(a / (1 + sqrt(1 + a^2))), so |a| <= tan(pi/16)), then the Taylor series to
// a^15 (the first term left out is below 1e-13), the sign restored.
Value atan_graph(Builder& b, Value x) {
  DType d = b.type(x).dtype;
  auto k = [&](double v) { return b.scalar(v, d); };
  Value a = b.abs(x);
  Value inverted = b.greater(a, k(1));
  a = b.where(inverted, b.reciprocal(a), a);
  for (int halving = 0; halving < 2; ++halving) {
    Value outer_one = k(1);
    Value inner_one = k(1);
    Value square = b.multiply(a, a);
    Value root = b.sqrt(b.add(inner_one, square));
    a = b.divide(a, b.add(outer_one, root));
  }
  Value z = b.multiply(a, a);
  Value p = k(-1.0 / 15);
  for (int n = 13; n >= 1; n -= 2) {
    Value pz = b.multiply(p, z);
    p = b.add(pz, k((n % 4 == 1 ? 1.0 : -1.0) / n));
  }
  Value four = k(4);
  Value r = b.multiply(four, b.multiply(p, a));
  r = b.where(inverted, b.subtract(k(std::numbers::pi / 2), r), r);
  Value negative = b.less(x, k(0));
  return b.where(negative, b.neg(r), r);
}

Value gelu_tanh(Builder& b, Value x) {
  DType d = b.type(x).dtype;
  auto k = [&](double v) { return b.scalar(v, d); };
  Value coef = k(0.044715);
  Value cube = b.multiply(x, b.multiply(x, x));
  Value sum = b.add(x, b.multiply(coef, cube));
  Value inner = b.multiply(sum, k(std::sqrt(2.0 / std::numbers::pi)));
  Value half_x = b.multiply(x, k(0.5));
  Value one = k(1);
  return b.multiply(half_x, b.add(one, b.tanh(inner)));
}

void convert_math(NodeContext& c) {
  const std::string& type = c.node().op_type();
  Builder& b = c.builder();
  Value x = c.operand(0);
  DType d = b.type(x).dtype;
  auto k = [&](double v) { return b.scalar(v, d); };
  Value y = x;
  if (type == "Sinh" || type == "Cosh") {
    Value e = b.exp(x), f = b.exp(b.neg(x));
    Value twice = type == "Sinh" ? b.subtract(e, f) : b.add(e, f);
    y = b.multiply(twice, k(0.5));
  } else if (type == "Tan") {
    Value sine = b.sin(x);
    y = b.divide(sine, b.cos(x));
  } else if (type == "Atan") {
    y = atan_graph(b, x);
  } else if (type == "Asin" || type == "Acos") {
    // Half-angle forms, well conditioned up to +-1 (NaN past them): asin(x) =
    // 2 atan(x / (1 + sqrt((1 - x)(1 + x)))), acos(x) = 2 atan(sqrt((1 - x) / (1 + x))).
    Value below = b.subtract(k(1), x), above = b.add(k(1), x);
    Value t;
    if (type == "Asin") {
      Value one = k(1);
      t = b.divide(x, b.add(one, b.sqrt(b.multiply(below, above))));
    } else {
      t = b.sqrt(b.divide(below, above));
    }
    Value two = k(2);
    y = b.multiply(two, atan_graph(b, t));
  } else if (type == "Asinh") {
    Value square = b.multiply(x, x);
    y = b.log(b.add(x, b.sqrt(b.add(square, k(1)))));
  } else if (type == "Acosh") {
    Value square = b.multiply(x, x);
    y = b.log(b.add(x, b.sqrt(b.subtract(square, k(1)))));
  } else if (type == "Atanh") {
    Value num = b.add(k(1), x);
    Value den = b.subtract(k(1), x);
    Value log_ratio = b.log(b.divide(num, den));
    y = b.multiply(log_ratio, k(0.5));
  } else if (type == "Sign") {
    Value positive = b.greater(x, k(0));
    y = b.subtract(positive, b.less(x, k(0)));
  } else if (type == "ThresholdedRelu" || type == "Softplus" || type == "Softsign") {
    y = apply_activation(b, Activation{type, c.attr_float("alpha", 1.0), 0}, x);
  } else if (type == "Mish") {
    // x tanh(softplus(x)); softplus overflowing to inf gives tanh 1, as it should.
    y = b.multiply(x, b.tanh(apply_activation(b, Activation{"Softplus", 0, 0}, x)));
  } else if (type == "Gelu") {
    // Opset 20: exact (erf), or the tanh approximation
    // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
    std::string approximate = c.attr_string("approximate", "none");
    if (approximate == "none") {
      y = b.gelu(x);
    } else if (approximate == "tanh") {
      y = gelu_tanh(b, x);
    } else {
      c.fail(fmt::format("expected 'approximate' none or tanh, got '{}'", approximate));
    }
  } else if (type == "Shrink") {
    double bias = c.attr_float("bias", 0.0), lambd = c.attr_float("lambd", 0.5);
    Value below = b.less(x, k(-lambd));
    Value raised = b.add(x, k(bias));
    Value above = b.greater(x, k(lambd));
    Value lowered = b.subtract(x, k(bias));
    Value rest = b.where(above, lowered, k(0));
    y = b.where(below, raised, rest);
  } else if (type == "Elu" || type == "Selu" || type == "Celu") {
    // x where x > 0, else alpha * (exp(x) - 1) (Celu: alpha * (exp(x / alpha) - 1)); Selu
    // scales both by gamma.
    double alpha = c.attr_float("alpha", type == "Selu" ? 1.67326319217681884765625 : 1.0);
    Value e = type == "Celu" ? b.exp(b.divide(x, k(alpha))) : b.exp(x);
    Value positive = b.greater(x, k(0));
    Value scale = k(alpha);
    Value negative = b.multiply(scale, b.subtract(e, k(1)));
    y = b.where(positive, x, negative);
    if (type == "Selu") y = b.multiply(y, k(c.attr_float("gamma", 1.05070102214813232421875)));
  } else if (type == "GlobalMaxPool") {
    y = b.max(x, keep(spatial_dims(c, b.type(x).shape)));
  } else if (type == "Floor" || type == "Ceil") {
    // trunc(x) by a round trip through i32 (|x| < 2^31), then one step down below a negative
    // fraction (floor) or up above a positive one (ceil).
    Value t = b.typecast(b.typecast(x, DType::I32), d);
    y = type == "Floor" ? b.subtract(t, b.less(x, t)) : b.add(t, b.greater(x, t));
  } else if (type == "IsNaN") {
    Value one = k(1);
    y = b.subtract(one, b.equal(x, x));
  } else if (type == "MeanVarianceNormalization") {
    std::vector<int64_t> axes = c.attr_ints("axes", {0, 2, 3});
    int64_t rank = b.type(x).shape.rank();
    for (int64_t& a : axes) a = norm_axis(a, std::max<int64_t>(rank, 1), "'axes'");
    Value centered = b.subtract(x, b.mean(x, keep(axes)));
    Value var = b.mean(b.multiply(centered, centered), keep(axes));
    Value root = b.sqrt(var);
    y = b.divide(centered, b.add(root, k(1e-9)));
  } else if (type == "IsInf") {
    bool pos = c.attr_int("detect_positive", 1) != 0, neg = c.attr_int("detect_negative", 1) != 0;
    double inf = std::numeric_limits<double>::infinity();
    Value hit = k(0);
    if (pos) hit = b.maximum(hit, b.equal(x, k(inf)));
    if (neg) hit = b.maximum(hit, b.equal(x, k(-inf)));
    y = pos || neg ? hit : b.multiply(x, k(0));
  } else {
    c.fail("no mapping");
  }
  c.set_output(0, y);
}

void convert_gather_elements(NodeContext& c) {
  // out[i..] = data[i.. with the axis coordinate replaced by indices[i..]]: with the indices
  // known, each output element's flat position in data is known, so it is one take from the
  // flattened data.
  if (!c.input(1).data) {
    gather_elements_runtime(c);
    return;
  }
  Builder& b = c.builder();
  Value data = c.operand(0);
  Shape s = b.type(data).shape;
  const HostTensor& ind = c.input_data(1, "indices");
  int64_t rank = s.rank();
  int64_t axis = axis_attr(c, rank, 0);
  if (static_cast<int64_t>(ind.dims.size()) != rank)
    c.fail(fmt::format("expected indices of rank {}, got {}", rank, ind.dims.size()));
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && ind.dims[static_cast<size_t>(d)] > s[d])
      c.fail(fmt::format("expected indices dim {} at most {}, got {}", d, s[d],
                         ind.dims[static_cast<size_t>(d)]));
  std::vector<int64_t> idx = ind.ints();
  std::vector<double> flat(idx.size());
  std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
  for (size_t e = 0; e < idx.size(); ++e) {
    // The coordinate of element e of the indices, row-major.
    size_t rest = e;
    for (int64_t d = rank - 1; d >= 0; --d) {
      auto extent = static_cast<size_t>(ind.dims[static_cast<size_t>(d)]);
      coord[static_cast<size_t>(d)] = static_cast<int64_t>(rest % extent);
      rest /= extent;
    }
    int64_t k = idx[e] < 0 ? idx[e] + s[axis] : idx[e];
    if (k < 0 || k >= s[axis])
      c.fail(fmt::format("expected indices in [{}, {}), got {}", -s[axis], s[axis], idx[e]));
    coord[static_cast<size_t>(axis)] = k;
    int64_t pos = 0;
    for (int64_t d = 0; d < rank; ++d) pos = pos * s[d] + coord[static_cast<size_t>(d)];
    flat[e] = static_cast<double>(pos);
  }
  Value positions = b.constant(Shape(ind.dims), std::move(flat), DType::I32);
  c.set_output(0, b.take(b.reshape(data, {s.numel()}), positions, 0));
}

void convert_instance_norm(NodeContext& c) {
  // (x - mean) / sqrt(var + epsilon) * scale + bias over each sample's and channel's
  // spatial dims; scale and bias are per channel.
  Builder& b = c.builder();
  Value x = c.operand(0);
  TensorType t = b.type(x);
  int64_t rank = t.shape.rank();
  std::vector<int64_t> dims = spatial_dims(c, t.shape);
  Value mean = b.mean(x, keep(dims));
  Value centered = b.subtract(x, mean);
  Value var = b.mean(b.multiply(centered, centered), keep(dims));
  Value y =
      b.multiply(centered, b.rsqrt(b.add(var, b.scalar(c.attr_float("epsilon", 1e-5), t.dtype))));
  std::vector<int64_t> per_channel(static_cast<size_t>(rank), 1);
  per_channel[1] = t.shape[1];
  y = b.multiply(y, b.reshape(operand_like(c, 1, t.dtype, false), per_channel));
  y = b.add(y, b.reshape(operand_like(c, 2, t.dtype, false), per_channel));
  c.set_output(0, y);
}

void convert_group_norm(NodeContext& c) {
  // Each sample's channels in num_groups groups, each normalized over its channels and spatial
  // dims: x as [N, G, C / G * spatial], (x - mean) / sqrt(var + epsilon), then scaled and
  // shifted per group (opset 18) or per channel (21).
  Builder& b = c.builder();
  Value x = c.operand(0);
  TensorType t = b.type(x);
  const Shape s = t.shape;
  if (s.rank() < 3) c.fail(fmt::format("expected an input of rank 3 or more, got {}", s.str()));
  const int64_t groups = c.attr_int("num_groups", 0);
  if (groups < 1 || s[1] % groups != 0)
    c.fail(fmt::format("expected 'num_groups' to divide the {} channels, got {}", s[1], groups));
  const bool per_channel = c.opset() >= 21;
  const int64_t params = per_channel ? s[1] : groups;
  for (size_t i : {size_t{1}, size_t{2}})
    if (c.input_shape(i) != Shape{params})
      c.fail(fmt::format("expected '{}' of shape [{}] (one per {}), got {}",
                         i == 1 ? "scale" : "bias", params, per_channel ? "channel" : "group",
                         c.input_shape(i).str()));
  Value g = b.reshape(x, {s[0], groups, s.numel() / (s[0] * groups)});
  Value mean = b.mean(g, keep({2}));
  Value centered = b.subtract(g, mean);
  Value var = b.mean(b.multiply(centered, centered), keep({2}));
  Value y =
      b.multiply(centered, b.rsqrt(b.add(var, b.scalar(c.attr_float("epsilon", 1e-5), t.dtype))));
  if (!per_channel) {
    y = b.multiply(y, b.reshape(operand_like(c, 1, t.dtype, false), {1, groups, 1}));
    y = b.add(y, b.reshape(operand_like(c, 2, t.dtype, false), {1, groups, 1}));
    c.set_output(0, b.reshape(y, s.dims()));
    return;
  }
  y = b.reshape(y, s.dims());
  std::vector<int64_t> channel(static_cast<size_t>(s.rank()), 1);
  channel[1] = s[1];
  y = b.multiply(y, b.reshape(operand_like(c, 1, t.dtype, false), channel));
  c.set_output(0, b.add(y, b.reshape(operand_like(c, 2, t.dtype, false), channel)));
}

void convert_bit_shift(NodeContext& c) {
  // Unsigned x << y is x * 2^y; x >> y is x / 2^y truncated (toward zero, the floor for
  // unsigned values), computed in f32 and converted back.
  Builder& b = c.builder();
  Value x = c.operand(0);
  DType d = b.type(x).dtype;
  Value y = operand_like(c, 1, d, true);
  Value xf = d == DType::F32 ? x : b.typecast(x, DType::F32);
  Value yf = b.type(y).dtype == DType::F32 ? y : b.typecast(y, DType::F32);
  Value scale = b.pow(b.scalar(2.0, DType::F32), yf);
  std::string direction = c.attr_string("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    c.fail(fmt::format("expected 'direction' LEFT or RIGHT, got '{}'", direction));
  Value r = direction == "LEFT" ? b.multiply(xf, scale) : b.divide(xf, scale);
  c.set_output(0, b.typecast(r, d == DType::F32 ? DType::I32 : d));
}

void convert_mod_runtime(NodeContext& c) {
  if (c.input_static(0) && c.input_static(1)) {
    convert_mod(c); // folded at import
    return;
  }
  // fmod=1: x - trunc(x / y) * y (C's fmod); fmod=0 (integers): x - floor(x / y) * y, whose
  // sign is the divisor's. trunc is a round trip through i32 (|x / y| < 2^31).
  Builder& b = c.builder();
  bool fmod = c.attr_int("fmod", 0) != 0;
  Value x = c.operand(0);
  DType d = b.type(x).dtype;
  if (d != DType::I32 && !fmod) c.fail("expected fmod=1 for floating-point inputs (the ONNX rule)");
  Value y = operand_like(c, 1, d, true);
  Value xf = d == DType::I32 ? b.typecast(x, DType::F32) : x;
  Value yf = b.type(y).dtype == DType::I32 ? b.typecast(y, DType::F32) : y;
  Value q = b.divide(xf, yf);
  Value t = b.typecast(b.typecast(q, DType::I32), b.type(q).dtype);
  if (!fmod) t = b.subtract(t, b.less(q, t)); // floor
  Value r = b.subtract(xf, b.multiply(t, yf));
  c.set_output(0, d == DType::I32 ? b.typecast(r, DType::I32) : r);
}

void convert_eye_like(NodeContext& c) {
  Shape s = c.input_shape(0);
  if (s.rank() != 2) c.fail(fmt::format("expected a 2-D input, got rank {}", s.rank()));
  int64_t k = c.attr_int("k", 0);
  // By default the input's element type (its ONNX type when it is data, else by dtype).
  int32_t own = c.input(0).data                       ? c.input(0).data.elem_type()
                : c.input_type(0).dtype == DType::I32 ? int32_t{TP::INT32}
                                                      : int32_t{TP::FLOAT};
  auto elem = static_cast<int32_t>(c.attr_int("dtype", own));
  std::vector<double> v(static_cast<size_t>(s.numel()), 0.0);
  for (int64_t i = 0; i < s[0]; ++i)
    if (i + k >= 0 && i + k < s[1]) v[static_cast<size_t>(i * s[1] + i + k)] = 1.0;
  c.set_static_output(0, host(elem, s.dims(), std::move(v)));
}

} // namespace tilesat::onnx
