// conv.cpp: 2-D convolution and pooling over NCHW tensors (batch, channels, height, width) or
// flattened NHWC ones ([1, 1, N*H*W, C]; conv2d in any dim layout), with strides, padding
// [top, left, bottom, right], dilation and, for conv2d, groups.
#include "ops/exact_gemm.h"
#include "ops/op_impl.h"
#include "tilesat/graph/conv_attrs.h"
#include "tilesat/graph/window.h"

#include <algorithm>
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

// The window over an input of extents `h` x `w` (tilesat/graph/conv_attrs.h).
Window window(int64_t h, int64_t w_in, int64_t kh, int64_t kw, const Attrs& attrs, bool ceil_mode) {
  Window2d g = window2d(attrs);
  Window w;
  w.kh = kh;
  w.kw = kw;
  w.sh = g.stride_h;
  w.sw = g.stride_w;
  w.pt = g.pad_top;
  w.pl = g.pad_left;
  w.pb = g.pad_bottom;
  w.pr = g.pad_right;
  w.dh = g.dilation_h;
  w.dw = g.dilation_w;
  w.oh = out_extent(h, kh, w.sh, w.pt, w.pb, w.dh, ceil_mode, "height");
  w.ow = out_extent(w_in, kw, w.sw, w.pl, w.pr, w.dw, ceil_mode, "width");
  return w;
}

void check_nchw(const Shape& x) {
  if (x.rank() != 4) fail(fmt::format("expected an NCHW operand of rank 4, got rank {}", x.rank()));
}

// The 4-D input a conv or pool sees: `x` itself, or the NHWC image a flattened input
// [1, 1, N*H*W, C] holds (the same elements in the same order).
Shape image_of(const Shape& x, const FlatImage& f) {
  if (!f.active()) {
    check_nchw(x);
    return x;
  }
  if (x.rank() != 4 || x[0] != 1 || x[1] != 1 || x[2] != f.pixels()) {
    fail(fmt::format("expected a flattened NHWC input [1, 1, {}, C] (batch_size {} x "
                     "input_height {} x input_width {}), got {}",
                     f.pixels(), f.batch, f.height, f.width, x.str()));
  }
  return f.nhwc(x[3]);
}

// A 4-D result in its image layout, flattened when the input was.
Shape flatten_result(const Shape& image, const FlatImage& f) {
  if (!f.active()) return image;
  return Shape{1, 1, image[0] * image[1] * image[2], image[3]};
}

struct ConvLayout {
  Window w;
  ConvDims dims;
  FlatImage flat;
  int64_t groups = 1;
  int64_t batch = 0, cin = 0, h = 0, wd = 0; // input extents
  int64_t cout = 0, cin_per_group = 0;
  // The result shape: the input's layout with cout channels and the window's extents.
  Shape result() const { return flatten_result(image_result(), flat); }
  // The result as a 4-D image in the input's layout.
  Shape image_result() const {
    std::vector<int64_t> r(4);
    r[static_cast<size_t>(dims.batch)] = batch;
    r[static_cast<size_t>(dims.channel)] = cout;
    r[static_cast<size_t>(dims.height)] = w.oh;
    r[static_cast<size_t>(dims.width)] = w.ow;
    return Shape(r);
  }
};

// Whether `b` is a valid conv2d bias for `cout` channels in layout `d`: [cout], 1x1x1xcout
// (tt-mlir's form) or cout at the channel dim and 1 elsewhere.
bool valid_bias(const Shape& b, int64_t cout, const ConvDims& d) {
  if (b == Shape{cout}) return true;
  if (b.rank() != 4) return false;
  auto ones_but = [&](int64_t at) {
    for (int64_t i = 0; i < 4; ++i) {
      if (b[i] != (i == at ? cout : 1)) return false;
    }
    return true;
  };
  return ones_but(3) || ones_but(d.channel);
}

ConvLayout conv_layout(std::span<const Shape* const> shapes, const Attrs& attrs) {
  FlatImage flat = flat_image(attrs);
  const Shape xs = image_of(*shapes[0], flat);
  const Shape& wt = *shapes[1];
  ConvDims dims = conv_dims(attrs);
  if (flat.active() &&
      !(dims.batch == 0 && dims.height == 1 && dims.width == 2 && dims.channel == 3))
    fail("expected the default NHWC dims (batch_dim 0, height_dim 1, width_dim 2, channel_dim 3) "
         "with a flattened input");
  // The input's extents in NCHW order.
  std::array<int64_t, 4> order = dims.nchw_order();
  Shape x{xs[order[0]], xs[order[1]], xs[order[2]], xs[order[3]]};
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
  l.dims = dims;
  l.flat = flat;
  l.batch = x[0];
  l.cin = x[1];
  l.h = x[2];
  l.wd = x[3];
  l.cout = wt[0];
  l.cin_per_group = wt[1];
  l.w = window(x[2], x[3], wt[2], wt[3], attrs, false);
  if (shapes.size() > 2 && !valid_bias(*shapes[2], l.cout, dims)) {
    std::vector<int64_t> at_channel(4, 1);
    at_channel[static_cast<size_t>(dims.channel)] = l.cout;
    std::string forms = fmt::format("{} or 1x1x1x{}", l.cout, l.cout);
    if (dims.channel != 3)
      forms = fmt::format("{}, 1x1x1x{} or {}", l.cout, l.cout, Shape(at_channel).str());
    fail(fmt::format("expected a bias of shape {}, got {}", forms, shapes[2]->str()));
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

// A pool's window and the element strides of its input and result along N, C, H, W: NCHW, or
// NHWC for a flattened input.
struct PoolLayout {
  Window w;
  int64_t batch = 0, c = 0, h = 0, wd = 0;
  int64_t xn = 0, xc = 0, xh = 0, xw = 0; // input strides
  int64_t on = 0, oc = 0, oh = 0, ow = 0; // result strides
  Shape result;
};

Window pool_window(const Shape& x, const Attrs& attrs) {
  const IntList& k = attrs.get<IntList>("kernel_size");
  bool ok = k.size() == 2;
  for (int64_t v : k) ok = ok && v >= 1 && v <= (int64_t{1} << 20);
  if (!ok) {
    fail(fmt::format("expected 'kernel_size' to hold 2 positive values up to 2^20, got {}",
                     list_str(k)));
  }
  return window(x[2], x[3], k[0], k[1], attrs, attrs.get<bool>("ceil_mode"));
}

PoolLayout pool_layout(const Shape& xs, const Attrs& attrs) {
  FlatImage flat = flat_image(attrs);
  Shape image = image_of(xs, flat);
  PoolLayout p;
  if (!flat.active()) {
    p.w = pool_window(image, attrs);
    p.batch = image[0], p.c = image[1], p.h = image[2], p.wd = image[3];
    p.xn = p.c * p.h * p.wd, p.xc = p.h * p.wd, p.xh = p.wd, p.xw = 1;
    p.on = p.c * p.w.oh * p.w.ow, p.oc = p.w.oh * p.w.ow, p.oh = p.w.ow, p.ow = 1;
    p.result = Shape{p.batch, p.c, p.w.oh, p.w.ow};
    return p;
  }
  // NHWC: the window slides over dims 1 and 2.
  p.batch = image[0], p.h = image[1], p.wd = image[2], p.c = image[3];
  p.w = pool_window(Shape{p.batch, p.c, p.h, p.wd}, attrs);
  p.xn = p.h * p.wd * p.c, p.xh = p.wd * p.c, p.xw = p.c, p.xc = 1;
  p.on = p.w.oh * p.w.ow * p.c, p.oh = p.w.ow * p.c, p.ow = p.c, p.oc = 1;
  p.result = flatten_result(Shape{p.batch, p.w.oh, p.w.ow, p.c}, flat);
  return p;
}

// Calls f(n, c, oy, ox) for every output element of a conv or pool.
template <class F>
void for_each_output(int64_t batch, int64_t channels, const Window& w, F f) {
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t oy = 0; oy < w.oh; ++oy)
        for (int64_t ox = 0; ox < w.ow; ++ox) f(n, c, oy, ox);
}

// Calls f(ky, kx, y, x) for each tap of the window at output (oy, ox) that falls inside an
// h x wd input (padding taps are skipped), in (ky, kx) order.
template <class F>
void for_each_tap_inside(const Window& w, int64_t h, int64_t wd, int64_t oy, int64_t ox, F f) {
  for (int64_t ky = 0; ky < w.kh; ++ky) {
    int64_t y = oy * w.sh - w.pt + ky * w.dh;
    if (y < 0 || y >= h) continue;
    for (int64_t kx = 0; kx < w.kw; ++kx) {
      int64_t xx = ox * w.sw - w.pl + kx * w.dw;
      if (xx >= 0 && xx < wd) f(ky, kx, y, xx);
    }
  }
}

} // namespace

TensorType infer_conv2d(const InferArgs& in) {
  const TensorType& x = *in.operands[0];
  activation_of(in.attrs);
  for (size_t i = 1; i < in.operands.size(); ++i) check_same_dtype(x.dtype, in.operands[i]->dtype);
  std::vector<const Shape*> s = shapes_of(in);
  ConvLayout l = conv_layout(s, in.attrs);
  return TensorType{x.dtype, l.result(), {}};
}

Tensor eval_conv2d(const EvalArgs& in) {
  const Tensor& x = *in.operands[0];
  const Tensor& wt = *in.operands[1];
  std::vector<const Shape*> s = shapes_of(in);
  ConvLayout l = conv_layout(s, in.attrs);
  const Window& w = l.w;
  // Element strides of the input and the result along N, C, H, W whatever their layout.
  std::array<int64_t, 4> order = l.dims.nchw_order();
  std::vector<int64_t> xs = image_of(x.shape(), l.flat).strides(), os = l.image_result().strides();
  auto at = [&](const std::vector<int64_t>& st, size_t i) {
    return st[static_cast<size_t>(order[i])];
  };
  int64_t xn = at(xs, 0), xc = at(xs, 1), xh = at(xs, 2), xw = at(xs, 3);
  int64_t on = at(os, 0), oc = at(os, 1), oh = at(os, 2), ow = at(os, 3);
  const int64_t cout_per_group = l.cout / l.groups;
  const int64_t taps = l.cin_per_group * w.kh * w.kw;
  std::vector<double> bias(static_cast<size_t>(l.cout), 0.0);
  if (in.operands.size() > 2)
    for (int64_t co = 0; co < l.cout; ++co) bias[static_cast<size_t>(co)] = (*in.operands[2])[co];
  Tensor out(in.result);
  // A weight that is not finite would turn a padding tap's 0 into NaN where the plain loop
  // skips the tap: such convolutions take that loop.
  if (!std::all_of(wt.data().begin(), wt.data().end(), [](float v) { return std::isfinite(v); })) {
    for_each_output(l.batch, l.cout, w, [&](int64_t n, int64_t co, int64_t oy, int64_t ox) {
      int64_t g = co / cout_per_group;
      double acc = bias[static_cast<size_t>(co)];
      for (int64_t ci = 0; ci < l.cin_per_group; ++ci) {
        int64_t c = g * l.cin_per_group + ci;
        for_each_tap_inside(
            w, l.h, l.wd, oy, ox, [&](int64_t ky, int64_t kx, int64_t y, int64_t xx) {
              acc += double{x[n * xn + c * xc + y * xh + xx * xw]} *
                     double{wt[((co * l.cin_per_group + ci) * w.kh + ky) * w.kw + kx]};
            });
      }
      out[n * on + co * oc + oy * oh + ox * ow] = static_cast<float>(acc);
    });
    return apply_activation(std::move(out), in.attrs, in.result);
  }
  // Otherwise as a matrix product per image, group and run of output positions: the weights
  // (cout / groups x taps, taps in (ci, ky, kx) order) times the taps each position reads
  // (padding as 0, which adds nothing: at most a zero's sign can differ), summed in the plain
  // loop's order (exact_gemm.h).
  constexpr int64_t kPositions = 256;
  const int64_t positions = w.oh * w.ow;
  std::vector<float> cols(static_cast<size_t>(taps * std::min(kPositions, positions)));
  std::vector<float> res(static_cast<size_t>(cout_per_group * std::min(kPositions, positions)));
  for (int64_t n = 0; n < l.batch; ++n)
    for (int64_t g = 0; g < l.groups; ++g)
      for (int64_t q0 = 0; q0 < positions; q0 += kPositions) {
        const int64_t pc = std::min(kPositions, positions - q0);
        for (int64_t ci = 0; ci < l.cin_per_group; ++ci) {
          const int64_t c = g * l.cin_per_group + ci;
          for (int64_t ky = 0; ky < w.kh; ++ky)
            for (int64_t kx = 0; kx < w.kw; ++kx) {
              float* row = cols.data() + ((ci * w.kh + ky) * w.kw + kx) * pc;
              for (int64_t j = 0, oy = q0 / w.ow, ox = q0 % w.ow; j < pc; ++j) {
                const int64_t y = oy * w.sh - w.pt + ky * w.dh;
                const int64_t xx = ox * w.sw - w.pl + kx * w.dw;
                const bool inside = y >= 0 && y < l.h && xx >= 0 && xx < l.wd;
                row[j] = inside ? x[n * xn + c * xc + y * xh + xx * xw] : 0.0f;
                if (++ox == w.ow) ox = 0, ++oy;
              }
            }
        }
        const int64_t co0 = g * cout_per_group;
        exact_gemm({cout_per_group, pc, taps}, {wt.data().data() + co0 * taps, taps, 1},
                   {cols.data(), pc, 1}, bias.data() + co0, {res.data(), pc, 1});
        for (int64_t co = 0; co < cout_per_group; ++co)
          for (int64_t j = 0, oy = q0 / w.ow, ox = q0 % w.ow; j < pc; ++j) {
            out[n * on + (co0 + co) * oc + oy * oh + ox * ow] =
                res[static_cast<size_t>(co * pc + j)];
            if (++ox == w.ow) ox = 0, ++oy;
          }
      }
  return apply_activation(std::move(out), in.attrs, in.result);
}

TensorType infer_pool2d(const InferArgs& in) {
  const TensorType& x = *in.operands[0];
  return TensorType{x.dtype, pool_layout(x.shape, in.attrs).result, {}};
}

Tensor eval_max_pool2d(const EvalArgs& in) {
  const Tensor& x = *in.operands[0];
  PoolLayout p = pool_layout(x.shape(), in.attrs);
  const Window& w = p.w;
  Tensor out(in.result);
  for_each_output(p.batch, p.c, w, [&](int64_t n, int64_t c, int64_t oy, int64_t ox) {
    // Padding never wins: it counts as -infinity.
    float m = -std::numeric_limits<float>::infinity();
    for_each_tap_inside(w, p.h, p.wd, oy, ox, [&](int64_t, int64_t, int64_t y, int64_t xx) {
      float v = x[n * p.xn + c * p.xc + y * p.xh + xx * p.xw];
      m = std::isnan(v) || std::isnan(m) ? std::nanf("") : std::max(m, v);
    });
    out[n * p.on + c * p.oc + oy * p.oh + ox * p.ow] = m;
  });
  return out;
}

Tensor eval_avg_pool2d(const EvalArgs& in) {
  const Tensor& x = *in.operands[0];
  PoolLayout p = pool_layout(x.shape(), in.attrs);
  const Window& w = p.w;
  bool include_pad = in.attrs.get<bool>("count_include_pad");
  Tensor out(in.result);
  for_each_output(p.batch, p.c, w, [&](int64_t n, int64_t c, int64_t oy, int64_t ox) {
    double sum = 0.0;
    int64_t count = 0;
    for (int64_t ky = 0; ky < w.kh; ++ky) {
      int64_t y = oy * w.sh - w.pt + ky * w.dh;
      bool y_in = y >= 0 && y < p.h, y_padded = y >= -w.pt && y < p.h + w.pb;
      for (int64_t kx = 0; kx < w.kw; ++kx) {
        int64_t xx = ox * w.sw - w.pl + kx * w.dw;
        bool x_in = xx >= 0 && xx < p.wd, x_padded = xx >= -w.pl && xx < p.wd + w.pr;
        if (y_in && x_in) sum += x[n * p.xn + c * p.xc + y * p.xh + xx * p.xw];
        // Padding counts when asked to; window positions past the padding never count.
        if ((y_in && x_in) || (include_pad && y_padded && x_padded)) ++count;
      }
    }
    out[n * p.on + c * p.oc + oy * p.oh + ox * p.ow] =
        static_cast<float>(sum / static_cast<double>(count));
  });
  return out;
}

} // namespace tilesat::ops
