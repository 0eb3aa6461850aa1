// qlinear.cpp: integer-quantized ops computed as dequantize -> float op -> quantize, so int8
// models in ONNX Runtime's QOperator form import, plan and run: ONNX's QLinearConv,
// QLinearMatMul, ConvInteger and MatMulInteger, and the com.microsoft ops its quantizer writes
// next to them (QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearAveragePool,
// QLinearGlobalAveragePool, QLinearConcat, QLinearSoftmax, QGemm).
//
// Quantized values are integers held in i32. Convolutions and matrix products run on the
// operands less their zero points, in f32: those are integers in [-255, 255], held exactly;
// their products (below 2^16) are exact, and so are the sums while they stay below 2^24 in
// magnitude (256 products of the largest values; real layers stay far below), so the f32
// accumulator is the int32 one of the spec. The scales then apply once, as one f32 multiplier
// x_scale * w_scale / y_scale per output channel folded on the host, before rounding half to
// even, adding the output zero point and saturating: ONNX Runtime requantizes so too. The
// com.microsoft ops run their float op on the inputs less their zero points and scale once by
// a host-folded ratio of scales where the op allows (Add, Mul, the pools, Concat, LeakyRelu),
// on real values where it does not (Sigmoid). Every scale must be known at import (ONNX
// Runtime's quantizer writes them as initializers); an int8 weight known at import folds with
// its zero point on the host into an f32 weight holding w - zero point, so planning sees a
// float weight.
#include "converters.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <numeric>

namespace tilesat::onnx {
namespace {

using TP = ::onnx::TensorProto;
using Dims = std::optional<std::vector<int64_t>>;

bool is_8bit(int32_t t) {
  return t == TP::INT8 || t == TP::UINT8;
}

// Checks that input i, named `what`, is a quantized tensor: integer in the graph and, where
// its ONNX type is known, int8 or uint8.
void check_quantized(NodeContext& c, size_t i, std::string_view what) {
  std::optional<int32_t> t = elem_type_of(c, i);
  if (c.input_type(i).dtype != DType::I32 || (t && !is_8bit(*t)))
    c.fail(fmt::format("expected '{}' to be int8 or uint8, got {}", what,
                       t ? elem_type_name(*t) : c.input_type(i).str()));
}

// Checks that input i has input j's ONNX type where both are known.
void check_same_type(NodeContext& c, size_t i, size_t j, std::string_view i_name,
                     std::string_view j_name) {
  std::optional<int32_t> ti = elem_type_of(c, i), tj = elem_type_of(c, j);
  if (ti && tj && *ti != *tj)
    c.fail(fmt::format("expected '{}' to have the type of '{}' ({}), got {}", i_name, j_name,
                       elem_type_name(*tj), elem_type_name(*ti)));
}

// Checks zero point `zp` (absent: 0) of input x: int8 or uint8, of x's type.
void check_zero_point(NodeContext& c, size_t zp, size_t x, std::string_view zp_name,
                      std::string_view x_name) {
  if (!c.has_input(zp)) return;
  check_quantized(c, zp, zp_name);
  check_same_type(c, zp, x, zp_name, x_name);
}

// The range the output saturates to: its zero point's type (input `zp`), else input `like`'s
// (the com.microsoft ops, whose output zero point is optional and defaults to 0 of the input's
// type).
IntRange output_range(NodeContext& c, size_t zp, size_t like, std::string_view zp_name) {
  if (!c.has_input(zp) && like == zp) c.fail(fmt::format("expected '{}', got none", zp_name));
  size_t from = c.has_input(zp) ? zp : like;
  std::optional<int32_t> t = elem_type_of(c, from);
  if (!t)
    c.fail(fmt::format("expected the type of '{}' to be known (it sets the saturation)", zp_name));
  if (!is_8bit(*t))
    c.fail(fmt::format("expected '{}' to be int8 or uint8, got {}", zp_name, elem_type_name(*t)));
  return *range_of(*t);
}

// A per-tensor parameter: fails unless input i has one element.
Dims per_tensor(NodeContext& c, size_t i, std::string_view what) {
  Shape p = c.input_shape(i);
  if (p.numel() != 1 || p.rank() > 1)
    c.fail(
        fmt::format("expected '{}' to have one element (per tensor), got shape {}", what, p.str()));
  return std::nullopt;
}

// The dims of a matrix product's parameter against its operand of shape s: per tensor, per row
// of a (M values: 1-D, or [..., M, 1] of s's rank) or per column of b (N values: 1-D, or
// [..., 1, N]).
Dims matmul_param_dims(NodeContext& c, size_t i, const Shape& s, bool per_column,
                       std::string_view what) {
  Shape p = c.input_shape(i);
  if (p.numel() == 1 && p.rank() <= 1) return std::nullopt;
  if (s.rank() < 2)
    c.fail(fmt::format("expected '{}' to have one element (a 1-D operand has no rows or columns), "
                       "got shape {}",
                       what, p.str()));
  if (p.rank() > 1) {
    std::vector<int64_t> want = s.dims();
    want[static_cast<size_t>(s.rank() - (per_column ? 2 : 1))] = 1;
    if (p.dims() != want)
      c.fail(fmt::format("expected '{}' to have one element, {} (per {}) or shape {}, got shape {}",
                         what, s[s.rank() - (per_column ? 1 : 2)], per_column ? "column" : "row",
                         Shape(want).str(), p.str()));
    return want;
  }
  return per_axis_dims(c, i, s, per_column ? -1 : -2, what);
}

// The host data of scale input i, named `what`: known at import (ONNX Runtime's quantizer
// writes scales as initializers), floating-point, finite and positive.
const HostTensor& scale_data(NodeContext& c, size_t i, std::string_view what) {
  const HostTensor& h = c.input_data(i, what);
  if (h.is_integer())
    c.fail(
        fmt::format("expected a floating-point '{}', got {}", what, elem_type_name(h.elem_type)));
  for (double v : h.values)
    if (!std::isfinite(v) || v <= 0)
      c.fail(fmt::format("expected '{}' to be finite and positive, got {}", what, v));
  return h;
}

// Input i less its zero point (input zp, absent: 0; `dims` as per_axis_dims gives them) in
// f32, which holds every difference of 8-bit integers exactly. Known at import with its zero
// point (an int8 weight), the difference folds on the host into an f32 weight.
Value zero_shifted(NodeContext& c, size_t i, size_t zp, const Dims& dims) {
  Builder& b = c.builder();
  bool has_zp = c.has_input(zp);
  if (c.input(i).data && (!has_zp || c.input(zp).data)) {
    const HostTensor& q = *c.input(i).data;
    HostTensor z = host(TP::INT32, {}, {0});
    if (has_zp)
      z = host(TP::INT32, dims.value_or(std::vector<int64_t>{}), c.input(zp).data->values);
    HostTensor d = host_binary(q, z, std::minus<double>(), TP::FLOAT);
    return c.importer().add_weight(c.node().input(static_cast<int>(i)) + ".zero_shifted",
                                   to_tensor(d, DType::F32));
  }
  Value v = in_f32(b, c.operand(i));
  if (has_zp) v = b.subtract(v, param_operand(c, zp, DType::F32, dims));
  return v;
}

// One factor of a requantization multiplier: a scale input, its dims against the output
// (nullopt: per tensor, one element).
struct ScaleFactor {
  size_t input;
  Dims dims;
  std::string_view what;
};

// The product of the scales `num` over scale `den`, folded on the host into f32 constants (one
// rounding, as ONNX Runtime's requantization has it) that broadcast against the output; one
// element becomes a scalar.
Value multiplier(NodeContext& c, std::initializer_list<ScaleFactor> num, const ScaleFactor& den) {
  auto shaped = [&](const ScaleFactor& f) {
    if (!f.dims) per_tensor(c, f.input, f.what);
    const HostTensor& h = scale_data(c, f.input, f.what);
    return host(TP::FLOAT, f.dims.value_or(std::vector<int64_t>{}), h.values);
  };
  HostTensor m = host(TP::FLOAT, {}, {1.0});
  for (const ScaleFactor& f : num)
    m = host_binary(m, shaped(f), std::multiplies<double>(), TP::FLOAT);
  m = host_binary(m, shaped(den), std::divides<double>(), TP::FLOAT);
  Builder& b = c.builder();
  if (m.numel() == 1) return b.scalar(m.values[0], DType::F32);
  return b.constant(to_tensor(m, DType::F32));
}

// Scale `f` (per tensor) as an f32 scalar.
Value scale_scalar(NodeContext& c, const ScaleFactor& f) {
  per_tensor(c, f.input, f.what);
  return c.builder().scalar(scale_data(c, f.input, f.what).values.at(0), DType::F32);
}

// The quantized output from v, the result in units of the output scale:
// saturate(round half to even(v) + zero point (input zp, per tensor)) in r, as i32.
Value requantized(NodeContext& c, Value v, size_t zp, std::string_view zp_name, IntRange r) {
  Builder& b = c.builder();
  std::optional<Value> z;
  if (c.has_input(zp)) z = param_operand(c, zp, DType::F32, per_tensor(c, zp, zp_name));
  return b.typecast(round_saturate(b, v, z ? &*z : nullptr, r), DType::I32);
}

// An int32 bias (input i, named `what`) in f32: an f32 weight when known at import. Exact below
// 2^24 in magnitude, as the accumulator it adds to.
Value int32_bias(NodeContext& c, size_t i, std::string_view what) {
  std::optional<int32_t> t = elem_type_of(c, i);
  if (c.input_type(i).dtype != DType::I32 || (t && *t != TP::INT32))
    c.fail(fmt::format("expected an int32 '{}', got {}", what,
                       t ? elem_type_name(*t) : "a float tensor"));
  if (c.input(i).data)
    return c.importer().add_weight(c.node().input(static_cast<int>(i)),
                                   to_tensor(*c.input(i).data, DType::F32));
  return in_f32(c.builder(), c.operand(i));
}

// QLinearConv's bias B (input i): int32_bias with one value per output channel.
Value conv_bias(NodeContext& c, size_t i, int64_t channels) {
  Shape s = c.input_shape(i);
  if (s.rank() != 1 || s[0] != channels)
    c.fail(fmt::format("expected 'B' to have shape [{}] (one value per output channel), got {}",
                       channels, s.str()));
  return int32_bias(c, i, "B");
}

// The integer accumulator of a convolution: conv(x - x_zero_point, w - w_zero_point) (+ bias)
// over the node's window, x's zero point per tensor and w's per tensor or per output channel.
Value conv_accumulator(NodeContext& c, size_t x, size_t x_zp, size_t w, size_t w_zp,
                       std::optional<size_t> bias) {
  check_quantized(c, x, "x");
  check_quantized(c, w, "w");
  check_zero_point(c, x_zp, x, "x_zero_point", "x");
  check_zero_point(c, w_zp, w, "w_zero_point", "w");
  Shape ws = c.input_shape(w);
  ConvWindow win = conv_window(c, c.input_shape(x), ws);
  Dims x_dims = c.has_input(x_zp) ? per_tensor(c, x_zp, "x_zero_point") : std::nullopt;
  Dims w_dims = c.has_input(w_zp) ? per_axis_dims(c, w_zp, ws, 0, "w_zero_point") : std::nullopt;
  Value xv = zero_shifted(c, x, x_zp, x_dims);
  Value wv = zero_shifted(c, w, w_zp, w_dims);
  if (bias && c.has_input(*bias)) {
    Value bv = conv_bias(c, *bias, ws[0]);
    return conv_nd(c, xv, wv, &bv, win);
  }
  return conv_nd(c, xv, wv, nullptr, win);
}

// The integer accumulator of a matrix product: matmul(a - a_zero_point, b - b_zero_point),
// a's zero point per tensor or per row, b's per tensor or per column.
Value matmul_accumulator(NodeContext& c, size_t a, size_t a_zp, size_t b, size_t b_zp) {
  check_quantized(c, a, "a");
  check_quantized(c, b, "b");
  check_zero_point(c, a_zp, a, "a_zero_point", "a");
  check_zero_point(c, b_zp, b, "b_zero_point", "b");
  Shape as = c.input_shape(a), bs = c.input_shape(b);
  Dims a_dims =
      c.has_input(a_zp) ? matmul_param_dims(c, a_zp, as, false, "a_zero_point") : std::nullopt;
  Dims b_dims =
      c.has_input(b_zp) ? matmul_param_dims(c, b_zp, bs, true, "b_zero_point") : std::nullopt;
  Value av = zero_shifted(c, a, a_zp, a_dims);
  Value bv = zero_shifted(c, b, b_zp, b_dims);
  return c.builder().matmul(av, bv);
}

// Input x of a com.microsoft op less its zero point (input zp, per tensor; absent: 0), named
// `x_name` and `zp_name` in errors.
Value shifted_input(NodeContext& c, size_t x, size_t zp, std::string_view x_name,
                    std::string_view zp_name) {
  check_quantized(c, x, x_name);
  check_zero_point(c, zp, x, zp_name, x_name);
  return zero_shifted(c, x, zp, c.has_input(zp) ? per_tensor(c, zp, zp_name) : std::nullopt);
}

// A com.microsoft op's output from v (in units of the output scale), in the type of its zero
// point (input zp), which is input `like`'s (the zero point absent: 0 of that type).
Value output_from(NodeContext& c, Value v, size_t zp, size_t like, std::string_view zp_name,
                  std::string_view like_name) {
  IntRange r = output_range(c, zp, like, zp_name);
  if (c.has_input(zp)) check_same_type(c, zp, like, zp_name, like_name);
  return requantized(c, v, zp, zp_name, r);
}

// The permutation taking a channels-last (N, spatial..., C) tensor of rank `rank` to (N, C,
// spatial...), or back (`to_last`).
std::vector<int64_t> channels_perm(int64_t rank, bool to_last) {
  std::vector<int64_t> p(static_cast<size_t>(rank));
  std::iota(p.begin(), p.end(), 0);
  if (to_last)
    std::rotate(p.begin() + 1, p.begin() + 2, p.end());
  else
    std::rotate(p.begin() + 1, p.end() - 1, p.end());
  return p;
}

} // namespace

void convert_qlinear_conv(NodeContext& c) {
  // x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B.
  IntRange r = output_range(c, 7, 7, "y_zero_point");
  Value acc = conv_accumulator(c, 0, 2, 3, 5, 8);
  // x_scale per tensor, w_scale per tensor or per output channel (dim 1 of the output).
  Shape ws = c.input_shape(3), ys = c.builder().type(acc).shape;
  Dims w_dims;
  if (per_axis_dims(c, 4, ws, 0, "w_scale")) {
    w_dims = std::vector<int64_t>(static_cast<size_t>(ys.rank()), 1);
    (*w_dims)[1] = ws[0];
  }
  Value m = multiplier(c, {{1, std::nullopt, "x_scale"}, {4, w_dims, "w_scale"}},
                       {6, std::nullopt, "y_scale"});
  c.set_output(0, requantized(c, c.builder().multiply(acc, m), 7, "y_zero_point", r));
}

void convert_qlinear_matmul(NodeContext& c) {
  // a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point.
  IntRange r = output_range(c, 7, 7, "y_zero_point");
  Value acc = matmul_accumulator(c, 0, 2, 3, 5);
  Shape as = c.input_shape(0), bs = c.input_shape(3);
  Value m = multiplier(c,
                       {{1, matmul_param_dims(c, 1, as, false, "a_scale"), "a_scale"},
                        {4, matmul_param_dims(c, 4, bs, true, "b_scale"), "b_scale"}},
                       {6, std::nullopt, "y_scale"});
  c.set_output(0, requantized(c, c.builder().multiply(acc, m), 7, "y_zero_point", r));
}

void convert_matmul_integer(NodeContext& c) {
  // A, B, a_zero_point, b_zero_point: the int32 sum of (a - a_zero_point) * (b - b_zero_point).
  c.set_output(0, c.builder().typecast(matmul_accumulator(c, 0, 2, 1, 3), DType::I32));
}

void convert_conv_integer(NodeContext& c) {
  // x, w, x_zero_point, w_zero_point: the int32 convolution of the inputs less their zero
  // points (the padding is x's zero point: 0 once shifted).
  c.set_output(0, c.builder().typecast(conv_accumulator(c, 0, 2, 1, 3, std::nullopt), DType::I32));
}

// The com.microsoft ops run their float op on the inputs less their zero points, scaled once
// by a ratio of scales folded on the host, where the op allows (it is linear, or positively
// homogeneous as LeakyRelu): an average of integers at equal input and output scales then
// rounds its exact halves to even, as integer kernels do.

void convert_qlinear_binary(NodeContext& c) {
  // A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point; NumPy
  // broadcasting.
  Value a = shifted_input(c, 0, 2, "A", "A_zero_point");
  Value b = shifted_input(c, 3, 5, "B", "B_zero_point");
  check_same_type(c, 3, 0, "B", "A");
  Builder& bl = c.builder();
  ScaleFactor as{1, std::nullopt, "A_scale"}, bs{4, std::nullopt, "B_scale"},
      cs{6, std::nullopt, "C_scale"};
  Value y;
  if (c.node().op_type() == "QLinearAdd") {
    // (A - A_zero_point) * A_scale / C_scale + (B - B_zero_point) * B_scale / C_scale.
    Value a_part = bl.multiply(a, multiplier(c, {as}, cs));
    Value b_part = bl.multiply(b, multiplier(c, {bs}, cs));
    y = bl.add(a_part, b_part);
  } else {
    // The product of integers below 2^16 (exact), times A_scale * B_scale / C_scale.
    Value product = bl.multiply(a, b);
    y = bl.multiply(product, multiplier(c, {as, bs}, cs));
  }
  c.set_output(0, output_from(c, y, 7, 0, "C_zero_point", "A"));
}

void convert_qlinear_activation(NodeContext& c) {
  // X, X_scale, X_zero_point, Y_scale, Y_zero_point.
  Builder& b = c.builder();
  Value x = shifted_input(c, 0, 2, "X", "X_zero_point");
  ScaleFactor xs{1, std::nullopt, "X_scale"}, ys{3, std::nullopt, "Y_scale"};
  Value y;
  if (c.node().op_type() == "QLinearLeakyRelu") {
    // leaky_relu(s * v) = s * leaky_relu(v) for s > 0 (scales are positive).
    Activation a{"LeakyRelu", c.attr_float("alpha", 0.01)};
    Value act = apply_activation(b, a, x);
    y = b.multiply(act, multiplier(c, {xs}, ys));
  } else {
    // The sigmoid of the real value, over Y_scale.
    Activation a{"Sigmoid"};
    Value real = b.multiply(x, scale_scalar(c, xs));
    Value act = apply_activation(b, a, real);
    y = b.divide(act, scale_scalar(c, ys));
  }
  c.set_output(0, output_from(c, y, 4, 0, "Y_zero_point", "X"));
}

void convert_qlinear_softmax(NodeContext& c) {
  // X, X_scale, x_zero_point, Y_scale, y_zero_point; 'axis' (default -1) and 'opset', the
  // Softmax version it stands for: before 13 the input is seen as 2-D, [dims before axis,
  // dims from axis on].
  Builder& b = c.builder();
  Value x = shifted_input(c, 0, 2, "X", "x_zero_point");
  const Shape s = b.type(x).shape;
  const int64_t opset = c.attr_int("opset", 13);
  const int64_t axis =
      norm_axis(c.attr_int("axis", opset < 13 ? 1 : -1), std::max<int64_t>(s.rank(), 1), "'axis'");
  Value real = b.multiply(x, scale_scalar(c, {1, std::nullopt, "X_scale"}));
  Value y;
  if (opset < 13) {
    int64_t rows = 1;
    for (int64_t d = 0; d < axis; ++d) rows *= s[d];
    y = b.reshape(b.softmax(b.reshape(real, {rows, s.numel() / std::max<int64_t>(rows, 1)}), 1),
                  s.dims());
  } else {
    y = b.softmax(real, axis);
  }
  y = b.divide(y, scale_scalar(c, {3, std::nullopt, "Y_scale"}));
  c.set_output(0, output_from(c, y, 4, 0, "y_zero_point", "X"));
}

void convert_qgemm(NodeContext& c) {
  // A, a_scale, a_zero_point, B, b_scale, b_zero_point, C, y_scale, y_zero_point; 'alpha',
  // 'transA', 'transB'. Y = alpha a_scale b_scale (A' B' + C): C is int32 at scale
  // a_scale * b_scale; B's scale and zero point per tensor or per column (N values). Without
  // y_scale the result is that real value in f32, else it is requantized.
  Builder& b = c.builder();
  check_quantized(c, 0, "A");
  check_quantized(c, 3, "B");
  check_zero_point(c, 2, 0, "a_zero_point", "A");
  check_zero_point(c, 5, 3, "b_zero_point", "B");
  const Shape as = c.input_shape(0), bs = c.input_shape(3);
  if (as.rank() != 2 || bs.rank() != 2)
    c.fail(fmt::format("expected 2-D A and B, got {} and {}", as.str(), bs.str()));
  const bool ta = c.attr_int("transA", 0) != 0, tb = c.attr_int("transB", 0) != 0;
  // B's columns are its dim 1, or dim 0 when it is read transposed.
  const int64_t column_axis = tb ? 0 : 1, n = bs[column_axis];
  auto b_dims = [&](size_t i, std::string_view what) -> Dims {
    if (!per_axis_dims(c, i, bs, column_axis, what)) return std::nullopt;
    return std::vector<int64_t>{1, n};
  };
  Dims a_zp = c.has_input(2) ? per_tensor(c, 2, "a_zero_point") : std::nullopt;
  Value av = zero_shifted(c, 0, 2, a_zp);
  Value bv = zero_shifted(c, 3, 5,
                          c.has_input(5) ? per_axis_dims(c, 5, bs, column_axis, "b_zero_point")
                                         : std::nullopt);
  MatmulOptions o;
  o.transpose_a = ta;
  o.transpose_b = tb;
  Value acc = b.matmul(av, bv, o);
  if (c.has_input(6)) acc = b.add(acc, int32_bias(c, 6, "C"));
  const double alpha = c.attr_float("alpha", 1.0);
  if (!std::isfinite(alpha)) c.fail(fmt::format("expected a finite 'alpha', got {}", alpha));
  ScaleFactor a_scale{1, std::nullopt, "a_scale"}, b_scale{4, b_dims(4, "b_scale"), "b_scale"};
  if (!c.has_input(7)) {
    // The real value, in f32.
    scale_data(c, 4, "b_scale");
    Value a_scalar = scale_scalar(c, a_scale);
    Value scaled = b.multiply(a_scalar, b.scalar(alpha, DType::F32));
    Value m = b.multiply(scaled, param_operand(c, 4, DType::F32, b_scale.dims));
    c.set_output(0, b.multiply(acc, m));
    return;
  }
  IntRange r = output_range(c, 8, 8, "y_zero_point");
  Value m = multiplier(c, {a_scale, b_scale}, {7, std::nullopt, "y_scale"});
  c.set_output(0, requantized(c, b.multiply(acc, b.multiply(m, b.scalar(alpha, DType::F32))), 8,
                              "y_zero_point", r));
}

void convert_qlinear_pool(NodeContext& c) {
  // X, x_scale, x_zero_point, y_scale, y_zero_point; 'channels_last' for (N, spatial..., C)
  // tensors.
  Builder& b = c.builder();
  bool last = c.attr_int("channels_last", 0) != 0;
  Value x = shifted_input(c, 0, 2, "X", "x_zero_point");
  Shape s = b.type(x).shape;
  Value y;
  if (c.node().op_type() == "QLinearGlobalAveragePool") {
    std::vector<int64_t> dims = spatial_dims(c, s);
    if (last)
      for (int64_t& d : dims) --d;
    y = b.mean(x, ReduceOptions{dims, true});
  } else {
    if (last) x = b.permute(x, channels_perm(s.rank(), false));
    y = pool_nd(c, x, false);
    if (last) y = b.permute(y, channels_perm(s.rank(), true));
  }
  y = b.multiply(y, multiplier(c, {{1, std::nullopt, "x_scale"}}, {3, std::nullopt, "y_scale"}));
  c.set_output(0, output_from(c, y, 4, 0, "y_zero_point", "X"));
}

void convert_qlinear_concat(NodeContext& c) {
  // Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) per input; 'axis' required.
  size_t n = c.num_inputs();
  if (n < 5 || (n - 2) % 3 != 0)
    c.fail(fmt::format("expected Y_scale, Y_zero_point and a (tensor, scale, zero point) triple "
                       "per input, got {} inputs",
                       n));
  if (!c.has_attr("axis")) c.fail("expected 'axis', got none");
  Builder& b = c.builder();
  // Input k's triple named X<k>, X<k>_scale, X<k>_zero_point; each at Y's scale.
  std::vector<Value> parts;
  for (size_t i = 2; i < n; i += 3) {
    std::string name = fmt::format("X{}", (i - 2) / 3);
    std::string scale = name + "_scale";
    Value x = shifted_input(c, i, i + 2, name, name + "_zero_point");
    check_same_type(c, i, 2, name, "X0");
    parts.push_back(
        b.multiply(x, multiplier(c, {{i + 1, std::nullopt, scale}}, {0, std::nullopt, "Y_scale"})));
  }
  int64_t rank = b.type(parts[0]).shape.rank();
  int64_t axis = norm_axis(c.attr_int("axis", 0), std::max<int64_t>(rank, 1), "'axis'");
  c.set_output(0, output_from(c, b.concat(parts, axis), 1, 2, "Y_zero_point", "X0"));
}

} // namespace tilesat::onnx
