// conv.cpp: Conv (1-D, 2-D and 3-D; a BatchNormalization that alone reads it is folded into
// its weights), BatchNormalization, MaxPool and AveragePool (1-D, 2-D and 3-D). A 1-D window
// is the 2-D one with a height of 1: the input [N, C, L] is read as [N, C, 1, L], the result
// reshaped back; a 3-D one is built from 2-D ones (volume.cpp).
#include "converters.h"

#include <cmath>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

namespace tilesat::onnx {

ConvWindow window_of(NodeContext& c, const std::vector<int64_t>& in, std::vector<int64_t> kernel) {
  const size_t n = in.size();
  ConvWindow w;
  w.kernel = std::move(kernel);
  w.stride = c.attr_ints("strides", std::vector<int64_t>(n, 1));
  w.dilation = c.attr_ints("dilations", std::vector<int64_t>(n, 1));
  std::vector<int64_t> pads = c.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  if (w.kernel.size() != n || w.stride.size() != n || w.dilation.size() != n ||
      pads.size() != 2 * n)
    c.fail(fmt::format("expected a {}-D window ({} kernel dims, strides and dilations, {} pads)", n,
                       n, 2 * n));
  for (int64_t v : w.stride) {
    if (v < 1) c.fail(fmt::format("expected positive strides, got {}", v));
  }
  w.pad_begin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(n));
  w.pad_end.assign(pads.begin() + static_cast<std::ptrdiff_t>(n), pads.end());
  std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "VALID") {
    w.pad_begin.assign(n, 0);
    w.pad_end.assign(n, 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t d = 0; d < n; ++d) {
      int64_t s = w.stride[d];
      int64_t out = (in[d] + s - 1) / s;
      int64_t total =
          std::max<int64_t>(0, (out - 1) * s + (w.kernel[d] - 1) * w.dilation[d] + 1 - in[d]);
      int64_t small = total / 2;
      w.pad_begin[d] = auto_pad == "SAME_UPPER" ? small : total - small;
      w.pad_end[d] = total - w.pad_begin[d];
    }
  } else if (auto_pad != "NOTSET") {
    c.fail(fmt::format("unsupported 'auto_pad' \"{}\"", auto_pad));
  }
  return w;
}

namespace {

// The spatial extents of input x (rank 3, 4 or 5: 1-, 2- or 3-D).
std::vector<int64_t> spatial_extents(NodeContext& c, const Shape& x) {
  if (x.rank() < 3 || x.rank() > 5)
    c.fail(fmt::format("expected a 1-D, 2-D or 3-D (rank 3, 4 or 5: NCL, NCHW, NCDHW) input, got "
                       "rank {}",
                       x.rank()));
  return {x.dims().begin() + 2, x.dims().end()};
}

// A 1-D window lifted to 2-D (a height of 1); a 2-D one as it is.
ConvWindow as_2d(ConvWindow w) {
  if (w.kernel.size() == 1) {
    for (std::vector<int64_t>* v : {&w.kernel, &w.stride, &w.dilation}) v->insert(v->begin(), 1);
    for (std::vector<int64_t>* v : {&w.pad_begin, &w.pad_end}) v->insert(v->begin(), 0);
  }
  return w;
}

// An input as 2-D (a 1-D one with a height of 1), and a 2-D result back as the input's rank.
Value lifted_input(Builder& b, Value in) {
  Shape x = b.type(in).shape;
  return x.rank() == 3 ? b.reshape(in, {x[0], x[1], 1, x[2]}) : in;
}
Value lowered_result(Builder& b, const Shape& in, Value y) {
  if (in.rank() != 3) return y;
  Shape s = b.type(y).shape;
  return b.reshape(y, {s[0], s[1], s[3]});
}

// A BatchNormalization that only the conv's output feeds, with every parameter known.
const ::onnx::NodeProto* foldable_batch_norm(NodeContext& c) {
  Importer& im = c.importer();
  const ::onnx::NodeProto* bn = im.sole_consumer(c.node().output(0));
  if (bn == nullptr || bn->op_type() != "BatchNormalization" || bn->input_size() != 5 ||
      bn->input(0) != c.node().output(0) || bn->output_size() != 1) {
    return nullptr;
  }
  if (!c.input(1).data || (c.has_input(2) && !c.input(2).data)) return nullptr;
  for (int i = 1; i < 5; ++i) {
    if (!im.has_value(bn->input(i)) || !im.value(bn->input(i)).data) return nullptr;
  }
  for (const ::onnx::AttributeProto& a : bn->attribute()) {
    if (a.name() == "training_mode" && a.i() != 0) return nullptr;
  }
  return bn;
}

float bn_epsilon(const ::onnx::NodeProto& bn) {
  for (const ::onnx::AttributeProto& a : bn.attribute()) {
    if (a.name() == "epsilon") return a.f();
  }
  return 1e-5f;
}

// Per channel: scale / sqrt(var + eps) and bias - mean * that.
std::pair<std::vector<double>, std::vector<double>>
bn_affine(const HostTensor& scale, const HostTensor& bias, const HostTensor& mean,
          const HostTensor& var, double eps, int64_t channels) {
  for (const HostTensor* p : {&scale, &bias, &mean, &var}) {
    if (p->numel() != channels) {
      throw Error(fmt::format("expected BatchNormalization parameters of {} elements, got {}",
                              channels, p->numel()));
    }
  }
  std::vector<double> a, b;
  for (size_t i = 0; i < static_cast<size_t>(channels); ++i) {
    a.push_back(scale.values[i] / std::sqrt(var.values[i] + eps));
    b.push_back(bias.values[i] - mean.values[i] * a.back());
  }
  return {a, b};
}

} // namespace

ConvWindow conv_window(NodeContext& c, const Shape& x, const Shape& w) {
  std::vector<int64_t> in = spatial_extents(c, x);
  const auto n = static_cast<int64_t>(in.size());
  if (w.rank() != n + 2)
    c.fail(fmt::format("expected a rank-{} weight, got rank {}", n + 2, w.rank()));
  std::vector<int64_t> spatial(w.dims().begin() + 2, w.dims().end());
  ConvWindow win = window_of(c, in, c.attr_ints("kernel_shape", spatial));
  if (win.kernel != spatial) c.fail("expected 'kernel_shape' to match the weight's spatial dims");
  return win;
}

Value conv_nd(NodeContext& c, Value x, Value weight, const Value* bias, const ConvWindow& win) {
  Builder& b = c.builder();
  int64_t groups = c.attr_int("group", 1);
  if (win.kernel.size() == 3) return conv3d_as_2d(b, x, weight, bias, win, groups);
  ConvWindow w2 = as_2d(win);
  if (win.kernel.size() == 1) {
    Shape w = b.type(weight).shape;
    weight = b.reshape(weight, {w[0], w[1], 1, w[2]});
  }
  Conv2dOptions o{w2.stride, w2.padding_2d(), w2.dilation, groups, ""};
  Value in = lifted_input(b, x);
  Value y = bias != nullptr ? b.conv2d(in, weight, *bias, o) : b.conv2d(in, weight, o);
  return lowered_result(b, b.type(x).shape, y);
}

void convert_conv(NodeContext& c) {
  Shape w = c.input_shape(1);
  ConvWindow win = conv_window(c, c.input_shape(0), w);
  DType d = c.input_type(0).dtype;
  // The weight and bias, with a BatchNormalization that alone reads the conv folded in.
  Value weight, bias;
  bool has_bias = c.has_input(2);
  const ::onnx::NodeProto* bn = foldable_batch_norm(c);
  if (bn) {
    Importer& im = c.importer();
    auto [scale, shift] = bn_affine(*im.value(bn->input(1)).data, *im.value(bn->input(2)).data,
                                    *im.value(bn->input(3)).data, *im.value(bn->input(4)).data,
                                    std::stod(fmt::format("{}", bn_epsilon(*bn))), w[0]);
    Tensor folded = to_tensor(c.input(1).data, d);
    int64_t per_out = w.numel() / std::max<int64_t>(w[0], 1);
    for (int64_t i = 0; i < folded.numel(); ++i) {
      folded[i] = static_cast<float>(folded[i] * scale[static_cast<size_t>(i / per_out)]);
    }
    Tensor folded_bias(TensorType{d, Shape{w[0]}, {}});
    for (int64_t o2 = 0; o2 < w[0]; ++o2) {
      double conv_bias = has_bias ? c.input(2).data->values.at(static_cast<size_t>(o2)) : 0;
      auto k = static_cast<size_t>(o2);
      folded_bias[o2] = static_cast<float>(conv_bias * scale[k] + shift[k]);
    }
    folded.round_to_dtype();
    folded_bias.round_to_dtype();
    std::string base = c.node().input(1);
    weight = im.add_weight(base + ".bn_folded", std::move(folded));
    bias = im.add_weight(base + ".bn_folded_bias", std::move(folded_bias));
    has_bias = true;
  } else {
    weight = operand_like(c, 1, d, false);
    if (has_bias) bias = operand_like(c, 2, d, false);
  }
  Value y = conv_nd(c, c.operand(0), weight, has_bias ? &bias : nullptr, win);
  c.set_output(0, y);
  if (bn) {
    Importer& im = c.importer();
    im.absorb(bn);
    OnnxValue out;
    out.node = y.id;
    im.define(bn->output(0), std::move(out));
  }
}

void convert_batch_norm(NodeContext& c) {
  if (c.attr_int("training_mode", 0) != 0 || c.num_outputs() > 1) {
    c.fail("expected inference mode (training_mode 0, one output)");
  }
  Builder& b = c.builder();
  Value x = c.operand(0);
  TensorType t = b.type(x);
  if (t.shape.rank() < 2)
    c.fail(fmt::format("expected an input of rank >= 2, got {}", t.shape.rank()));
  int64_t channels = t.shape[1];
  // [C, 1, ...]: broadcast over the spatial dims.
  Shape s(std::vector<int64_t>(static_cast<size_t>(t.shape.rank() - 1), 1));
  s[0] = channels;
  if (!(c.input_static(1) && c.input_static(2) && c.input_static(3) && c.input_static(4))) {
    // Statistics given at run time (a structure-only model's parameters): the same affine
    // map as graph ops, (x - mean) * scale / sqrt(var + epsilon) + B.
    auto channel = [&](size_t i) {
      Value v = c.operand(i);
      if (b.type(v).shape.numel() != channels)
        c.fail(fmt::format("expected input {} to have {} elements, got {}", i, channels,
                           b.type(v).shape.numel()));
      return b.reshape(v, s.dims());
    };
    Value scale = channel(1), bias = channel(2), mean = channel(3), var = channel(4);
    Value eps = b.scalar(c.attr_float("epsilon", 1e-5), t.dtype);
    Value factor = b.divide(scale, b.sqrt(b.add(var, eps)));
    c.set_output(0, b.add(b.multiply(b.subtract(x, mean), factor), bias));
    return;
  }
  auto [scale, shift] =
      bn_affine(c.input_data(1, "scale"), c.input_data(2, "B"), c.input_data(3, "input_mean"),
                c.input_data(4, "input_var"), c.attr_float("epsilon", 1e-5), channels);
  Tensor a(TensorType{t.dtype, s, {}}), k(TensorType{t.dtype, s, {}});
  for (int64_t i = 0; i < channels; ++i) {
    a[i] = static_cast<float>(scale[static_cast<size_t>(i)]);
    k[i] = static_cast<float>(shift[static_cast<size_t>(i)]);
  }
  a.round_to_dtype();
  k.round_to_dtype();
  Importer& im = c.importer();
  std::string base = c.node().input(1);
  Value av = im.add_weight(base + ".bn_scale", std::move(a));
  Value kv = im.add_weight(base + ".bn_shift", std::move(k));
  c.set_output(0, b.add(b.multiply(x, av), kv));
}

void convert_pool(NodeContext& c) {
  bool is_max = c.node().op_type() == "MaxPool";
  Value x = c.operand(0), y = pool_nd(c, x, is_max);
  c.set_output(0, y);
  if (!is_max || !c.wants_output(1)) return;
  // Indices: where each maximum was (unpool.cpp), over the window as 2-D.
  Builder& b = c.builder();
  const Shape xs = b.type(x).shape;
  if (xs.rank() == 5) c.fail("expected no Indices output from a 3-D MaxPool");
  ConvWindow win = as_2d(window_of(c, spatial_extents(c, xs), c.attr_ints("kernel_shape", {})));
  Value x2 = lifted_input(b, x);
  Value y2 = lifted_input(b, y);
  Value i = max_pool_indices(c, x2, y2, win, c.attr_int("storage_order", 0) == 1);
  c.set_output(1, lowered_result(b, xs, i));
}

Value pool_nd(NodeContext& c, Value x, bool is_max) {
  Builder& b = c.builder();
  Shape xs = b.type(x).shape;
  std::vector<int64_t> in = spatial_extents(c, xs);
  if (!c.has_attr("kernel_shape")) c.fail("expected 'kernel_shape', got none");
  ConvWindow win = window_of(c, in, c.attr_ints("kernel_shape", {}));
  bool ceil_mode = c.attr_int("ceil_mode", 0) != 0;
  bool count_include_pad = !is_max && c.attr_int("count_include_pad", 0) != 0;
  if (int64_t order = c.attr_int("storage_order", 0); is_max && order != 0 && order != 1)
    c.fail(
        fmt::format("expected 'storage_order' 0 (row major) or 1 (column major), got {}", order));
  if (in.size() == 3) {
    if (!is_max && ceil_mode) c.fail("expected 'ceil_mode' 0 for a 3-D AveragePool");
    return pool3d_as_2d(b, x, win, is_max, ceil_mode, count_include_pad);
  }
  return lowered_result(
      b, xs, pool2d(b, lifted_input(b, x), as_2d(win), is_max, ceil_mode, count_include_pad));
}

Value pool2d(Builder& b, Value x, const ConvWindow& w, bool is_max, bool ceil_mode,
             bool count_include_pad) {
  Pool2dOptions o;
  o.stride = w.stride;
  o.padding = w.padding_2d();
  o.dilation = w.dilation;
  o.ceil_mode = ceil_mode;
  o.count_include_pad = count_include_pad;
  return is_max ? b.max_pool2d(x, w.kernel, o) : b.avg_pool2d(x, w.kernel, o);
}

// com.microsoft FusedConv (X, W, B?, Z?), what ONNX Runtime's optimizer saves a Conv and the
// activation after it as: the conv, Z added, then `activation` with its `activation_params`
// (Relu, Sigmoid, Tanh, LeakyRelu alpha, HardSigmoid alpha and beta, Clip min and max).
void convert_fused_conv(NodeContext& c) {
  Builder& b = c.builder();
  ConvWindow win = conv_window(c, c.input_shape(0), c.input_shape(1));
  DType d = c.input_type(0).dtype;
  Value weight = operand_like(c, 1, d, false), bias;
  if (c.has_input(2)) bias = operand_like(c, 2, d, false);
  Value y = conv_nd(c, c.operand(0), weight, c.has_input(2) ? &bias : nullptr, win);
  if (c.has_input(3)) y = b.add(y, operand_like(c, 3, d, false));
  std::string name = c.attr_string("activation", "");
  std::vector<float> params;
  if (const auto* a = c.attr("activation_params"))
    params.assign(a->floats().begin(), a->floats().end());
  if (name == "Clip") {
    if (params.size() != 2) c.fail("expected 'activation_params' min and max for Clip");
    Value clamped = b.maximum(y, b.scalar(params[0], d));
    y = b.minimum(clamped, b.scalar(params[1], d));
  } else if (!name.empty()) {
    std::span<const float> alphas(params), betas;
    if (name == "HardSigmoid" && params.size() == 2) {
      alphas = std::span<const float>(params).first(1);
      betas = std::span<const float>(params).subspan(1);
    }
    std::optional<Activation> act = activation_named(name, alphas, betas);
    if (!act || (name != "Relu" && name != "Sigmoid" && name != "Tanh" && name != "LeakyRelu" &&
                 name != "HardSigmoid"))
      c.fail(fmt::format("unsupported 'activation' \"{}\"", name));
    y = apply_activation(b, *act, y);
  }
  c.set_output(0, y);
}

} // namespace tilesat::onnx
