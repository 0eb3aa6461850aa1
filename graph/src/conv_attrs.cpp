// conv_attrs.cpp: stride / padding / dilation in any written form, and conv2d's dim attributes.
#include "tilesat/graph/conv_attrs.h"

#include "tilesat/graph/diagnostic.h"

#include <fmt/format.h>

namespace tilesat {

namespace {

constexpr int64_t kMaxWindowValue = int64_t{1} << 20;

// The values of a scalar-or-list attribute spread to `n` positions: a scalar fills all, a list
// of n/2 values repeats (padding [h, w] -> [h, w, h, w]), a list of n is as is.
std::vector<int64_t> spread(const Attrs& a, std::string_view name, size_t n, bool positive) {
  const AttrValue* v = a.find(name);
  if (v == nullptr) throw Error(fmt::format("expected attribute '{}', got none", name));
  std::vector<int64_t> out;
  if (const auto* i = std::get_if<int64_t>(v)) {
    out.assign(n, *i);
  } else if (const auto* l = std::get_if<std::vector<int64_t>>(v)) {
    if (l->size() == n) out = *l;
    if (n == 4 && l->size() == 2) out = {(*l)[0], (*l)[1], (*l)[0], (*l)[1]};
  }
  bool ok = out.size() == n;
  for (int64_t x : out) ok = ok && (positive ? x >= 1 : x >= 0) && x <= kMaxWindowValue;
  if (!ok) {
    throw Error(fmt::format("expected '{}' to be one {} value up to 2^20 or a list of {}, got {}",
                            name, positive ? "positive" : "non-negative", n == 4 ? "2 or 4" : "2",
                            attr_value_str(*v)));
  }
  return out;
}

} // namespace

Window2d window2d(const Attrs& complete) {
  std::vector<int64_t> s = spread(complete, "stride", 2, true);
  std::vector<int64_t> p = spread(complete, "padding", 4, false);
  std::vector<int64_t> d = spread(complete, "dilation", 2, true);
  return Window2d{s[0], s[1], p[0], p[1], p[2], p[3], d[0], d[1]};
}

ConvDims conv_dims(const Attrs& complete) {
  ConvDims d{complete.get<int64_t>("batch_dim"), complete.get<int64_t>("height_dim"),
             complete.get<int64_t>("width_dim"), complete.get<int64_t>("channel_dim")};
  std::array<int64_t, 4> order = d.nchw_order();
  std::array<bool, 4> seen{};
  bool ok = true;
  for (int64_t x : order) {
    ok = ok && x >= 0 && x < 4 && !seen[static_cast<size_t>(x)];
    if (ok) seen[static_cast<size_t>(x)] = true;
  }
  if (!ok) {
    throw Error(fmt::format("expected batch_dim, channel_dim, height_dim and width_dim to be a "
                            "permutation of 0, 1, 2, 3, got {}, {}, {}, {}",
                            d.batch, d.channel, d.height, d.width));
  }
  return d;
}

void set_conv_dims(Attrs& attrs, const ConvDims& d) {
  attrs.set("batch_dim", d.batch);
  attrs.set("height_dim", d.height);
  attrs.set("width_dim", d.width);
  attrs.set("channel_dim", d.channel);
}

FlatImage flat_image(const Attrs& complete) {
  FlatImage f{complete.get<int64_t>("batch_size"), complete.get<int64_t>("input_height"),
              complete.get<int64_t>("input_width")};
  bool none = f.batch == 0 && f.height == 0 && f.width == 0;
  bool all = true;
  for (int64_t v : {f.batch, f.height, f.width}) all = all && v >= 1 && v <= kMaxWindowValue;
  if (!none && !all) {
    throw Error(fmt::format("expected batch_size, input_height and input_width to be all 0 (a "
                            "4-D input) or all in [1, 2^20] (a flattened NHWC input), got {}, "
                            "{}, {}",
                            f.batch, f.height, f.width));
  }
  return f;
}

void set_flat_image(Attrs& attrs, const FlatImage& f) {
  attrs.set("batch_size", f.batch);
  attrs.set("input_height", f.height);
  attrs.set("input_width", f.width);
}

} // namespace tilesat
