// conv.cpp: Conv (1-D and 2-D; a BatchNormalization that alone reads it is folded into its
// weights), BatchNormalization, MaxPool and AveragePool (1-D and 2-D). A 1-D window is the 2-D
// one with a height of 1: the input [N, C, L] is read as [N, C, 1, L], the result reshaped back.
#include "converters.h"

#include <cmath>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

namespace tilesat::onnx {

namespace {

struct Window2d {
  std::vector<int64_t> kernel, stride, padding, dilation;
};

// Kernel, strides, pads ([top, left, bottom, right], as ONNX orders them) and dilations,
// with auto_pad resolved against the input's spatial dims. `x` is the input as 2-D (a 1-D
// input lifted to a height of 1); a 1-D node's attributes (one kernel dim, stride and dilation,
// two pads) are lifted the same way.
Window2d window_of(NodeContext& c, const Shape& x, std::vector<int64_t> kernel, bool one_d) {
  Window2d w;
  w.kernel = std::move(kernel);
  const std::vector<int64_t> ones(one_d ? 1 : 2, 1);
  w.stride = c.attr_ints("strides", ones);
  w.dilation = c.attr_ints("dilations", ones);
  w.padding = c.attr_ints("pads", std::vector<int64_t>(one_d ? 2 : 4, 0));
  if (one_d) {
    if (w.kernel.size() != 1 || w.stride.size() != 1 || w.dilation.size() != 1 ||
        w.padding.size() != 2)
      c.fail("expected a 1-D window (1 kernel dim, stride and dilation, 2 pads)");
    w.kernel.insert(w.kernel.begin(), 1);
    w.stride.insert(w.stride.begin(), 1);
    w.dilation.insert(w.dilation.begin(), 1);
    w.padding = {0, w.padding[0], 0, w.padding[1]};
  }
  if (w.kernel.size() != 2 || w.stride.size() != 2 || w.dilation.size() != 2 ||
      w.padding.size() != 4) {
    c.fail("expected a 2-D window (2 kernel dims, strides and dilations, 4 pads)");
  }
  for (int64_t v : w.stride) {
    if (v < 1) c.fail(fmt::format("expected positive strides, got {}", v));
  }
  std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "VALID") {
    w.padding = {0, 0, 0, 0};
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t d = 0; d < 2; ++d) {
      int64_t in = x[static_cast<int64_t>(d) + 2], s = w.stride[d];
      int64_t out = (in + s - 1) / s;
      int64_t total =
          std::max<int64_t>(0, (out - 1) * s + (w.kernel[d] - 1) * w.dilation[d] + 1 - in);
      int64_t small = total / 2;
      w.padding[d] = auto_pad == "SAME_UPPER" ? small : total - small;
      w.padding[d + 2] = total - w.padding[d];
    }
  } else if (auto_pad != "NOTSET") {
    c.fail(fmt::format("unsupported 'auto_pad' \"{}\"", auto_pad));
  }
  return w;
}

// The input's shape as 2-D: rank 4 as it is, rank 3 (1-D) with a height of 1 inserted.
Shape as_2d(NodeContext& c, const Shape& x) {
  if (x.rank() == 3) return Shape{x[0], x[1], 1, x[2]};
  if (x.rank() != 4) {
    c.fail(fmt::format("expected a 1-D or 2-D (rank 3 or 4, NCL or NCHW) input, got rank {} (3-D "
                       "is not supported)",
                       x.rank()));
  }
  return x;
}

// Input 0 as 2-D, and a 2-D result back as the input's rank.
Value lifted_input(NodeContext& c, const Shape& x4) {
  Value in = c.operand(0);
  return c.input_shape(0).rank() == 3 ? c.builder().reshape(in, x4.dims()) : in;
}
Value lowered_result(NodeContext& c, Value y) {
  if (c.input_shape(0).rank() != 3) return y;
  Shape s = c.builder().type(y).shape;
  return c.builder().reshape(y, {s[0], s[1], s[3]});
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

void convert_conv(NodeContext& c) {
  Builder& b = c.builder();
  const bool one_d = c.input_shape(0).rank() == 3;
  Shape x = as_2d(c, c.input_shape(0));
  Shape w = c.input_shape(1);
  if (w.rank() != c.input_shape(0).rank())
    c.fail(
        fmt::format("expected a rank-{} weight, got rank {}", c.input_shape(0).rank(), w.rank()));
  if (one_d) w = Shape{w[0], w[1], 1, w[2]};
  std::vector<int64_t> spatial =
      one_d ? std::vector<int64_t>{w[3]} : std::vector<int64_t>{w[2], w[3]};
  Window2d win = window_of(c, x, c.attr_ints("kernel_shape", spatial), one_d);
  if (win.kernel != std::vector<int64_t>{w[2], w[3]}) {
    c.fail("expected 'kernel_shape' to match the weight's spatial dims");
  }
  Conv2dOptions o{win.stride, win.padding, win.dilation, c.attr_int("group", 1), ""};
  Value in = lifted_input(c, x);
  DType d = b.type(in).dtype;
  if (const ::onnx::NodeProto* bn = foldable_batch_norm(c)) {
    Importer& im = c.importer();
    auto [scale, shift] = bn_affine(*im.value(bn->input(1)).data, *im.value(bn->input(2)).data,
                                    *im.value(bn->input(3)).data, *im.value(bn->input(4)).data,
                                    std::stod(fmt::format("{}", bn_epsilon(*bn))), w[0]);
    Tensor weight(TensorType{d, w, {}}, to_tensor(*c.input(1).data, d).data());
    int64_t per_out = w.numel() / std::max<int64_t>(w[0], 1);
    for (int64_t i = 0; i < weight.numel(); ++i) {
      weight[i] = static_cast<float>(weight[i] * scale[static_cast<size_t>(i / per_out)]);
    }
    Tensor bias(TensorType{d, Shape{w[0]}, {}});
    for (int64_t o2 = 0; o2 < w[0]; ++o2) {
      double conv_bias = c.has_input(2) ? c.input(2).data->values.at(static_cast<size_t>(o2)) : 0;
      auto k = static_cast<size_t>(o2);
      bias[o2] = static_cast<float>(conv_bias * scale[k] + shift[k]);
    }
    weight.round_to_dtype();
    bias.round_to_dtype();
    std::string base = c.node().input(1);
    Value wv = im.add_weight(base + ".bn_folded", std::move(weight));
    Value bv = im.add_weight(base + ".bn_folded_bias", std::move(bias));
    Value y = lowered_result(c, b.conv2d(in, wv, bv, o));
    c.set_output(0, y);
    im.absorb(bn);
    OnnxValue out;
    out.node = y.id;
    im.define(bn->output(0), std::move(out));
    return;
  }
  Value weight = operand_like(c, 1, d, false);
  if (one_d) weight = b.reshape(weight, w.dims());
  Value y = c.has_input(2) ? b.conv2d(in, weight, operand_like(c, 2, d, false), o)
                           : b.conv2d(in, weight, o);
  c.set_output(0, lowered_result(c, y));
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
  Builder& b = c.builder();
  bool is_max = c.node().op_type() == "MaxPool";
  if (is_max && c.wants_output(1)) c.fail("expected no Indices output, got one");
  Shape x = as_2d(c, c.input_shape(0));
  if (!c.has_attr("kernel_shape")) c.fail("expected 'kernel_shape', got none");
  Window2d win = window_of(c, x, c.attr_ints("kernel_shape", {}), c.input_shape(0).rank() == 3);
  Pool2dOptions o;
  o.stride = win.stride;
  o.padding = win.padding;
  o.dilation = win.dilation;
  o.ceil_mode = c.attr_int("ceil_mode", 0) != 0;
  o.count_include_pad = !is_max && c.attr_int("count_include_pad", 0) != 0;
  if (is_max && c.attr_int("storage_order", 0) != 0) c.fail("expected 'storage_order' 0");
  Value in = lifted_input(c, x);
  c.set_output(0, lowered_result(c, is_max ? b.max_pool2d(in, win.kernel, o)
                                           : b.avg_pool2d(in, win.kernel, o)));
}

} // namespace tilesat::onnx
