// quantize.cpp: ONNX's linear quantization as the graph's own ops, so a model in the QDQ form
// (int8 weights behind DequantizeLinear, QuantizeLinear/DequantizeLinear pairs on activations)
// imports, plans and runs: Round (half to even), QuantizeLinear, DequantizeLinear and
// DynamicQuantizeLinear. Quantized values are integers held in i32 (tilesat's one integer
// dtype); arithmetic on them runs in f32, exact for 8- and 16-bit values. With every input
// known at import (an int8 weight and its scales) the op folds on the host, and its result is
// a weight like the float initializer it stands for.
#include "converters.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <limits>

namespace tilesat::onnx {
namespace {

using TP = ::onnx::TensorProto;

// The values an integer element type saturates to.
struct IntRange {
  double lo = 0, hi = 0;
};

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

// Half to even, as ONNX's Round and the quantizers round.
double round_even(double v) {
  double r = std::round(v);
  if (std::abs(v - std::trunc(v)) == 0.5) r = 2.0 * std::round(v / 2.0);
  return r;
}

// The graph's round half to even: t = trunc(x) (a round trip through i32, |x| < 2^31), then
// one step away from zero past a half, or at exactly a half when t is odd.
Value round_graph(Builder& b, Value x) {
  DType d = b.type(x).dtype;
  auto k = [&](double v) { return b.scalar(v, d); };
  auto trunc = [&](Value v) { return b.typecast(b.typecast(v, DType::I32), d); };
  Value t = trunc(x);
  Value f = b.subtract(x, t);
  Value odd = b.abs(b.subtract(t, b.multiply(k(2), trunc(b.divide(t, k(2))))));
  Value up = b.add(b.greater(f, k(0.5)), b.multiply(odd, b.equal(f, k(0.5))));
  Value down = b.add(b.less(f, k(-0.5)), b.multiply(odd, b.equal(f, k(-0.5))));
  return b.add(t, b.subtract(up, down));
}

// The shape a per-axis parameter (1-D, one value per slice of x along `axis`) broadcasts in
// against x, or nullopt for a per-tensor (one-element) one; fails otherwise.
std::optional<std::vector<int64_t>> per_axis_dims(NodeContext& c, size_t param, const Shape& x,
                                                  std::string_view what) {
  Shape p = c.input_shape(param);
  if (p.numel() == 1 && p.rank() <= 1) return std::nullopt;
  if (c.attr_int("block_size", 0) != 0)
    c.fail(fmt::format("expected no 'block_size' (blocked quantization is not supported)"));
  int64_t axis = norm_axis(c.attr_int("axis", 1), std::max<int64_t>(x.rank(), 1), "'axis'");
  if (p.rank() != 1 || p[0] != x[axis])
    c.fail(fmt::format("expected '{}' to have one element or {} (input dim {}), got shape {}", what,
                       x[axis], axis, p.str()));
  std::vector<int64_t> dims(static_cast<size_t>(x.rank()), 1);
  dims[static_cast<size_t>(axis)] = x[axis];
  return dims;
}

// Input `i` (a scale or zero point) as a graph value of `dtype` shaped to broadcast against x.
Value param_operand(NodeContext& c, size_t i, DType dtype, const Shape& x, std::string_view what) {
  Builder& b = c.builder();
  std::optional<std::vector<int64_t>> dims = per_axis_dims(c, i, x, what);
  if (c.input(i).data) {
    const HostTensor& h = *c.input(i).data;
    if (!dims) return b.scalar(h.values.at(0), dtype);
    return b.constant(to_tensor(host(h.elem_type, *dims, h.values), dtype));
  }
  Value v = c.operand(i);
  if (b.type(v).dtype != dtype) v = b.typecast(v, dtype);
  return b.reshape(v, dims ? *dims : std::vector<int64_t>{});
}

// Host data of input `i` broadcast to x's elements: per tensor or per axis.
std::vector<double> param_values(NodeContext& c, size_t i, const HostTensor& x,
                                 std::string_view what) {
  const HostTensor& p = *c.input(i).data;
  Shape xs(x.dims);
  std::optional<std::vector<int64_t>> dims = per_axis_dims(c, i, xs, what);
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

// The ONNX element type of a runtime value: as the model declares it, else as its producer
// sets it (Cast's 'to', DynamicQuantizeLinear's uint8 outputs).
std::optional<int32_t> runtime_elem_type(NodeContext& c, const std::string& name) {
  if (std::optional<int32_t> t = c.importer().declared_elem_type(name)) return t;
  const ::onnx::NodeProto* p = c.importer().producer_of(name);
  if (!p) return std::nullopt;
  if (p->op_type() == "Cast")
    for (const ::onnx::AttributeProto& a : p->attribute())
      if (a.name() == "to") return static_cast<int32_t>(a.i());
  if (p->op_type() == "DynamicQuantizeLinear" && p->output_size() > 0 && p->output(1) != name)
    return int32_t{TP::UINT8};
  return std::nullopt;
}

// The element type QuantizeLinear produces: the zero point's, else output_dtype, else uint8.
int32_t quantized_type(NodeContext& c) {
  auto attr = static_cast<int32_t>(c.attr_int("output_dtype", 0));
  if (c.has_input(2)) {
    std::optional<int32_t> declared = runtime_elem_type(c, c.node().input(2));
    if (!c.input(2).data && !declared)
      c.fail("expected the type of 'y_zero_point' to be known (it sets the saturation)");
    int32_t zp = c.input(2).data ? c.input(2).data->elem_type : *declared;
    if (attr != 0 && attr != zp)
      c.fail(fmt::format("'output_dtype' {} differs from the zero point's type {}",
                         elem_type_name(attr), elem_type_name(zp)));
    return zp;
  }
  return attr != 0 ? attr : int32_t{TP::UINT8};
}

} // namespace

void convert_round(NodeContext& c) {
  if (c.input_static(0)) {
    c.set_static_output(0, host_unary(*c.input(0).data, round_even, c.input(0).data->elem_type));
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
  Value q = round_graph(b, b.divide(x, param_operand(c, 1, d, xs, "y_scale")));
  if (c.has_input(2)) q = b.add(q, param_operand(c, 2, d, xs, "y_zero_point"));
  q = b.minimum(b.maximum(q, b.scalar(r->lo, d)), b.scalar(r->hi, d));
  c.set_output(0, b.typecast(q, DType::I32));
}

void convert_dequantize_linear(NodeContext& c) {
  // y = (x - x_zero_point) * x_scale, in the scale's float type.
  int32_t out_type = c.input(1).data ? c.input(1).data->elem_type : int32_t{TP::FLOAT};
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
  if (c.has_input(2)) xf = b.subtract(xf, param_operand(c, 2, d, xs, "x_zero_point"));
  c.set_output(0, b.multiply(xf, param_operand(c, 1, d, xs, "x_scale")));
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
  Value hi = b.maximum(b.max(x, over), k(0));
  Value lo = b.minimum(b.neg(b.max(b.neg(x), over)), k(0));
  Value scale = b.divide(b.subtract(hi, lo), k(255));
  auto saturate = [&](Value v) { return b.minimum(b.maximum(v, k(0)), k(255)); };
  Value zp = saturate(round_graph(b, b.divide(b.neg(lo), scale)));
  Value y = saturate(b.add(round_graph(b, b.divide(x, scale)), zp));
  c.set_output(0, b.typecast(y, DType::I32));
  c.set_output(1, scale);
  c.set_output(2, b.typecast(zp, DType::I32));
}

} // namespace tilesat::onnx
