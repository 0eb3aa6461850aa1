// volume.cpp: 3-D convolution and pooling (video models such as R3D and S3D) from the graph's
// 2-D ops. The depth dim is moved beside the batch, [N, C, D, H, W] -> [N, D, C, H, W]; the
// frames each depth tap reads are a strided slice of it, folded into the batch for a 2-D op;
// the taps' results combine (a sum for a convolution, a max or mean for pooling) and the depth
// moves back. Depth padding is frames of zeros (convolution, average) or of -inf (max).
#include "converters.h"

#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace tilesat::onnx {
namespace {

const std::vector<int64_t> kDepthBesideBatch = {0, 2, 1, 3, 4};

// Output extent of one windowed dim (ceil_mode rounds up, as ONNX's pools do, except that a
// window starting in the end padding is dropped).
int64_t out_extent(int64_t in, int64_t k, int64_t s, int64_t dil, int64_t pb, int64_t pe,
                   bool ceil_mode) {
  int64_t span = in + pb + pe - dil * (k - 1) - 1;
  if (span < 0)
    throw Error(fmt::format("expected the depth window ({} taps, dilation {}) to fit the padded "
                            "depth {}",
                            k, dil, in + pb + pe));
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + pb) --out;
  return out;
}

// [N, D, ...] with `before` and `after` frames of `fill` added along dim 1.
Value pad_frames(Builder& b, Value x, int64_t before, int64_t after, double fill) {
  if (before <= 0 && after <= 0) return x;
  TensorType t = b.type(x);
  std::vector<Value> parts;
  auto frames = [&](int64_t n) {
    std::vector<int64_t> dims = t.shape.dims();
    dims[1] = n;
    return b.full(Shape(dims), fill, t.dtype);
  };
  if (before > 0) parts.push_back(frames(before));
  parts.push_back(x);
  if (after > 0) parts.push_back(frames(after));
  return b.concat(parts, 1);
}

// The `count` frames tap `tap` reads from padded [N, D, ...]: from tap * dilation, every
// stride-th.
Value tap_frames(Builder& b, Value x, const ConvWindow& w, int64_t tap, int64_t count) {
  std::vector<int64_t> dims = b.type(x).shape.dims();
  std::vector<int64_t> begin(dims.size(), 0), end = dims, step(dims.size(), 1);
  begin[1] = tap * w.dilation[0];
  end[1] = begin[1] + (count - 1) * w.stride[0] + 1;
  step[1] = w.stride[0];
  return b.slice(x, begin, end, w.stride[0] == 1 ? std::vector<int64_t>{} : step);
}

// [N, D, C, H, W] as [N * D, C, H, W] and back.
Value frames_as_batch(Builder& b, Value x) {
  Shape s = b.type(x).shape;
  return b.reshape(x, {s[0] * s[1], s[2], s[3], s[4]});
}
Value batch_as_frames(Builder& b, Value x, int64_t n) {
  Shape s = b.type(x).shape;
  return b.reshape(x, {n, s[0] / n, s[1], s[2], s[3]});
}

// The height and width part of a 3-D window.
ConvWindow spatial_part(const ConvWindow& w) {
  auto tail = [](const std::vector<int64_t>& v) {
    return std::vector<int64_t>(v.begin() + 1, v.end());
  };
  return ConvWindow{tail(w.kernel), tail(w.stride), tail(w.dilation), tail(w.pad_begin),
                    tail(w.pad_end)};
}

} // namespace

Value conv3d_as_2d(Builder& b, Value x, Value weight, const Value* bias, const ConvWindow& w,
                   int64_t groups) {
  Shape s = b.type(x).shape, ws = b.type(weight).shape;
  if (s.rank() != 5 || ws.rank() != 5)
    throw Error(
        fmt::format("expected a rank-5 input and weight, got {} and {}", s.rank(), ws.rank()));
  const int64_t n = s[0], taps = ws[2];
  int64_t depth =
      out_extent(s[2], taps, w.stride[0], w.dilation[0], w.pad_begin[0], w.pad_end[0], false);
  Value frames = pad_frames(b, b.permute(x, kDepthBesideBatch), w.pad_begin[0], w.pad_end[0], 0);
  ConvWindow hw = spatial_part(w);
  Conv2dOptions o{hw.stride, hw.padding_2d(), hw.dilation, groups, ""};
  std::optional<Value> sum;
  for (int64_t tap = 0; tap < taps; ++tap) {
    Value wt = b.reshape(b.slice(weight, {0, 0, tap, 0, 0}, {ws[0], ws[1], tap + 1, ws[3], ws[4]}),
                         {ws[0], ws[1], ws[3], ws[4]});
    Value in = frames_as_batch(b, tap_frames(b, frames, w, tap, depth));
    Value y = bias && tap == 0 ? b.conv2d(in, wt, *bias, o) : b.conv2d(in, wt, o);
    sum = sum ? b.add(*sum, y) : y;
  }
  return b.permute(batch_as_frames(b, *sum, n), kDepthBesideBatch);
}

Value pool3d_as_2d(Builder& b, Value x, const ConvWindow& w, bool is_max, bool ceil_mode,
                   bool count_include_pad) {
  Shape s = b.type(x).shape;
  if (s.rank() != 5) throw Error(fmt::format("expected a rank-5 input, got {}", s.rank()));
  const int64_t n = s[0], taps = w.kernel[0];
  int64_t depth =
      out_extent(s[2], taps, w.stride[0], w.dilation[0], w.pad_begin[0], w.pad_end[0], ceil_mode);
  Value flat = frames_as_batch(b, b.permute(x, kDepthBesideBatch));
  Value pooled =
      batch_as_frames(b, pool2d(b, flat, spatial_part(w), is_max, ceil_mode, count_include_pad), n);
  // Frames past the padded end that a ceil_mode window reaches count as padding too.
  int64_t reach = (depth - 1) * w.stride[0] + w.dilation[0] * (taps - 1) + 1;
  int64_t after = std::max<int64_t>(reach - s[2] - w.pad_begin[0], 0);
  double fill = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
  Value frames = pad_frames(b, pooled, w.pad_begin[0], after, fill);
  std::optional<Value> acc;
  for (int64_t tap = 0; tap < taps; ++tap) {
    Value f = tap_frames(b, frames, w, tap, depth);
    acc = !acc ? f : is_max ? b.maximum(*acc, f) : b.add(*acc, f);
  }
  Value y = *acc;
  if (!is_max) {
    // Each output frame's divisor: every tap with count_include_pad, else the taps landing in
    // the input.
    std::vector<double> count(static_cast<size_t>(depth));
    for (int64_t t = 0; t < depth; ++t) {
      int64_t inside = 0;
      for (int64_t tap = 0; tap < taps; ++tap) {
        int64_t z = t * w.stride[0] + tap * w.dilation[0] - w.pad_begin[0];
        inside += z >= 0 && z < s[2] ? 1 : 0;
      }
      count[static_cast<size_t>(t)] =
          1.0 / static_cast<double>(count_include_pad ? taps : std::max<int64_t>(inside, 1));
    }
    TensorType t = b.type(y);
    y = b.multiply(y, b.constant(Shape{1, depth, 1, 1, 1}, std::move(count), t.dtype));
  }
  return b.permute(y, kDepthBesideBatch);
}

} // namespace tilesat::onnx
