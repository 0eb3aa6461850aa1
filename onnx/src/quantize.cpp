// quantize.cpp: ONNX's linear quantization as the graph's own ops, so a model in the QDQ form
// (int8 weights behind DequantizeLinear, QuantizeLinear/DequantizeLinear pairs on activations)
// imports, plans and runs: Round (half to even), QuantizeLinear, DequantizeLinear and
// DynamicQuantizeLinear. Quantized values are integers held in i32 (tilesat's one integer
// dtype); arithmetic on them runs in f32, exact for 8- and 16-bit values. With every input
// known at import (an int8 weight and its scales) the op folds on the host, and its result is
// a weight like the float initializer it stands for. The quantizer's pieces (saturation
// ranges, rounding, per-axis parameters, the ONNX types of integer values) serve the
// integer-quantized ops of qlinear.cpp too.
#include "converters.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <limits>

namespace tilesat::onnx {
namespace {

using TP = ::onnx::TensorProto;

// Half to even, as ONNX's Round and the quantizers round.
double round_even(double v) {
  double r = std::round(v);
  if (std::abs(v - std::trunc(v)) == 0.5) r = 2.0 * std::round(v / 2.0);
  return r;
}

// A QuantizeLinear or DequantizeLinear parameter's dims against x: per tensor, or per 'axis'
// (blocked quantization is not supported).
std::optional<std::vector<int64_t>> qdq_dims(NodeContext& c, size_t param, const Shape& x,
                                             std::string_view what) {
  Shape p = c.input_shape(param);
  bool per_tensor = p.numel() == 1 && p.rank() <= 1;
  if (!per_tensor && c.attr_int("block_size", 0) != 0)
    c.fail(fmt::format("expected no 'block_size' (blocked quantization is not supported)"));
  return per_axis_dims(c, param, x, c.attr_int("axis", 1), what);
}

// Host data of input `i` broadcast to x's elements: per tensor or per axis.
std::vector<double> param_values(NodeContext& c, size_t i, const HostTensor& x,
                                 std::string_view what) {
  const HostTensor& p = *c.input(i).data;
  Shape xs(x.dims);
  std::optional<std::vector<int64_t>> dims = qdq_dims(c, i, xs, what);
  std::vector<double> out(x.values.size(), p.values.at(0));
  if (!dims) return out;
  int64_t axis = norm_axis(c.attr_int("axis", 1), std::max<int64_t>(xs.rank(), 1), "'axis'");
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < xs.rank(); ++d) inner *= xs[d];
  for (size_t e = 0; e < out.size(); ++e)
    out[e] = p.values[static_cast<size_t>((static_cast<int64_t>(e) / inner) % xs[axis])];
  return out;
}

// Every input given has data; `static_all` tells whether all are static (not weights).
bool all_known(NodeContext& c, bool* static_all) {
  *static_all = true;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    if (!c.has_input(i)) continue;
    if (!c.input(i).data) return false;
    *static_all = *static_all && c.input_static(i);
  }
  return true;
}

// Output 0 as host data: static when every input was, else a weight named after the output.
void set_known_output(NodeContext& c, HostTensor data, bool is_static) {
  if (is_static) {
    c.set_static_output(0, std::move(data));
    return;
  }
  c.set_weight_output(0, std::move(data));
}

// Folds the op at import when every input is known: output 0 is f(x, scale, zero point) per
// element, of `elem_type` (static when every input was, else a weight). False when an input
// is a runtime value.
bool fold_known(NodeContext& c, int32_t elem_type, std::string_view scale_name,
                std::string_view zp_name, const std::function<double(double, double, double)>& f) {
  bool is_static = false;
  if (!all_known(c, &is_static)) return false;
  const HostTensor& x = *c.input(0).data;
  std::vector<double> scale = param_values(c, 1, x, scale_name);
  std::vector<double> zp =
      c.has_input(2) ? param_values(c, 2, x, zp_name) : std::vector<double>(scale.size());
  HostTensor y = host(elem_type, x.dims, {});
  y.values.resize(x.values.size());
  for (size_t e = 0; e < y.values.size(); ++e) y.values[e] = f(x.values[e], scale[e], zp[e]);
  set_known_output(c, std::move(y), is_static);
  return true;
}

// Ops whose output 0 has the element type of input 0 whatever it is: data movement, and the
// few that ONNX Runtime's QOperator form runs on quantized tensors as they are.
constexpr std::string_view kTypePreserving[] = {
    "Identity", "Reshape",      "Flatten",      "Squeeze", "Unsqueeze", "Transpose", "Slice",
    "Gather",   "Concat",       "Split",        "Pad",     "Expand",    "Tile",      "MaxPool",
    "Resize",   "DepthToSpace", "SpaceToDepth", "Relu",    "Clip"};

// The quantized ops' outputs: the inputs whose element type output 0 has, in order (the
// output zero point, then the input the type defaults to when that optional zero point is
// absent; -1 for none).
constexpr std::pair<std::string_view, std::array<int, 2>> kQuantizedOutputs[] = {
    {"QuantizeLinear", {2, -1}},
    {"QLinearConv", {7, -1}},
    {"QLinearMatMul", {7, -1}},
    {"QLinearAdd", {7, 0}},
    {"QLinearMul", {7, 0}},
    {"QLinearSigmoid", {4, 0}},
    {"QLinearLeakyRelu", {4, 0}},
    {"QLinearAveragePool", {4, 0}},
    {"QLinearGlobalAveragePool", {4, 0}},
    {"QLinearConcat", {1, 2}},
};

// The ONNX element type of the value `name` (see elem_type_of); `depth` bounds the walk back
// through producers.
std::optional<int32_t> elem_type_named(Importer& im, const std::string& name, int depth) {
  if (name.empty() || depth > 64) return std::nullopt;
  if (im.has_value(name) && im.value(name).data) return im.value(name).data.elem_type();
  if (std::optional<int32_t> t = im.declared_elem_type(name)) return t;
  const ::onnx::NodeProto* p = im.producer_of(name);
  if (!p) return std::nullopt;
  const std::string& op = p->op_type();
  auto input_type = [&](int i) -> std::optional<int32_t> {
    if (i < 0 || i >= p->input_size()) return std::nullopt;
    return elem_type_named(im, p->input(i), depth + 1);
  };
  auto attr = [&](std::string_view a) -> std::optional<int64_t> {
    for (const ::onnx::AttributeProto& at : p->attribute())
      if (at.name() == a) return at.i();
    return std::nullopt;
  };
  if (op == "Cast") {
    if (std::optional<int64_t> to = attr("to")) return static_cast<int32_t>(*to);
    return std::nullopt;
  }
  if (op == "DynamicQuantizeLinear")
    return p->output_size() > 1 && p->output(1) == name ? std::nullopt
                                                        : std::optional<int32_t>{TP::UINT8};
  if (op == "MatMulInteger" || op == "ConvInteger") return int32_t{TP::INT32};
  for (const auto& [q, sources] : kQuantizedOutputs) {
    if (op != q) continue;
    for (int i : sources)
      if (i >= 0 && i < p->input_size() && !p->input(i).empty()) return input_type(i);
    if (op != "QuantizeLinear") return std::nullopt;
    std::optional<int64_t> out = attr("output_dtype");
    return out && *out != 0 ? static_cast<int32_t>(*out) : int32_t{TP::UINT8};
  }
  for (std::string_view t : kTypePreserving)
    if (op == t) return input_type(0);
  return std::nullopt;
}

// The element type QuantizeLinear produces: the zero point's, else output_dtype, else uint8.
int32_t quantized_type(NodeContext& c) {
  auto attr = static_cast<int32_t>(c.attr_int("output_dtype", 0));
  if (c.has_input(2)) {
    std::optional<int32_t> zp = elem_type_of(c, 2);
    if (!zp) c.fail("expected the type of 'y_zero_point' to be known (it sets the saturation)");
    if (attr != 0 && attr != *zp)
      c.fail(fmt::format("'output_dtype' {} differs from the zero point's type {}",
                         elem_type_name(attr), elem_type_name(*zp)));
    return *zp;
  }
  return attr != 0 ? attr : int32_t{TP::UINT8};
}

} // namespace

std::optional<IntRange> range_of(int32_t elem_type) {
  switch (elem_type) {
  case TP::UINT8:
    return IntRange{0, 255};
  case TP::INT8:
    return IntRange{-128, 127};
  case TP::UINT16:
    return IntRange{0, 65535};
  case TP::INT16:
    return IntRange{-32768, 32767};
  case TP::INT32:
    return IntRange{static_cast<double>(std::numeric_limits<int32_t>::min()),
                    static_cast<double>(std::numeric_limits<int32_t>::max())};
  default:
    return std::nullopt;
  }
}

Value round_graph(Builder& b, Value x) {
  // t = trunc(x) (a round trip through i32), then one step away from zero past a half, or at
  // exactly a half when t is odd.
  DType d = b.type(x).dtype;
  auto k = [&](double v) { return b.scalar(v, d); };
  auto trunc = [&](Value v) { return b.typecast(b.typecast(v, DType::I32), d); };
  Value t = trunc(x);
  Value f = b.subtract(x, t);
  Value two = k(2);
  Value half = trunc(b.divide(t, k(2)));
  Value odd = b.abs(b.subtract(t, b.multiply(two, half)));
  Value above = b.greater(f, k(0.5));
  Value up = b.add(above, b.multiply(odd, b.equal(f, k(0.5))));
  Value below = b.less(f, k(-0.5));
  Value down = b.add(below, b.multiply(odd, b.equal(f, k(-0.5))));
  return b.add(t, b.subtract(up, down));
}

Value round_saturate(Builder& b, Value v, const Value* zero_point, IntRange r) {
  Value q = round_graph(b, v);
  if (zero_point != nullptr) q = b.add(q, *zero_point);
  DType d = b.type(q).dtype;
  Value clamped = b.maximum(q, b.scalar(r.lo, d));
  return b.minimum(clamped, b.scalar(r.hi, d));
}

std::optional<std::vector<int64_t>> per_axis_dims(NodeContext& c, size_t param, const Shape& x,
                                                  int64_t axis, std::string_view what) {
  Shape p = c.input_shape(param);
  if (p.numel() == 1 && p.rank() <= 1) return std::nullopt;
  if (x.rank() == 0)
    c.fail(fmt::format("expected '{}' to have one element (its tensor is a scalar), got shape {}",
                       what, p.str()));
  axis = norm_axis(axis, x.rank(), "'axis'");
  if (p.rank() != 1 || p[0] != x[axis])
    c.fail(fmt::format("expected '{}' to have one element or {} (input dim {}), got shape {}", what,
                       x[axis], axis, p.str()));
  std::vector<int64_t> dims(static_cast<size_t>(x.rank()), 1);
  dims[static_cast<size_t>(axis)] = x[axis];
  return dims;
}

Value param_operand(NodeContext& c, size_t i, DType dtype,
                    const std::optional<std::vector<int64_t>>& dims) {
  Builder& b = c.builder();
  if (c.input(i).data) {
    const HostTensor& h = *c.input(i).data;
    if (!dims) return b.scalar(h.values.at(0), dtype);
    return b.constant(to_tensor(host(h.elem_type, *dims, h.values), dtype));
  }
  Value v = c.operand(i);
  if (b.type(v).dtype != dtype) v = b.typecast(v, dtype);
  return b.reshape(v, dims ? *dims : std::vector<int64_t>{});
}

std::optional<int32_t> elem_type_of(NodeContext& c, size_t i) {
  if (!c.has_input(i)) return std::nullopt;
  return elem_type_named(c.importer(), c.node().input(static_cast<int>(i)), 0);
}

void convert_round(NodeContext& c) {
  if (c.input_static(0)) {
    c.set_static_output(0, host_unary(*c.input(0).data, round_even, c.input(0).data.elem_type()));
    return;
  }
  c.set_output(0, round_graph(c.builder(), c.operand(0)));
}

void convert_quantize_linear(NodeContext& c) {
  // y = saturate(round(x / y_scale) + y_zero_point), in the zero point's integer type.
  int32_t type = quantized_type(c);
  std::optional<IntRange> r = range_of(type);
  if (!r)
    c.fail(fmt::format("expected an integer quantized type (int8, uint8, int16, uint16 or int32), "
                       "got {}",
                       elem_type_name(type)));
  // The quotient in f32, as the spec's reference computes it.
  if (fold_known(c, type, "y_scale", "y_zero_point", [&](double x, double scale, double zp) {
        return std::clamp(round_even(static_cast<float>(x / scale)) + zp, r->lo, r->hi);
      }))
    return;
  Builder& b = c.builder();
  // In f32 whatever x's dtype: bf16 holds integers exactly only up to 256.
  Value x = in_f32(b, c.operand(0));
  DType d = DType::F32;
  Shape xs = b.type(x).shape;
  Value scale = param_operand(c, 1, d, qdq_dims(c, 1, xs, "y_scale"));
  std::optional<Value> zp;
  if (c.has_input(2)) zp = param_operand(c, 2, d, qdq_dims(c, 2, xs, "y_zero_point"));
  Value q = round_saturate(b, b.divide(x, scale), zp ? &*zp : nullptr, *r);
  c.set_output(0, b.typecast(q, DType::I32));
}

void convert_dequantize_linear(NodeContext& c) {
  // y = (x - x_zero_point) * x_scale, in the scale's float type.
  int32_t out_type = c.input(1).data ? c.input(1).data.elem_type() : int32_t{TP::FLOAT};
  if (fold_known(c, out_type, "x_scale", "x_zero_point", [](double x, double scale, double zp) {
        return static_cast<float>((x - zp) * scale);
      }))
    return;
  Builder& b = c.builder();
  Value x = c.operand(0);
  Shape xs = b.type(x).shape;
  DType d = c.input_type(1).dtype;
  if (d == DType::I32) c.fail("expected a floating-point 'x_scale'");
  Value xf = b.type(x).dtype == d ? x : b.typecast(x, d);
  if (c.has_input(2))
    xf = b.subtract(xf, param_operand(c, 2, d, qdq_dims(c, 2, xs, "x_zero_point")));
  c.set_output(0, b.multiply(xf, param_operand(c, 1, d, qdq_dims(c, 1, xs, "x_scale"))));
}

void convert_dynamic_quantize_linear(NodeContext& c) {
  // uint8 over the range of x widened to hold 0: scale = (max - min) / 255, zero point
  // saturate(round(-min / scale)), y = saturate(round(x / scale) + zero point).
  Builder& b = c.builder();
  Value x = c.operand(0);
  if (b.type(x).dtype == DType::I32) c.fail("expected a floating-point input");
  x = in_f32(b, x);
  TensorType t = b.type(x);
  std::vector<int64_t> all;
  for (int64_t d = 0; d < t.shape.rank(); ++d) all.push_back(d);
  auto k = [&](double v) { return b.scalar(v, t.dtype); };
  ReduceOptions over{all, false};
  Value x_max = b.max(x, over);
  Value hi = b.maximum(x_max, k(0));
  Value x_min = b.neg(b.max(b.neg(x), over));
  Value lo = b.minimum(x_min, k(0));
  Value range = b.subtract(hi, lo);
  Value scale = b.divide(range, k(255));
  IntRange u8{0, 255};
  Value zp = round_saturate(b, b.divide(b.neg(lo), scale), nullptr, u8);
  Value y = round_saturate(b, b.divide(x, scale), &zp, u8);
  c.set_output(0, b.typecast(y, DType::I32));
  c.set_output(1, scale);
  c.set_output(2, b.typecast(zp, DType::I32));
}

} // namespace tilesat::onnx
