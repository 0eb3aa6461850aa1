// op_params_nn.cpp: the parameters of the network ops: conv2d, max/avg pool, layer_norm, rms_norm,
// take and where, with axes normalized and the window geometry spelled out per dim.
#include "op_params.h"
#include "tilesat/graph/conv_attrs.h"
#include "tilesat/graph/op.h"

#include <fmt/format.h>

namespace tilesat::lowering::detail {
namespace {

using IntList = std::vector<int64_t>;

// The graph's stride / padding / dilation in any written form (verified by shape inference:
// values up to 2^20) and a kernel extent.
fb::Window2d window(const Attrs& attrs, int64_t kh, int64_t kw) {
  Window2d w = window2d(attrs);
  auto u = [](int64_t v) { return static_cast<uint32_t>(v); };
  return fb::Window2d(u(kh), u(kw), u(w.stride_h), u(w.stride_w), u(w.pad_top), u(w.pad_left),
                      u(w.pad_bottom), u(w.pad_right), u(w.dilation_h), u(w.dilation_w));
}

// The flattened NHWC image of a conv or pool, or null for a 4-D input.
std::unique_ptr<fb::FlatImage> flat(const Attrs& attrs) {
  FlatImage f = flat_image(attrs);
  if (!f.active()) return nullptr;
  auto u = [](int64_t v) { return static_cast<uint32_t>(v); };
  return std::make_unique<fb::FlatImage>(u(f.batch), u(f.height), u(f.width));
}

} // namespace

std::optional<fb::OpParamsUnion> nn_params(const Graph& g, NodeId id, const Attrs& attrs) {
  const Node& n = g.node(id);
  fb::OpParamsUnion u;
  switch (n.kind) {
  case OpKind::Conv2d: {
    ConvDims dims = conv_dims(attrs);
    if (!dims.is_nchw() && !flat_image(attrs).active()) {
      throw Error(fmt::format(
          "'ttir.conv2d' {}: the runtime's conv2d kernel takes NCHW or flattened NHWC; this "
          "conv's input and result have batch_dim {}, channel_dim {}, height_dim {}, width_dim "
          "{} (permute them to NCHW and write channel_dim = 1, height_dim = 2, width_dim = 3)",
          value_name(g, id), dims.batch, dims.channel, dims.height, dims.width));
    }
    const Shape& w = g.node(n.operands[1]).type.shape;
    fb::Conv2dT p;
    p.window = std::make_unique<fb::Window2d>(window(attrs, w[2], w[3]));
    p.groups = static_cast<uint32_t>(attrs.get<int64_t>("groups"));
    p.has_bias = n.operands.size() == 3;
    p.flat = flat(attrs);
    set_activation(p, g, id, attrs);
    u.Set(std::move(p));
    return u;
  }
  case OpKind::MaxPool2d:
  case OpKind::AvgPool2d: {
    const IntList& k = attrs.get<IntList>("kernel_size");
    fb::Pool2dT p;
    p.kind = n.kind == OpKind::MaxPool2d ? fb::PoolKind::Max : fb::PoolKind::Avg;
    p.window = std::make_unique<fb::Window2d>(window(attrs, k[0], k[1]));
    p.ceil_mode = attrs.get<bool>("ceil_mode");
    p.count_include_pad = n.kind == OpKind::AvgPool2d && attrs.get<bool>("count_include_pad");
    p.flat = flat(attrs);
    u.Set(std::move(p));
    return u;
  }
  case OpKind::LayerNorm: {
    fb::LayerNormT p;
    p.axis = norm_axis(attrs.get<int64_t>("axis"), n.type.shape.rank());
    p.epsilon = attrs.get<double>("epsilon");
    p.has_scale = n.operands.size() >= 2;
    p.has_bias = n.operands.size() == 3;
    u.Set(std::move(p));
    return u;
  }
  case OpKind::RmsNorm: {
    fb::RmsNormT p;
    p.axis = norm_axis(attrs.get<int64_t>("axis"), n.type.shape.rank());
    p.epsilon = attrs.get<double>("epsilon");
    p.has_weight = n.operands.size() == 2;
    u.Set(std::move(p));
    return u;
  }
  case OpKind::Take: {
    fb::TakeT p;
    p.dim = norm_axis(attrs.get<int64_t>("dim"), g.node(n.operands[0]).type.shape.rank());
    u.Set(std::move(p));
    return u;
  }
  case OpKind::Where:
    u.Set(fb::WhereT{});
    return u;
  default:
    return std::nullopt;
  }
}

} // namespace tilesat::lowering::detail
