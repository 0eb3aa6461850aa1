// model_fusion.cpp: computed right sides of the model-fusion family: layer norm and RMS norm
// recognized from their decompositions and a conv2d bias broadcast along the conv's channel dim.
#include "applier_impl.h"
#include "tilesat/graph/conv_attrs.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/rewrites/payload.h"

#include <algorithm>

namespace tilesat::rewrites::appliers {
namespace {

// The first normalized dim when `dims` (a mean's dim_arg) names exactly the trailing dims
// [axis, rank) of a rank-`rank` tensor; nullopt otherwise.
std::optional<int64_t> trailing_axis(const std::vector<int64_t>& dims, int64_t rank) {
  if (dims.empty()) return rank > 0 ? std::optional<int64_t>(0) : std::nullopt;
  std::vector<int64_t> norm;
  for (int64_t d : dims) {
    std::optional<int64_t> a = normalize_axis(d, rank);
    if (!a) return std::nullopt;
    norm.push_back(*a);
  }
  std::sort(norm.begin(), norm.end());
  auto first = norm.front();
  for (size_t i = 0; i < norm.size(); ++i) {
    if (norm[i] != first + static_cast<int64_t>(i)) return std::nullopt;
  }
  if (norm.back() != rank - 1) return std::nullopt;
  return first;
}

// A normalization `kind` (layer_norm(x[, g, b]) or rms_norm(x)) over the dims of attribute
// argument 1 with the splat epsilon of tensor argument 2, or kNoId.
egraph::Id norm(ApplyContext& c, OpKind kind, bool affine) {
  egraph::Id x = c.cls(0);
  std::optional<std::vector<int64_t>> dims = c.int_list(1);
  const std::optional<double>& eps = c.tensor(2).splat;
  if (!dims || !eps || !(*eps >= 0.0)) return egraph::kNoId;
  std::optional<int64_t> axis = trailing_axis(*dims, c.analysis()[x].type.shape.rank());
  if (!axis) return egraph::kNoId;
  Attrs a;
  a.set("axis", *axis);
  a.set("epsilon", *eps);
  std::vector<egraph::Id> kids{x};
  if (affine) {
    kids.push_back(c.cls(3));
    kids.push_back(c.cls(4));
  }
  return c.if_fits_root(c.add(kind, kids, a));
}

} // namespace

egraph::Id layer_norm_plain(ApplyContext& c) {
  return norm(c, OpKind::LayerNorm, false);
}

egraph::Id layer_norm_affine(ApplyContext& c) {
  return norm(c, OpKind::LayerNorm, true);
}

egraph::Id rms_norm(ApplyContext& c) {
  return norm(c, OpKind::RmsNorm, false);
}

egraph::Id conv_with_bias(ApplyContext& c) {
  // ?x ?w ?bias ?stride ?padding ?dilation ?groups ?batch_dim ?height_dim ?width_dim ?channel_dim
  egraph::Id x = c.cls(0), w = c.cls(1), bias = c.cls(2);
  const Shape& ws = c.analysis()[w].type.shape;
  const Shape& bs = c.analysis()[bias].type.shape;
  std::optional<int64_t> groups = c.integer(6), bd = c.integer(7), hd = c.integer(8),
                         wd = c.integer(9), cd = c.integer(10);
  if (ws.rank() != 4 || !groups || !bd || !hd || !wd || !cd) return egraph::kNoId;
  Attrs a;
  // stride / padding / dilation keep the form they were written in (one integer or a list).
  static constexpr std::string_view kWindow[] = {"stride", "padding", "dilation"};
  for (size_t i = 0; i < 3; ++i) {
    a.set(std::string(kWindow[i]), from_egraph_value(c.attr(3 + i), AttrKind::IntList, kWindow[i]));
  }
  a.set("groups", *groups);
  ConvDims dims{*bd, *hd, *wd, *cd};
  set_conv_dims(a, dims);
  try {
    conv_dims(a);
  } catch (const Error&) {
    return egraph::kNoId; // not a permutation: the conv is invalid anyway
  }
  int64_t cout = ws[0];
  // The bias varies along the channel dim only: [C, 1, 1] (NCHW, right-aligned) or
  // [1, .., C, ..] with C at the channel dim.
  bool chw = dims.is_nchw() && bs.rank() == 3 && bs[0] == cout && bs[1] == 1 && bs[2] == 1;
  bool at_channel = bs.rank() == 4;
  for (int64_t i = 0; at_channel && i < 4; ++i)
    at_channel = bs[i] == (i == dims.channel ? cout : 1);
  if (!chw && !at_channel) return egraph::kNoId;
  egraph::Id operand = bias;
  if (dims.is_nchw()) {
    // The runtime's NCHW conv kernel takes a [C] bias.
    Attrs r;
    r.set("shape", std::vector<int64_t>{cout});
    egraph::Id flat_kids[] = {bias};
    operand = c.add(OpKind::Reshape, flat_kids, r);
    if (operand == egraph::kNoId) return egraph::kNoId;
  }
  egraph::Id kids[] = {x, w, operand};
  return c.if_fits_root(c.add(OpKind::Conv2d, kids, a));
}

} // namespace tilesat::rewrites::appliers
