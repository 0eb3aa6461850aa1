// model_fusion.cpp: computed right sides of the model-fusion family: layer norm recognized from
// its decomposition and a conv2d bias given in NCHW-broadcast form.
#include "applier_impl.h"

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

// layer_norm(x[, g, b]) over the dims of attribute argument 1 with the splat epsilon of
// tensor argument 2, or kNoId.
egraph::Id layer_norm(ApplyContext& c, bool affine) {
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
  return c.if_fits_root(c.add(OpKind::LayerNorm, kids, a));
}

} // namespace

egraph::Id layer_norm_plain(ApplyContext& c) {
  return layer_norm(c, false);
}

egraph::Id layer_norm_affine(ApplyContext& c) {
  return layer_norm(c, true);
}

egraph::Id conv_with_bias(ApplyContext& c) {
  // ?x ?w ?bias ?stride ?padding ?dilation ?groups
  egraph::Id x = c.cls(0), w = c.cls(1), bias = c.cls(2);
  const Shape& ws = c.analysis()[w].type.shape;
  const Shape& bs = c.analysis()[bias].type.shape;
  if (ws.rank() != 4) return egraph::kNoId;
  int64_t cout = ws[0];
  // The bias varies along the channel dim only: [C, 1, 1] or [1, C, 1, 1].
  bool chw = bs.rank() == 3 && bs[0] == cout && bs[1] == 1 && bs[2] == 1;
  bool nchw = bs.rank() == 4 && bs[0] == 1 && bs[1] == cout && bs[2] == 1 && bs[3] == 1;
  if (!chw && !nchw) return egraph::kNoId;
  Attrs r;
  r.set("shape", std::vector<int64_t>{cout});
  egraph::Id flat_kids[] = {bias};
  egraph::Id flat = c.add(OpKind::Reshape, flat_kids, r);
  if (flat == egraph::kNoId) return egraph::kNoId;
  std::optional<std::vector<int64_t>> stride = c.int_list(3), padding = c.int_list(4),
                                      dilation = c.int_list(5);
  std::optional<int64_t> groups = c.integer(6);
  if (!stride || !padding || !dilation || !groups) return egraph::kNoId;
  Attrs a;
  a.set("stride", *stride);
  a.set("padding", *padding);
  a.set("dilation", *dilation);
  a.set("groups", *groups);
  egraph::Id kids[] = {x, w, flat};
  return c.if_fits_root(c.add(OpKind::Conv2d, kids, a));
}

} // namespace tilesat::rewrites::appliers
