// grid_sample.cpp: ONNX GridSample (opset 16, and opset 20's 4-D form) as a matrix product.
//
// Each output pixel is a weighted sum of a few input pixels (one tap for nearest, 2x2 for
// bilinear, 4x4 for bicubic) at the position the grid gives it. With X seen as [N, C, Q]
// (Q = H_in * W_in input pixels) and P = H_out * W_out output pixels, the output is the batched
// product X S, where S[n, q, p] is the weight of input pixel q in output pixel p. A tap's weight
// is its row weight times its column weight, so S is the product of a row factor [N, H_in, 1, P]
// and a column factor [N, 1, W_in, P], each the sum over that axis' taps of
// weight * (tap index == iota), as the runtime-index gathers build their one-hots. A tap outside
// the input (padding_mode zeros) matches no index and reads nothing.
//
// A grid known at import (a constant, or an initializer) gets its S computed here, as a
// constant (a weight when the grid is one), so only X flows at run time; a runtime grid (an
// affine grid a localization net computes, a flow field; also a graph input whose value
// `tilesat eval` gives) gets S from the graph's ops, its index math in f32 (bf16 holds no index
// past 256; floor runs through i32, so coordinates stay within 2^31 pixels). Both paths run
// the same code (the templates below) on host doubles or on graph values.
//
// S is dense: N * H_out * W_out * H_in * W_in elements (a 64x64 warp of a 64x64 image is 16M
// per image). Its two factors also give Y without it: T = X [N, C * H_in, W_in] times the
// column factor, then the sum over rows of T times the row factor, with N * C * H_in * P
// partial sums; a runtime grid takes that form when it is the smaller, a known grid when S
// would pass kMaxHostElements (2^28). Past that in both forms is an error naming the sizes.
//
// Sampling follows the ONNX spec's reference, per axis of extent L:
//   - the source coordinate x of a grid value g in [-1, 1]: (g + 1) / 2 * (L - 1) with
//     align_corners, else ((g + 1) * L - 1) / 2; nearest rounds it half to even;
//   - outside [lo, hi] ([0, L - 1] with align_corners, else [-0.5, L - 0.5]) border moves x to
//     the nearer of 0 and L - 1, reflection reflects it over lo and hi until inside;
//   - taps: x itself (nearest); floor(x) and floor(x) + 1 with weights 1 - t and t, t the
//     fraction (bilinear); floor(x) - 1 .. floor(x) + 2 with Keys' cubic convolution weights,
//     A = -0.75 (bicubic);
//   - a tap index outside [0, L - 1] reads zero (zeros), the nearest edge (border), or the
//     index reflected over lo and hi (reflection).
// (For bicubic near an edge this differs slightly from torch, which pads only the taps.)
#include "converters.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <optional>
#include <vector>

namespace tilesat::onnx {
namespace {

enum class SampleMode { Nearest, Linear, Cubic };
enum class PaddingMode { Zeros, Border, Reflection };

/// The node's attributes.
struct Sampling {
  SampleMode mode = SampleMode::Linear;
  PaddingMode padding = PaddingMode::Zeros;
  bool align_corners = false;
};

/// One spatial axis of X: its extent and the range [lo, hi] that border and reflection keep a
/// coordinate in.
struct SampleAxis {
  int64_t extent = 1;
  double lo = 0, hi = 0;
};

SampleAxis axis_of(int64_t extent, bool align_corners) {
  auto l = static_cast<double>(extent);
  return align_corners ? SampleAxis{extent, 0.0, l - 1} : SampleAxis{extent, -0.5, l - 0.5};
}

/// The arithmetic of the sampling math on host doubles (a grid known at import).
struct HostMath {
  using Num = double;
  double k(double v) const { return v; }
  double add(double a, double b) const { return a + b; }
  double sub(double a, double b) const { return a - b; }
  double mul(double a, double b) const { return a * b; }
  double div(double a, double b) const { return a / b; }
  double min(double a, double b) const { return std::min(a, b); }
  double max(double a, double b) const { return std::max(a, b); }
  double floor(double a) const { return std::floor(a); }
  double less(double a, double b) const { return a < b ? 1 : 0; }
  double greater(double a, double b) const { return a > b ? 1 : 0; }
  double equal(double a, double b) const { return a == b ? 1 : 0; }
  double select(double cond, double a, double b) const { return cond != 0 ? a : b; }
};

/// The same on graph values in f32 (a runtime grid); comparisons give 1 or 0.
struct GraphMath {
  using Num = Value;
  Builder& b;
  Value k(double v) const { return b.scalar(v, DType::F32); }
  Value add(Value x, Value y) const { return b.add(x, y); }
  Value sub(Value x, Value y) const { return b.subtract(x, y); }
  Value mul(Value x, Value y) const { return b.multiply(x, y); }
  Value div(Value x, Value y) const { return b.divide(x, y); }
  Value min(Value x, Value y) const { return b.minimum(x, y); }
  Value max(Value x, Value y) const { return b.maximum(x, y); }
  /// trunc(x) by a round trip through i32 (|x| < 2^31), less one below a negative fraction.
  Value floor(Value x) const {
    Value t = b.typecast(b.typecast(x, DType::I32), DType::F32);
    return b.subtract(t, b.less(x, t));
  }
  Value less(Value x, Value y) const { return b.less(x, y); }
  Value greater(Value x, Value y) const { return b.greater(x, y); }
  Value equal(Value x, Value y) const { return b.equal(x, y); }
  Value select(Value cond, Value x, Value y) const { return b.where(cond, x, y); }
};

/// x rounded half to even (as nearbyint rounds).
template <class M>
typename M::Num nearest_even(const M& m, typename M::Num x) {
  auto fl = m.floor(x);
  auto frac = m.sub(x, fl);
  auto two = m.k(2);
  auto odd = m.sub(fl, m.mul(two, m.floor(m.mul(fl, m.k(0.5)))));
  auto above = m.greater(frac, m.k(0.5));
  auto up = m.add(above, m.mul(m.equal(frac, m.k(0.5)), odd));
  return m.add(fl, up);
}

/// x reflected over lo and hi until it lies in [lo, hi] (x itself when it does).
template <class M>
typename M::Num reflect_into(const M& m, typename M::Num x, double lo, double hi) {
  double span = hi - lo;
  if (span == 0) { // a one-pixel axis with align_corners
    auto zero = m.mul(x, m.k(0));
    return m.add(zero, m.k(lo));
  }
  auto below = m.less(x, m.k(lo));
  auto above = m.greater(x, m.k(hi));
  // The distance past the bound crossed, as n whole spans and a remainder r.
  auto lo_gap = m.sub(m.k(lo), x);
  auto past_lo = m.max(lo_gap, m.k(0));
  auto hi_gap = m.sub(x, m.k(hi));
  auto past_hi = m.max(hi_gap, m.k(0));
  auto past = m.add(past_lo, past_hi);
  auto n = m.floor(m.div(past, m.k(span)));
  auto r = m.sub(past, m.mul(n, m.k(span)));
  auto two = m.k(2);
  auto odd = m.sub(n, m.mul(two, m.floor(m.mul(n, m.k(0.5)))));
  // After an even number of whole spans a point below lands r above lo, after an odd number r
  // below hi; the other way round for a point above.
  auto even_below = m.mul(below, m.sub(m.k(1), odd));
  auto from_lo = m.add(even_below, m.mul(above, odd));
  auto above_lo = m.add(r, m.k(lo));
  auto below_hi = m.sub(m.k(hi), r);
  auto inside = m.select(from_lo, above_lo, below_hi);
  return m.select(m.add(below, above), inside, x);
}

/// The source coordinate along axis `a` of normalized grid values g, rounded (nearest) and
/// padded (border, reflection) as the spec does.
template <class M>
typename M::Num source_coordinate(const M& m, typename M::Num g, const SampleAxis& a,
                                  const Sampling& s) {
  auto l = static_cast<double>(a.extent);
  auto g1 = m.add(g, m.k(1));
  typename M::Num x;
  if (s.align_corners) {
    x = m.mul(g1, m.k((l - 1) / 2));
  } else {
    auto scaled = m.mul(g1, m.k(l));
    auto less_one = m.sub(scaled, m.k(1));
    x = m.mul(less_one, m.k(0.5));
  }
  // Past 3 pixels out every tap is outside too: zeros and border give the same there, and the
  // coordinate stays small enough for floor's round trip through i32.
  if (s.padding != PaddingMode::Reflection) {
    auto clamped = m.max(x, m.k(-4));
    x = m.min(clamped, m.k(l + 3));
  }
  if (s.mode == SampleMode::Nearest) x = nearest_even(m, x);
  if (s.padding == PaddingMode::Border) {
    auto below = m.less(x, m.k(a.lo));
    auto first = m.k(0);
    auto above = m.greater(x, m.k(a.hi));
    auto last = m.k(l - 1);
    x = m.select(below, first, m.select(above, last, x));
  } else if (s.padding == PaddingMode::Reflection) {
    x = reflect_into(m, x, a.lo, a.hi);
  }
  return x;
}

/// One tap along an axis: the index it reads and its weight.
template <class Num>
struct SampleTap {
  Num index, weight;
};

/// Keys' cubic convolution weight of a tap at distance u in [1, 2] ...
template <class M>
typename M::Num cubic_far(const M& m, typename M::Num u) {
  constexpr double A = -0.75;
  auto v = m.mul(m.k(A), u);
  v = m.add(v, m.k(-5 * A));
  v = m.mul(v, u);
  v = m.add(v, m.k(8 * A));
  v = m.mul(v, u);
  return m.add(v, m.k(-4 * A));
}

/// ... and at distance u in [0, 1].
template <class M>
typename M::Num cubic_near(const M& m, typename M::Num u) {
  constexpr double A = -0.75;
  auto v = m.mul(m.k(A + 2), u);
  v = m.add(v, m.k(-(A + 3)));
  v = m.mul(m.mul(v, u), u);
  return m.add(v, m.k(1));
}

/// The taps at source coordinate x, their indices padded as the spec does (zeros leaves them:
/// an index outside [0, extent) reads nothing).
template <class M>
std::vector<SampleTap<typename M::Num>> sample_taps(const M& m, typename M::Num x,
                                                    const SampleAxis& a, const Sampling& s) {
  using Num = typename M::Num;
  std::vector<SampleTap<Num>> out;
  if (s.mode == SampleMode::Nearest) {
    out.push_back({x, m.k(1)});
  } else {
    Num fl = m.floor(x);
    Num t = m.sub(x, fl);
    if (s.mode == SampleMode::Linear) {
      out.push_back({fl, m.sub(m.k(1), t)});
      out.push_back({m.add(fl, m.k(1)), t});
    } else {
      Num u = m.sub(m.k(1), t);
      out.push_back({m.sub(fl, m.k(1)), cubic_far(m, m.add(t, m.k(1)))});
      out.push_back({fl, cubic_near(m, t)});
      out.push_back({m.add(fl, m.k(1)), cubic_near(m, u)});
      out.push_back({m.add(fl, m.k(2)), cubic_far(m, m.add(u, m.k(1)))});
    }
  }
  for (SampleTap<Num>& tap : out) {
    if (s.padding == PaddingMode::Border) {
      auto clamped = m.max(tap.index, m.k(0));
      tap.index = m.min(clamped, m.k(static_cast<double>(a.extent - 1)));
    } else if (s.padding == PaddingMode::Reflection) {
      tap.index = reflect_into(m, tap.index, a.lo, a.hi);
    }
  }
  return out;
}

/// The sizes of one GridSample: batch, channels, input and output pixels.
struct SampleSizes {
  int64_t n = 0, c = 0, h_in = 0, w_in = 0, h_out = 0, w_out = 0;
  int64_t q() const { return h_in * w_in; }
  int64_t p() const { return h_out * w_out; }
};

/// Fails unless every value of a grid known at import is finite.
void check_finite(NodeContext& c, const HostTensor& grid, const SampleSizes& z) {
  for (int64_t n = 0; n < z.n; ++n)
    for (int64_t p = 0; p < z.p(); ++p) {
      size_t at = static_cast<size_t>((n * z.p() + p) * 2);
      double gx = grid.values[at], gy = grid.values[at + 1];
      if (!std::isfinite(gx) || !std::isfinite(gy))
        c.fail(fmt::format("expected finite grid values, got ({}, {}) at batch {}, pixel {}", gx,
                           gy, n, p));
    }
}

/// S [N, Q, P] of a grid known at import.
Tensor host_matrix(NodeContext& c, const HostTensor& grid, const SampleSizes& z,
                   const Sampling& s) {
  check_finite(c, grid, z);
  HostMath m;
  SampleAxis ax = axis_of(z.w_in, s.align_corners), ay = axis_of(z.h_in, s.align_corners);
  Tensor st(TensorType{DType::F32, Shape{z.n, z.q(), z.p()}, {}});
  for (int64_t n = 0; n < z.n; ++n) {
    for (int64_t p = 0; p < z.p(); ++p) {
      size_t at = static_cast<size_t>((n * z.p() + p) * 2);
      double gx = grid.values[at], gy = grid.values[at + 1];
      auto xs = sample_taps(m, source_coordinate(m, gx, ax, s), ax, s);
      auto ys = sample_taps(m, source_coordinate(m, gy, ay, s), ay, s);
      for (const SampleTap<double>& ty : ys) {
        // Zeros drops a tap outside; for the others it is a guard against rounding.
        if (!(ty.index >= 0 && ty.index < static_cast<double>(z.h_in))) continue;
        for (const SampleTap<double>& tx : xs) {
          if (!(tx.index >= 0 && tx.index < static_cast<double>(z.w_in))) continue;
          int64_t q = static_cast<int64_t>(ty.index) * z.w_in + static_cast<int64_t>(tx.index);
          st[(n * z.q() + q) * z.p() + p] += static_cast<float>(ty.weight * tx.weight);
        }
      }
    }
  }
  return st;
}

/// One axis' factor of S for a grid known at import: [N, extent, P], the weight of each index
/// along the axis (`coordinate` 0: x, the width; 1: y, the height) for each output pixel.
Tensor host_factor(const HostTensor& grid, const SampleSizes& z, const Sampling& s,
                   int64_t coordinate) {
  HostMath m;
  const int64_t extent = coordinate == 0 ? z.w_in : z.h_in;
  SampleAxis a = axis_of(extent, s.align_corners);
  Tensor f(TensorType{DType::F32, Shape{z.n, extent, z.p()}, {}});
  for (int64_t n = 0; n < z.n; ++n) {
    for (int64_t p = 0; p < z.p(); ++p) {
      double g = grid.values[static_cast<size_t>((n * z.p() + p) * 2 + coordinate)];
      for (const SampleTap<double>& t : sample_taps(m, source_coordinate(m, g, a, s), a, s)) {
        if (!(t.index >= 0 && t.index < static_cast<double>(extent))) continue;
        f[(n * extent + static_cast<int64_t>(t.index)) * z.p() + p] += static_cast<float>(t.weight);
      }
    }
  }
  return f;
}

/// One axis' factor of S for runtime grid values g [N, 1, P] (f32): [N, extent, P], the sum
/// over the taps of weight * (tap index == iota).
Value axis_factor(Builder& b, Value g, const SampleAxis& a, const Sampling& s) {
  GraphMath m{b};
  Value positions = iota(b, a.extent, 1, 3, DType::F32);
  std::optional<Value> sum;
  for (const SampleTap<Value>& tap : sample_taps(m, source_coordinate(m, g, a, s), a, s)) {
    Value hit = b.equal(tap.index, positions);
    Value term = s.mode == SampleMode::Nearest ? hit : b.multiply(hit, tap.weight);
    sum = sum ? b.add(*sum, term) : term;
  }
  return *sum;
}

/// The factors [N, W_in, P] (x) and [N, H_in, P] (y) of a runtime grid [N, H_out, W_out, 2].
std::pair<Value, Value> graph_factors(Builder& b, Value grid, const SampleSizes& z,
                                      const Sampling& s) {
  grid = in_f32(b, grid);
  auto coordinate = [&](int64_t i) {
    Value g = b.slice(grid, {0, 0, 0, i}, {z.n, z.h_out, z.w_out, i + 1});
    return b.reshape(g, {z.n, 1, z.p()});
  };
  return {axis_factor(b, coordinate(0), axis_of(z.w_in, s.align_corners), s),
          axis_factor(b, coordinate(1), axis_of(z.h_in, s.align_corners), s)};
}

/// S [N, Q, P] from its factors: S[n, h * W + w, p] = fy[n, h, p] fx[n, w, p].
Value matrix_of(Builder& b, Value fx, Value fy, const SampleSizes& z) {
  Value rows = b.reshape(fy, {z.n, z.h_in, 1, z.p()});
  Value cols = b.reshape(fx, {z.n, 1, z.w_in, z.p()});
  Value st = b.multiply(rows, cols);
  return b.reshape(st, {z.n, z.q(), z.p()});
}

/// Y [N, C, P] without S: the rows of X through the column factor, T = X [N, C * H_in, W_in]
/// fx, then the sum over the rows of T weighted by the row factor. T has N C H_in P elements
/// where S has N H_in W_in P: the smaller when there are fewer channels than input columns.
Value factored_product(Builder& b, Value x, Value fx, Value fy, const SampleSizes& z) {
  Value t = b.matmul(b.reshape(x, {z.n, z.c * z.h_in, z.w_in}), fx);
  t = b.reshape(t, {z.n, z.c, z.h_in, z.p()});
  return b.sum(b.multiply(t, b.reshape(fy, {z.n, 1, z.h_in, z.p()})), ReduceOptions{{2}, false});
}

Sampling sampling_of(NodeContext& c) {
  Sampling s;
  std::string mode = c.attr_string("mode", c.opset() >= 20 ? "linear" : "bilinear");
  if (mode == "bilinear" || mode == "linear") {
    s.mode = SampleMode::Linear;
  } else if (mode == "nearest") {
    s.mode = SampleMode::Nearest;
  } else if (mode == "bicubic" || mode == "cubic") {
    s.mode = SampleMode::Cubic;
  } else {
    c.fail(fmt::format("expected 'mode' bilinear, nearest or bicubic (opset 20: linear, nearest "
                       "or cubic), got '{}'",
                       mode));
  }
  std::string padding = c.attr_string("padding_mode", "zeros");
  if (padding == "zeros") {
    s.padding = PaddingMode::Zeros;
  } else if (padding == "border") {
    s.padding = PaddingMode::Border;
  } else if (padding == "reflection") {
    s.padding = PaddingMode::Reflection;
  } else {
    c.fail(fmt::format("expected 'padding_mode' zeros, border or reflection, got '{}'", padding));
  }
  int64_t align = c.attr_int("align_corners", 0);
  if (align != 0 && align != 1)
    c.fail(fmt::format("expected 'align_corners' 0 or 1, got {}", align));
  s.align_corners = align == 1;
  return s;
}

} // namespace

void convert_grid_sample(NodeContext& c) {
  Builder& b = c.builder();
  Sampling s = sampling_of(c);
  Shape xs = c.input_shape(0), gs = c.input_shape(1);
  if (xs.rank() != 4)
    c.fail(fmt::format("expected a 4-D input X [N, C, H, W], got rank {} (GridSample over {} "
                       "spatial dims, opset 20's N-D form, is not supported)",
                       xs.rank(), std::max<int64_t>(xs.rank() - 2, 0)));
  if (gs.rank() != 4 || gs[3] != 2)
    c.fail(fmt::format("expected a grid of shape [N, H_out, W_out, 2], got [{}]",
                       fmt::join(gs.dims(), ", ")));
  if (gs[0] != xs[0])
    c.fail(fmt::format("expected the grid's batch ({}) to be X's ({})", gs[0], xs[0]));
  SampleSizes z{xs[0], xs[1], xs[2], xs[3], gs[1], gs[2]};
  if (xs.numel() == 0 || gs.numel() == 0)
    c.fail(fmt::format("expected a nonempty X and grid, got X [{}] and grid [{}]",
                       fmt::join(xs.dims(), ", "), fmt::join(gs.dims(), ", ")));
  // S, or the channels' partial sums of the factored product. Both multiply as much; a known
  // grid's S is a constant (nothing to build at run time), a runtime grid's is built from its
  // factors, so the factored form serves a runtime grid whenever its partial sums are fewer,
  // and a known grid only when S would be too large.
  const OnnxValue& grid = c.input(1);
  const bool known = grid.data && (c.input_static(1) || !grid.weight_name.empty());
  std::optional<int64_t> dense = Shape::checked_numel(std::vector<int64_t>{z.n, z.q(), z.p()});
  std::optional<int64_t> partial =
      Shape::checked_numel(std::vector<int64_t>{z.n, z.c, z.h_in, z.p()});
  const bool dense_fits = dense && *dense <= kMaxHostElements;
  const bool factored = !dense_fits || (!known && partial && *partial < *dense);
  std::optional<int64_t> used = factored ? partial : dense;
  if (!used || *used > kMaxHostElements)
    c.fail(fmt::format("GridSample of a [{}] input on a {}x{} grid needs {} elements (the "
                       "sampling matrix N x H_in*W_in x H_out*W_out, or N x C x H_in x "
                       "H_out*W_out partial sums when fewer), more than the 2^28 allowed",
                       fmt::join(xs.dims(), ", "), z.h_out, z.w_out,
                       used ? fmt::format("{}", *used) : std::string("over 2^63")));

  // A grid known at import gives constants (weights, derived from an initializer grid).
  auto known_tensor = [&](std::string_view suffix, Tensor t) {
    return c.input_static(1)
               ? b.constant(t)
               : c.importer().add_weight(grid.weight_name + std::string(suffix), std::move(t));
  };
  DType dtype = c.input_type(0).dtype;
  Value x = in_f32(b, c.operand(0)), y;
  if (!factored) {
    Value st = known ? known_tensor(".grid_sample", host_matrix(c, *grid.data, z, s))
                     : std::apply([&](Value fx, Value fy) { return matrix_of(b, fx, fy, z); },
                                  graph_factors(b, c.operand(1), z, s));
    y = b.matmul(b.reshape(x, {z.n, z.c, z.q()}), st);
  } else {
    if (known) check_finite(c, *grid.data, z);
    auto [fx, fy] =
        known ? std::pair{known_tensor(".grid_sample_x", host_factor(*grid.data, z, s, 0)),
                          known_tensor(".grid_sample_y", host_factor(*grid.data, z, s, 1))}
              : graph_factors(b, c.operand(1), z, s);
    y = factored_product(b, x, fx, fy, z);
  }
  y = b.reshape(y, {z.n, z.c, z.h_out, z.w_out});
  c.set_output(0, dtype == DType::F32 ? y : b.typecast(y, dtype));
}

} // namespace tilesat::onnx
