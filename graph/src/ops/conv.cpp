// conv.cpp: 2-D convolution and pooling over NCHW tensors (batch, channels, height, width),
// with strides, padding [top, left, bottom, right], dilation and, for conv2d, groups.
#include "ops/op_impl.h"
#include "tilesat/graph/window.h"

#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace tilesat::ops {

namespace {

using IntList = std::vector<int64_t>;

// The window geometry shared by conv2d and the pools.
struct Window {
  int64_t kh = 1, kw = 1;
  int64_t sh = 1, sw = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;
  int64_t dh = 1, dw = 1;
  int64_t oh = 0, ow = 0;
};

const IntList& pair_attr(const Attrs& attrs, std::string_view name, size_t n, bool positive) {
  const IntList& v = attrs.get<IntList>(name);
  bool ok = v.size() == n;
  for (int64_t x : v) ok = ok && (positive ? x >= 1 : x >= 0) && x <= (int64_t{1} << 20);
  if (!ok) {
    fail(fmt::format("expected '{}' to hold {} {} values up to 2^20, got {}", name, n,
                     positive ? "positive" : "non-negative", list_str(v)));
  }
  return v;
}

// Output extent of one spatial dim (tilesat/graph/window.h).
int64_t out_extent(int64_t in, int64_t k, int64_t s, int64_t p0, int64_t p1, int64_t d,
                   bool ceil_mode, std::string_view which) {
  std::optional<int64_t> out = window_extent(in, k, s, p0, p1, d, ceil_mode);
  if (!out) {
    fail(fmt::format("expected the padded {} ({}) to be at least the dilated kernel extent "
                     "({}), got less",
                     which, in + p0 + p1, d * (k - 1) + 1));
  }
  return *out;
}

Window window(const Shape& x, int64_t kh, int64_t kw, const Attrs& attrs, bool ceil_mode) {
  Window w;
  w.kh = kh;
  w.kw = kw;
  const IntList& s = pair_attr(attrs, "stride", 2, true);
  const IntList& p = pair_attr(attrs, "padding", 4, false);
  const IntList& d = pair_attr(attrs, "dilation", 2, true);
  w.sh = s[0];
  w.sw = s[1];
  w.pt = p[0];
  w.pl = p[1];
  w.pb = p[2];
  w.pr = p[3];
  w.dh = d[0];
  w.dw = d[1];
  w.oh = out_extent(x[2], kh, w.sh, w.pt, w.pb, w.dh, ceil_mode, "height");
  w.ow = out_extent(x[3], kw, w.sw, w.pl, w.pr, w.dw, ceil_mode, "width");
  return w;
}

void check_nchw(const Shape& x) {
  if (x.rank() != 4) fail(fmt::format("expected an NCHW operand of rank 4, got rank {}", x.rank()));
}

struct ConvLayout {
  Window w;
  int64_t groups = 1;
  int64_t cout = 0, cin_per_group = 0;
};

ConvLayout conv_layout(std::span<const Shape* const> shapes, const Attrs& attrs) {
  const Shape& x = *shapes[0];
  const Shape& wt = *shapes[1];
  check_nchw(x);
  if (wt.rank() != 4) {
    fail(fmt::format("expected a weight of rank 4 (out channels, in channels / groups, kernel "
                     "height, kernel width), got rank {}",
                     wt.rank()));
  }
  ConvLayout l;
  l.groups = attrs.get<int64_t>("groups");
  if (l.groups < 1) fail(fmt::format("expected 'groups' >= 1, got {}", l.groups));
  if (x[1] % l.groups != 0 || wt[0] % l.groups != 0) {
    fail(fmt::format("expected input channels ({}) and output channels ({}) divisible by "
                     "'groups' ({}), got otherwise",
                     x[1], wt[0], l.groups));
  }
  if (wt[1] * l.groups != x[1]) {
    fail(fmt::format("expected weight dim 1 to be {} (input channels / groups), got {}",
                     x[1] / l.groups, wt[1]));
  }
  if (wt[2] < 1 || wt[3] < 1) fail(fmt::format("expected a non-empty kernel, got {}", wt.str()));
  l.cout = wt[0];
  l.cin_per_group = wt[1];
  l.w = window(x, wt[2], wt[3], attrs, false);
  if (shapes.size() > 2 && *shapes[2] != Shape{l.cout}) {
    fail(fmt::format("expected a bias of shape {}, got {}", l.cout, shapes[2]->str()));
  }
  return l;
}

std::vector<const Shape*> shapes_of(const InferArgs& in) {
  std::vector<const Shape*> s;
  for (const TensorType* t : in.operands) s.push_back(&t->shape);
  return s;
}

std::vector<const Shape*> shapes_of(const EvalArgs& in) {
  std::vector<const Shape*> s;
  for (const Tensor* t : in.operands) s.push_back(&t->shape());
  return s;
}

Window pool_window(const Shape& x, const Attrs& attrs) {
  check_nchw(x);
  const IntList& k = pair_attr(attrs, "kernel_size", 2, true);
  return window(x, k[0], k[1], attrs, attrs.get<bool>("ceil_mode"));
}

// Calls f(out_index, n, c, oy, ox) for every output element of a pool.
template <class F>
void for_each_output(int64_t batch, int64_t channels, const Window& w, F f) {
  int64_t o = 0;
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t oy = 0; oy < w.oh; ++oy)
        for (int64_t ox = 0; ox < w.ow; ++ox) f(o++, n, c, oy, ox);
}

} // namespace

TensorType infer_conv2d(const InferArgs& in) {
  const TensorType& x = *in.operands[0];
  activation_of(in.attrs);
  for (size_t i = 1; i < in.operands.size(); ++i) check_same_dtype(x.dtype, in.operands[i]->dtype);
  std::vector<const Shape*> s = shapes_of(in);
  ConvLayout l = conv_layout(s, in.attrs);
  return TensorType{x.dtype, Shape{x.shape[0], l.cout, l.w.oh, l.w.ow}, {}};
}

Tensor eval_conv2d(const EvalArgs& in) {
  const Tensor& x = *in.operands[0];
  const Tensor& wt = *in.operands[1];
  std::vector<const Shape*> s = shapes_of(in);
  ConvLayout l = conv_layout(s, in.attrs);
  const Window& w = l.w;
  int64_t H = x.shape()[2], W = x.shape()[3], C = x.shape()[1];
  int64_t cout_per_group = l.cout / l.groups;
  Tensor out(in.result);
  for_each_output(x.shape()[0], l.cout, w,
                  [&](int64_t o, int64_t n, int64_t co, int64_t oy, int64_t ox) {
                    int64_t g = co / cout_per_group;
                    double acc = in.operands.size() > 2 ? double{(*in.operands[2])[co]} : 0.0;
                    for (int64_t ci = 0; ci < l.cin_per_group; ++ci) {
                      int64_t c = g * l.cin_per_group + ci;
                      for (int64_t ky = 0; ky < w.kh; ++ky) {
                        int64_t y = oy * w.sh - w.pt + ky * w.dh;
                        if (y < 0 || y >= H) continue;
                        for (int64_t kx = 0; kx < w.kw; ++kx) {
                          int64_t xx = ox * w.sw - w.pl + kx * w.dw;
                          if (xx < 0 || xx >= W) continue;
                          double a = x[((n * C + c) * H + y) * W + xx];
                          double b = wt[((co * l.cin_per_group + ci) * w.kh + ky) * w.kw + kx];
                          acc += a * b;
                        }
                      }
                    }
                    out[o] = static_cast<float>(acc);
                  });
  return apply_activation(std::move(out), in.attrs, in.result);
}

TensorType infer_pool2d(const InferArgs& in) {
  const TensorType& x = *in.operands[0];
  Window w = pool_window(x.shape, in.attrs);
  return TensorType{x.dtype, Shape{x.shape[0], x.shape[1], w.oh, w.ow}, {}};
}

Tensor eval_max_pool2d(const EvalArgs& in) {
  const Tensor& x = *in.operands[0];
  Window w = pool_window(x.shape(), in.attrs);
  int64_t C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  Tensor out(in.result);
  for_each_output(x.shape()[0], C, w, [&](int64_t o, int64_t n, int64_t c, int64_t oy, int64_t ox) {
    // Padding never wins: it counts as -infinity.
    float m = -std::numeric_limits<float>::infinity();
    for (int64_t ky = 0; ky < w.kh; ++ky) {
      int64_t y = oy * w.sh - w.pt + ky * w.dh;
      if (y < 0 || y >= H) continue;
      for (int64_t kx = 0; kx < w.kw; ++kx) {
        int64_t xx = ox * w.sw - w.pl + kx * w.dw;
        if (xx < 0 || xx >= W) continue;
        float v = x[((n * C + c) * H + y) * W + xx];
        m = std::isnan(v) || std::isnan(m) ? std::nanf("") : std::max(m, v);
      }
    }
    out[o] = m;
  });
  return out;
}

Tensor eval_avg_pool2d(const EvalArgs& in) {
  const Tensor& x = *in.operands[0];
  Window w = pool_window(x.shape(), in.attrs);
  bool include_pad = in.attrs.get<bool>("count_include_pad");
  int64_t C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
  Tensor out(in.result);
  for_each_output(x.shape()[0], C, w, [&](int64_t o, int64_t n, int64_t c, int64_t oy, int64_t ox) {
    double sum = 0.0;
    int64_t count = 0;
    for (int64_t ky = 0; ky < w.kh; ++ky) {
      int64_t y = oy * w.sh - w.pt + ky * w.dh;
      bool y_in = y >= 0 && y < H, y_padded = y >= -w.pt && y < H + w.pb;
      for (int64_t kx = 0; kx < w.kw; ++kx) {
        int64_t xx = ox * w.sw - w.pl + kx * w.dw;
        bool x_in = xx >= 0 && xx < W, x_padded = xx >= -w.pl && xx < W + w.pr;
        if (y_in && x_in) sum += x[((n * C + c) * H + y) * W + xx];
        // Padding counts when asked to; window positions past the padding never count.
        if ((y_in && x_in) || (include_pad && y_padded && x_padded)) ++count;
      }
    }
    out[o] = static_cast<float>(sum / static_cast<double>(count));
  });
  return out;
}

} // namespace tilesat::ops
