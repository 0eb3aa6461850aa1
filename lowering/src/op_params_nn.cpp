// op_params_nn.cpp: the parameters of the network ops: conv2d, max/avg pool, layer_norm,
// take and where, with axes normalized and the window geometry spelled out per dim.
#include "op_params.h"
#include "tilesat/graph/op.h"

#include <fmt/format.h>

namespace tilesat::lowering::detail {
namespace {

using IntList = std::vector<int64_t>;

int64_t norm_axis(int64_t a, int64_t rank) {
  return a < 0 ? a + rank : a;
}

// The graph's stride / padding / dilation (verified by shape inference: 2, 4 and 2 values
// up to 2^20) and a kernel extent.
fb::Window2d window(const Attrs& attrs, int64_t kh, int64_t kw) {
  const IntList& s = attrs.get<IntList>("stride");
  const IntList& p = attrs.get<IntList>("padding");
  const IntList& d = attrs.get<IntList>("dilation");
  auto u = [](int64_t v) { return static_cast<uint32_t>(v); };
  return fb::Window2d(u(kh), u(kw), u(s[0]), u(s[1]), u(p[0]), u(p[1]), u(p[2]), u(p[3]), u(d[0]),
                      u(d[1]));
}

} // namespace

std::optional<fb::OpParamsUnion> nn_params(const Graph& g, NodeId id, const Attrs& attrs) {
  const Node& n = g.node(id);
  fb::OpParamsUnion u;
  switch (n.kind) {
  case OpKind::Conv2d: {
    const Shape& w = g.node(n.operands[1]).type.shape;
    fb::Conv2dT p;
    p.window = std::make_unique<fb::Window2d>(window(attrs, w[2], w[3]));
    p.groups = static_cast<uint32_t>(attrs.get<int64_t>("groups"));
    p.has_bias = n.operands.size() == 3;
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
