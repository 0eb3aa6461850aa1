// conv.cpp: conv2d and the 2-D pools over NCHW tensors, one output tile (a 32x32 block of one
// output channel's plane) at a time, or over flattened NHWC images ([1, 1, N*H*W, C]: a tile
// is 32 pixels by 32 channels). Conv2d accumulates, for every input channel of the group
// and kernel tap, a weight times a contiguous run of input row into a row of the tile; strided
// convolutions read their input through a copy split into stride phases, so every inner loop
// is contiguous. Formulas follow the reference interpreter (graph/src/ops/conv.cpp).
#include "kernel.h"
#include "tilesat/graph/window.h"

#include <cmath>
#include <limits>

namespace tilesat::runtime::detail {
namespace {

using program::kTile;

// The window of the op and the input it slides over.
struct Geometry {
  int64_t n = 1, c = 1, h = 1, w = 1; // input
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, pt = 0, pl = 0, dh = 1, dw = 1;
  int64_t oc = 1, oh = 1, ow = 1; // output channels and extents

  Geometry(const fb::Window2d& win, const std::vector<int64_t>& in, const std::vector<int64_t>& out)
      : n(in[0]), c(in[1]), h(in[2]), w(in[3]), kh(win.kernel_h()), kw(win.kernel_w()),
        sh(win.stride_h()), sw(win.stride_w()), pt(win.pad_top()), pl(win.pad_left()),
        dh(win.dilation_h()), dw(win.dilation_w()), oc(out[1]), oh(out[2]), ow(out[3]) {}
};

// The geometry of a flattened NHWC image of `channels` channels with `out_channels` in the
// result (the verifier checked the window fits).
Geometry flat_geometry(const fb::Window2d& win, const fb::FlatImage& f, int64_t channels,
                       int64_t out_channels, bool ceil_mode) {
  int64_t h = f.height(), w = f.width();
  int64_t oh = window_extent(h, win.kernel_h(), win.stride_h(), win.pad_top(), win.pad_bottom(),
                             win.dilation_h(), ceil_mode)
                   .value_or(0);
  int64_t ow = window_extent(w, win.kernel_w(), win.stride_w(), win.pad_left(), win.pad_right(),
                             win.dilation_w(), ceil_mode)
                   .value_or(0);
  return Geometry(win, {int64_t{f.batch()}, channels, h, w},
                  {int64_t{f.batch()}, out_channels, oh, ow});
}

// The output columns [lo, hi) of a tile whose tap lands inside the input, and where the run
// starts in the phase-split input rows.
struct ColumnRun {
  int64_t lo = 0, hi = 0;
  int64_t phase = 0, start = 0;
};

// For output columns ox0 + [0, count) and tap offset `off` (ox * stride - pad + tap * dilation).
ColumnRun column_run(int64_t ox0, int64_t count, int64_t off, int64_t stride, int64_t in) {
  ColumnRun run;
  int64_t first = ox0 * stride + off; // input column of output column ox0
  // Smallest i with first + i * stride >= 0, and one past the largest with < in.
  run.lo = first >= 0 ? 0 : (-first + stride - 1) / stride;
  run.hi = first >= in ? 0 : std::min(count, (in - 1 - first) / stride + 1);
  if (run.lo >= run.hi) {
    run.lo = run.hi = 0;
    return run;
  }
  int64_t x = first + run.lo * stride;
  run.phase = x % stride;
  run.start = x / stride;
  return run;
}

// The input with each row split into `stride` phases: element (plane, y, x) at
// ((plane * h + y) * stride + x % stride) * width + x / stride.
struct PhasedInput {
  std::vector<float> data;
  int64_t stride = 1, width = 1;

  PhasedInput(std::vector<float> in, int64_t planes, int64_t h, int64_t w, int64_t s)
      : stride(s), width((w + s - 1) / s) {
    if (s == 1) {
      data = std::move(in);
      width = w;
      return;
    }
    data.assign(static_cast<size_t>(planes * h * s * width), 0.0f);
    for (int64_t row = 0; row < planes * h; ++row)
      for (int64_t x = 0; x < w; ++x)
        data[static_cast<size_t>((row * s + x % s) * width + x / s)] =
            in[static_cast<size_t>(row * w + x)];
  }
  const float* row(int64_t plane_row, int64_t phase) const {
    return data.data() + (plane_row * stride + phase) * width;
  }
};

} // namespace

namespace {

// A flattened NHWC conv: each output tile is 32 pixels by 32 output channels. The weight is
// read as [KH][KW][I / groups][O], so with one group the innermost loop runs over contiguous
// output channels of the weight row times one input element.
void run_conv2d_flat(OpContext& ctx, const fb::Conv2d& p) {
  const std::vector<int64_t>& ws = ctx.inputs[1].shape;
  Geometry g = flat_geometry(*p.window(), *p.flat(), ctx.inputs[0].shape[3], ws[0], false);
  const std::vector<float> x = read_logical(ctx.memory, ctx.inputs[0]);
  const std::vector<float> wt = read_logical(ctx.memory, ctx.inputs[1]);
  std::vector<float> bias;
  if (p.has_bias()) bias = read_logical(ctx.memory, ctx.inputs[2]);
  int64_t groups = p.groups(), cin = g.c / groups, cout = g.oc / groups;
  std::vector<float> wr(wt.size());
  for (int64_t co = 0; co < g.oc; ++co)
    for (int64_t ci = 0; ci < cin; ++ci)
      for (int64_t t = 0; t < g.kh * g.kw; ++t)
        wr[static_cast<size_t>((t * cin + ci) * g.oc + co)] =
            wt[static_cast<size_t>((co * cin + ci) * g.kh * g.kw + t)];
  bool act = p.has_activation();
  fb::UnaryKind activation = p.activation();
  const int64_t pixels = g.n * g.oh * g.ow;
  ctx.for_each_tile([&](int64_t, int64_t tr, int64_t tc, float* tile) {
    int64_t p0 = tr * kTile, co0 = tc * kTile;
    int64_t rows = std::min(kTile, pixels - p0), cols = std::min(kTile, g.oc - co0);
    alignas(64) float acc[kTile * kTile] = {};
    for (int64_t r = 0; r < rows; ++r) {
      int64_t pix = p0 + r, ox = pix % g.ow, oy = pix / g.ow % g.oh, n = pix / (g.ow * g.oh);
      float* out = acc + r * kTile;
      for (int64_t ky = 0; ky < g.kh; ++ky) {
        int64_t y = oy * g.sh - g.pt + ky * g.dh;
        if (y < 0 || y >= g.h) continue;
        for (int64_t kx = 0; kx < g.kw; ++kx) {
          int64_t xx = ox * g.sw - g.pl + kx * g.dw;
          if (xx < 0 || xx >= g.w) continue;
          const float* src = x.data() + ((n * g.h + y) * g.w + xx) * g.c;
          const float* wtap = wr.data() + (ky * g.kw + kx) * cin * g.oc + co0;
          for (int64_t ci = 0; ci < cin; ++ci) {
            const float* wrow = wtap + ci * g.oc;
            if (groups == 1) {
              float xv = src[ci];
              for (int64_t c = 0; c < cols; ++c) out[c] += xv * wrow[c];
            } else {
              for (int64_t c = 0; c < cols; ++c)
                out[c] += src[(co0 + c) / cout * cin + ci] * wrow[c];
            }
          }
        }
      }
    }
    std::memset(tile, 0, 4096);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        float val = acc[r * kTile + c] + (p.has_bias() ? bias[static_cast<size_t>(co0 + c)] : 0.0f);
        tile[program::face_offset(r, c)] = act ? apply_unary(activation, val) : val;
      }
  });
}

} // namespace

void run_conv2d(OpContext& ctx) {
  const fb::Conv2d& p = *ctx.op.params_as_Conv2d();
  if (p.flat() != nullptr) return run_conv2d_flat(ctx, p);
  Geometry g(*p.window(), ctx.inputs[0].shape, ctx.output.shape);
  const std::vector<float> wt = read_logical(ctx.memory, ctx.inputs[1]);
  std::vector<float> bias;
  if (p.has_bias()) bias = read_logical(ctx.memory, ctx.inputs[2]);
  PhasedInput x(read_logical(ctx.memory, ctx.inputs[0]), g.n * g.c, g.h, g.w, g.sw);
  int64_t groups = p.groups(), cin = g.c / groups, cout = g.oc / groups;
  bool act = p.has_activation();
  fb::UnaryKind activation = p.activation();
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    int64_t n = b / g.oc, co = b % g.oc, grp = co / cout;
    int64_t oy0 = tr * kTile, ox0 = tc * kTile;
    int64_t rows = std::min(kTile, g.oh - oy0), cols = std::min(kTile, g.ow - ox0);
    std::vector<ColumnRun> runs(static_cast<size_t>(g.kw));
    for (int64_t kx = 0; kx < g.kw; ++kx)
      runs[static_cast<size_t>(kx)] = column_run(ox0, cols, kx * g.dw - g.pl, g.sw, g.w);
    alignas(64) float acc[kTile * kTile] = {};
    for (int64_t ci = 0; ci < cin; ++ci) {
      int64_t plane = n * g.c + grp * cin + ci;
      const float* wk = wt.data() + ((co * cin + ci) * g.kh) * g.kw;
      for (int64_t ky = 0; ky < g.kh; ++ky) {
        for (int64_t r = 0; r < rows; ++r) {
          int64_t y = (oy0 + r) * g.sh - g.pt + ky * g.dh;
          if (y < 0 || y >= g.h) continue;
          float* out_row = acc + r * kTile;
          for (int64_t kx = 0; kx < g.kw; ++kx) {
            const ColumnRun& run = runs[static_cast<size_t>(kx)];
            float wv = wk[ky * g.kw + kx];
            const float* src = x.row(plane * g.h + y, run.phase) + run.start;
            float* dst = out_row + run.lo;
            for (int64_t i = 0; i < run.hi - run.lo; ++i) dst[i] += wv * src[i];
          }
        }
      }
    }
    std::memset(tile, 0, 4096);
    float b0 = p.has_bias() ? bias[static_cast<size_t>(co)] : 0.0f;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        float val = acc[r * kTile + c] + b0;
        tile[program::face_offset(r, c)] = act ? apply_unary(activation, val) : val;
      }
  });
}

void run_pool2d(OpContext& ctx) {
  const fb::Pool2d& p = *ctx.op.params_as_Pool2d();
  const fb::FlatImage* flat = p.flat();
  const std::vector<int64_t>& xs = ctx.inputs[0].shape;
  Geometry g = flat != nullptr ? flat_geometry(*p.window(), *flat, xs[3], xs[3], p.ceil_mode())
                               : Geometry(*p.window(), xs, ctx.output.shape);
  std::vector<float> in = read_logical(ctx.memory, ctx.inputs[0]);
  bool is_max = p.kind() == fb::PoolKind::Max, include_pad = p.count_include_pad();
  int64_t pb = p.window()->pad_bottom(), pr = p.window()->pad_right();
  // Element strides of the input's rows and columns: NCHW planes or NHWC pixels.
  const int64_t row_stride = flat != nullptr ? g.w * g.c : g.w, col_stride = flat ? g.c : 1;
  const program::TileView& v = ctx.output.view;
  ctx.for_each_tile([&](int64_t b, int64_t tr, int64_t tc, float* tile) {
    fill_elements(v, b, tr, tc, tile, [&](int64_t f) {
      // The (n, c) plane's first element and the output pixel of logical element f.
      int64_t oy = 0, ox = 0;
      const float* plane = nullptr;
      if (flat != nullptr) {
        int64_t pix = f / g.c;
        oy = pix / g.ow % g.oh, ox = pix % g.ow;
        plane = in.data() + pix / (g.ow * g.oh) * g.h * g.w * g.c + f % g.c;
      } else {
        oy = f / g.ow % g.oh, ox = f % g.ow;
        plane = in.data() + b * g.h * g.w; // b indexes (n, c) planes, as the input's
      }
      float m = -std::numeric_limits<float>::infinity();
      double sum = 0.0;
      int64_t count = 0;
      for (int64_t ky = 0; ky < g.kh; ++ky) {
        int64_t y = oy * g.sh - g.pt + ky * g.dh;
        bool y_in = y >= 0 && y < g.h, y_padded = y >= -g.pt && y < g.h + pb;
        for (int64_t kx = 0; kx < g.kw; ++kx) {
          int64_t xx = ox * g.sw - g.pl + kx * g.dw;
          bool x_in = xx >= 0 && xx < g.w, x_padded = xx >= -g.pl && xx < g.w + pr;
          if (y_in && x_in) {
            float val = plane[y * row_stride + xx * col_stride];
            // Padding never wins; NaN propagates.
            m = std::isnan(val) || std::isnan(m) ? std::nanf("") : std::max(m, val);
            sum += val;
          }
          if ((y_in && x_in) || (include_pad && y_padded && x_padded)) ++count;
        }
      }
      return is_max ? m : static_cast<float>(sum / static_cast<double>(count));
    });
  });
}

} // namespace tilesat::runtime::detail
