// unpool.cpp: where max pooling found each maximum, and its inverse: MaxPool's Indices output
// and MaxUnpool (SegNet-style decoders put each pooled value back where it came from).
//
// Indices are flat positions in the whole [N, C, H, W] tensor, computed in f32 (exact below
// 2^24 elements). MaxPool's: per window tap, the input's strided view beside the pooled
// maximum, the first tap (row-major over the window) that equals it winning. MaxUnpool's
// placement: when the indices come from a MaxPool whose windows tile the output (stride =
// kernel, no padding or dilation), each window's taps are compared with the index and laid
// out side by side; otherwise a one-hot scatter over each plane (values landing on one place
// averaged: from max pooling they are equal), whose intermediate has H * W x OH * OW elements
// per plane.
#include "converters.h"

#include <fmt/format.h>
#include <limits>

namespace tilesat::onnx {
namespace {

constexpr int64_t kExactInF32 = int64_t{1} << 24;

Value f32(Builder& b, double v) {
  return b.scalar(v, DType::F32);
}

// (n * C + c) * plane for every [n, c] of an [N, C, ...] tensor of rank 4: [N, C, 1, 1] in f32.
Value plane_base(Builder& b, int64_t n, int64_t c, int64_t plane) {
  Value n_index = iota(b, n, 0, 4, DType::F32);
  Value channels = f32(b, static_cast<double>(c));
  Value n_base = b.multiply(n_index, channels);
  Value nc = b.add(n_base, iota(b, c, 1, 4, DType::F32));
  return b.multiply(nc, f32(b, static_cast<double>(plane)));
}

// `x` [N, C, H, W] padded with `fill` to [N, C, H + top + bottom, W + left + right].
Value padded(Builder& b, Value x, int64_t top, int64_t bottom, int64_t left, int64_t right,
             double fill) {
  return pad_constant(b, pad_constant(b, x, 3, left, right, fill), 2, top, bottom, fill);
}

} // namespace

Value max_pool_indices(NodeContext& c, Value x, Value y, const ConvWindow& w, bool column_major) {
  Builder& b = c.builder();
  const Shape xs = b.type(x).shape, ys = b.type(y).shape;
  if (xs.numel() > kExactInF32)
    c.fail(fmt::format("expected at most 2^24 input elements for MaxPool's Indices (they are "
                       "computed in f32), got {}",
                       xs.numel()));
  const int64_t oh = ys[2], ow = ys[3];
  // Enough rows and columns for every window, ceil_mode's last ones included.
  auto extent = [&](int d, int64_t out) {
    return (out - 1) * w.stride[static_cast<size_t>(d)] +
           (w.kernel[static_cast<size_t>(d)] - 1) * w.dilation[static_cast<size_t>(d)] + 1;
  };
  const int64_t top = w.pad_begin[0], left = w.pad_begin[1];
  const int64_t bottom = std::max<int64_t>(extent(0, oh) - xs[2] - top, 0);
  const int64_t right = std::max<int64_t>(extent(1, ow) - xs[3] - left, 0);
  Value xp = padded(b, x, top, bottom, left, right, -std::numeric_limits<double>::infinity());
  Value base = plane_base(b, xs[0], xs[1], xs[2] * xs[3]);
  // Row (column) r of the window's tap at offset t: r * stride + t * dilation - pad.
  auto positions = [&](int d, int64_t out, int64_t tap, int64_t pad) {
    std::vector<double> v(static_cast<size_t>(out));
    for (int64_t o = 0; o < out; ++o)
      v[static_cast<size_t>(o)] = static_cast<double>(
          o * w.stride[static_cast<size_t>(d)] + tap * w.dilation[static_cast<size_t>(d)] - pad);
    std::vector<int64_t> dims{1, 1, 1, 1};
    dims[static_cast<size_t>(2 + d)] = out;
    return b.constant(Shape(dims), std::move(v), DType::F32);
  };
  Value yf = in_f32(b, y);
  std::optional<Value> index;
  // Last tap first, so the first tap that holds the maximum is the one left.
  for (int64_t i = w.kernel[0] - 1; i >= 0; --i) {
    for (int64_t j = w.kernel[1] - 1; j >= 0; --j) {
      Value rows = positions(0, oh, i, top), cols = positions(1, ow, j, left);
      Value flat = column_major ? b.add(b.multiply(cols, f32(b, static_cast<double>(xs[2]))), rows)
                                : b.add(b.multiply(rows, f32(b, static_cast<double>(xs[3]))), cols);
      flat = b.broadcast(b.add(base, flat), Shape{xs[0], xs[1], oh, ow});
      const int64_t r0 = i * w.dilation[0], c0 = j * w.dilation[1];
      Value tap =
          b.slice(xp, {0, 0, r0, c0},
                  {xs[0], xs[1], r0 + (oh - 1) * w.stride[0] + 1, c0 + (ow - 1) * w.stride[1] + 1},
                  {1, 1, w.stride[0], w.stride[1]});
      index = index ? b.where(b.equal(in_f32(b, tap), yf), flat, *index) : flat;
    }
  }
  return b.typecast(*index, DType::I32);
}

void convert_max_unpool(NodeContext& c) {
  Builder& b = c.builder();
  Value x = c.operand(0);
  const Shape xs = b.type(x).shape;
  if (xs.rank() != 4) c.fail(fmt::format("expected a 2-D (NCHW) input, got shape {}", xs.str()));
  if (c.input_shape(1) != xs)
    c.fail(fmt::format("expected indices of the input's shape {}, got {}", xs.str(),
                       c.input_shape(1).str()));
  if (!c.has_attr("kernel_shape")) c.fail("expected 'kernel_shape', got none");
  ConvWindow w = window_of(c, {xs[2], xs[3]}, c.attr_ints("kernel_shape", {}));
  std::vector<int64_t> out{xs[0], xs[1], 0, 0};
  for (size_t d = 0; d < 2; ++d)
    out[2 + d] = (xs[2 + d] - 1) * w.stride[d] - w.pad_begin[d] - w.pad_end[d] + w.kernel[d];
  // The indices address this grid; a larger 'output_shape' pads it with zeros after (as
  // ONNX's node tests have it).
  const std::vector<int64_t> grid = out;
  if (c.has_input(2)) {
    std::vector<int64_t> given = c.input_data(2, "output_shape").ints();
    if (given.size() != 4 || given[0] != xs[0] || given[1] != xs[1] || given[2] < grid[2] ||
        given[3] < grid[3])
      c.fail(fmt::format("expected an 'output_shape' [{}, {}, H, W] of at least the unpooled "
                         "[{}], got [{}]",
                         xs[0], xs[1], fmt::join(grid, ", "), fmt::join(given, ", ")));
    out = given;
  }
  const Shape gs(grid);
  if (gs.numel() > kExactInF32)
    c.fail(fmt::format("expected at most 2^24 unpooled elements (the indices are read in f32), "
                       "got {}",
                       gs.numel()));
  const int64_t plane = grid[2] * grid[3];
  // Each index relative to its own plane.
  Value indices = in_f32(b, c.operand(1));
  Value local = b.subtract(indices, plane_base(b, xs[0], xs[1], plane));
  Value xf = in_f32(b, x);
  // Indices from a MaxPool of this window over an input of the grid's shape, the windows
  // tiling it: each index lies in its own window.
  bool tiled = w.stride == w.kernel && w.pad_begin == std::vector<int64_t>{0, 0} &&
               w.pad_end == std::vector<int64_t>{0, 0} && w.dilation == std::vector<int64_t>{1, 1};
  if (const ::onnx::NodeProto* pool = c.importer().producer_of(c.node().input(1)); tiled) {
    tiled = pool != nullptr && pool->op_type() == "MaxPool" && pool->output_size() > 1 &&
            pool->output(1) == c.node().input(1) &&
            c.importer().type_of(pool->input(0)).shape == gs;
    if (tiled) {
      NodeContext p(c.importer(), *pool);
      tiled = p.attr_ints("kernel_shape", {}) == w.kernel &&
              p.attr_ints("strides", {1, 1}) == w.stride &&
              p.attr_ints("pads", {0, 0, 0, 0}) == std::vector<int64_t>{0, 0, 0, 0} &&
              p.attr_ints("dilations", {1, 1}) == w.dilation &&
              p.attr_int("storage_order", 0) == 0 &&
              p.attr_string("auto_pad", "NOTSET") == "NOTSET";
    }
  }
  Value y;
  if (tiled) {
    // Window (h, w)'s tap (i, j) sits at (h * kh + i, w * kw + j): each tap keeps the values
    // whose index is its place, the taps of a row side by side, the rows below one another.
    const int64_t kh = w.kernel[0], kw = w.kernel[1];
    std::vector<Value> rows;
    for (int64_t i = 0; i < kh; ++i) {
      std::vector<Value> taps;
      for (int64_t j = 0; j < kw; ++j) {
        std::vector<double> place(static_cast<size_t>(xs[2] * xs[3]));
        for (int64_t h = 0; h < xs[2]; ++h)
          for (int64_t v = 0; v < xs[3]; ++v)
            place[static_cast<size_t>(h * xs[3] + v)] =
                static_cast<double>((h * kh + i) * grid[3] + v * kw + j);
        Value at = b.constant(Shape{1, 1, xs[2], xs[3]}, std::move(place), DType::F32);
        Value kept = b.multiply(xf, b.equal(local, at));
        taps.push_back(b.reshape(kept, {xs[0], xs[1], xs[2], xs[3], 1}));
      }
      Value row = kw == 1 ? taps[0] : b.concat(taps, 4);
      rows.push_back(b.reshape(row, {xs[0], xs[1], xs[2], 1, xs[3] * kw}));
    }
    Value all = kh == 1 ? rows[0] : b.concat(rows, 3);
    y = b.reshape(all, grid);
  } else {
    const int64_t planes = xs[0] * xs[1], in_plane = xs[2] * xs[3];
    if (planes * in_plane * plane > kMaxHostElements)
      c.fail(fmt::format("MaxUnpool with indices not from a MaxPool whose windows tile the "
                         "output scatters each of {} planes through a {} x {} one-hot; expected "
                         "at most 2^28 elements in all",
                         planes, in_plane, plane));
    // hot[p, k, j] = (local[p, k] == j); y[p, j] = sum_k hot * x / max(1, sum_k hot).
    Value column = b.reshape(local, {planes, in_plane, 1});
    Value hot = b.equal(column, iota(b, plane, 2, 3, DType::F32));
    Value sum =
        b.sum(b.multiply(hot, b.reshape(xf, {planes, in_plane, 1})), ReduceOptions{{1}, false});
    Value landed = b.sum(hot, ReduceOptions{{1}, false});
    Value hits = b.maximum(landed, f32(b, 1));
    y = b.reshape(b.divide(sum, hits), grid);
  }
  y = padded(b, y, 0, out[2] - grid[2], 0, out[3] - grid[3], 0.0);
  DType d = b.type(x).dtype;
  c.set_output(0, d == DType::F32 ? y : b.typecast(y, d));
}

} // namespace tilesat::onnx
