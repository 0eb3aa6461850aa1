// resize.cpp: Resize (and Upsample, which the version converter turns into it) with scales,
// sizes and roi known at import. ONNX's interpolation is separable: each resized axis is an
// affine map of that axis alone, y = W x + e, with W[out][in] the nearest, linear or cubic
// coefficients of each output coordinate and e the extrapolation value where
// tf_crop_and_resize samples outside the input. So each axis becomes a matrix product with a
// constant (the axis moved last and back), and the resize plans and runs like any matmul.
#include "converters.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numeric>

namespace tilesat::onnx {
namespace {

struct AxisMap {
  std::vector<double> w;   // out x in, row-major
  std::vector<double> ext; // out: the constant added (extrapolation), empty when none
};

struct ResizeAttrs {
  std::string mode, coordinates, nearest;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0;
};

std::vector<double> coefficients(const ResizeAttrs& a, double ratio, bool integral) {
  if (a.mode == "nearest") {
    if (integral) return {0, 1};
    if (a.nearest == "round_prefer_ceil")
      return {ratio < 0.5 ? 1.0 : 0.0, ratio >= 0.5 ? 1.0 : 0.0};
    if (a.nearest == "floor") return {1, 0};
    if (a.nearest == "ceil") return {0, 1};
    return {ratio <= 0.5 ? 1.0 : 0.0, ratio > 0.5 ? 1.0 : 0.0}; // round_prefer_floor
  }
  if (a.mode == "linear") return {1 - ratio, ratio};
  double A = a.cubic_a, r = ratio, s = 1 - ratio;
  return {((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A,
          ((A + 2) * r - (A + 3)) * r * r + 1, ((A + 2) * s - (A + 3)) * s * s + 1,
          ((A * (s + 1) - 5 * A) * (s + 1) + 8 * A) * (s + 1) - 4 * A};
}

// The map of one axis of extent `in` resized to `out` with `scale` (roi: this axis's start
// and end, for tf_crop_and_resize).
AxisMap axis_map(const ResizeAttrs& a, int64_t in, int64_t out, double scale, double roi_start,
                 double roi_end) {
  AxisMap m;
  m.w.assign(static_cast<size_t>(out * in), 0.0);
  double out_width = scale * static_cast<double>(in);
  for (int64_t x = 0; x < out; ++x) {
    auto xd = static_cast<double>(x);
    double ori = 0;
    const std::string& c = a.coordinates;
    if (c == "align_corners") {
      ori = out_width == 1 ? 0 : xd * static_cast<double>(in - 1) / (out_width - 1);
    } else if (c == "asymmetric") {
      ori = xd / scale;
    } else if (c == "tf_crop_and_resize") {
      ori = out_width == 1
                ? (roi_end - roi_start) * static_cast<double>(in - 1) / 2
                : xd * (roi_end - roi_start) * static_cast<double>(in - 1) / (out_width - 1);
      ori += roi_start * static_cast<double>(in - 1);
      if (ori < 0 || ori > static_cast<double>(in - 1)) {
        if (m.ext.empty()) m.ext.assign(static_cast<size_t>(out), 0.0);
        m.ext[static_cast<size_t>(x)] = a.extrapolation;
        continue;
      }
    } else if (c == "pytorch_half_pixel") {
      ori = out_width == 1 ? -0.5 : (xd + 0.5) / scale - 0.5;
    } else if (c == "tf_half_pixel_for_nn") {
      ori = (xd + 0.5) / scale;
    } else { // half_pixel
      ori = (xd + 0.5) / scale - 0.5;
    }
    double base = std::floor(ori);
    bool integral = ori == base;
    std::vector<double> coeffs = coefficients(a, integral ? 1.0 : ori - base, integral);
    auto n = static_cast<int64_t>(coeffs.size());
    // The n indices nearest to ori (ties to the smaller), in the input padded by its edge
    // values: the first is the one at or below ori - (n - 1) / 2 rounded as ONNX does.
    int64_t pad = (n + 1) / 2;
    double centre = ori + static_cast<double>(pad);
    std::vector<int64_t> idx(static_cast<size_t>(in + 2 * pad));
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int64_t p, int64_t q) {
      return std::abs(centre - static_cast<double>(p)) < std::abs(centre - static_cast<double>(q));
    });
    idx.resize(static_cast<size_t>(n));
    std::sort(idx.begin(), idx.end());
    if (a.exclude_outside) {
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        int64_t k = idx[static_cast<size_t>(i)] - pad;
        if (k < 0 || k >= in) coeffs[static_cast<size_t>(i)] = 0;
        sum += coeffs[static_cast<size_t>(i)];
      }
      if (sum != 0)
        for (double& v : coeffs) v /= sum;
    }
    for (int64_t i = 0; i < n; ++i) {
      int64_t k = std::clamp<int64_t>(idx[static_cast<size_t>(i)] - pad, 0, in - 1);
      m.w[static_cast<size_t>(x * in + k)] += coeffs[static_cast<size_t>(i)];
    }
  }
  return m;
}

bool identity(const AxisMap& m, int64_t in, int64_t out) {
  if (in != out || !m.ext.empty()) return false;
  for (int64_t i = 0; i < out; ++i)
    for (int64_t j = 0; j < in; ++j)
      if (m.w[static_cast<size_t>(i * in + j)] != (i == j ? 1.0 : 0.0)) return false;
  return true;
}

// Optional input i as static data, or null when absent or empty.
const HostTensor* optional_data(NodeContext& c, size_t i, std::string_view what) {
  if (!c.has_input(i)) return nullptr;
  const HostTensor& h = c.input_data(i, what);
  return h.numel() == 0 ? nullptr : &h;
}

} // namespace

void convert_resize(NodeContext& c) {
  Builder& b = c.builder();
  Value x = c.operand(0);
  TensorType t = b.type(x);
  if (t.dtype == DType::I32) c.fail("expected a float input (integer resize is not supported)");
  int64_t rank = t.shape.rank();
  ResizeAttrs a{c.attr_string("mode", "nearest"),
                c.attr_string("coordinate_transformation_mode", "half_pixel"),
                c.attr_string("nearest_mode", "round_prefer_floor"),
                c.attr_float("cubic_coeff_a", -0.75),
                c.attr_int("exclude_outside", 0) != 0,
                c.attr_float("extrapolation_value", 0.0)};
  if (a.mode != "nearest" && a.mode != "linear" && a.mode != "cubic")
    c.fail(fmt::format("expected 'mode' nearest, linear or cubic, got '{}'", a.mode));
  static const char* kModes[] = {"half_pixel",         "asymmetric",
                                 "align_corners",      "pytorch_half_pixel",
                                 "tf_crop_and_resize", "tf_half_pixel_for_nn"};
  if (std::none_of(std::begin(kModes), std::end(kModes),
                   [&](const char* m) { return a.coordinates == m; }))
    c.fail(fmt::format("unsupported 'coordinate_transformation_mode' '{}'", a.coordinates));
  // Opset 10: (X, scales). From 11: (X, roi, scales, sizes).
  bool v10 = c.opset() < 11;
  const HostTensor* roi = v10 ? nullptr : optional_data(c, 1, "roi");
  const HostTensor* scales = optional_data(c, v10 ? 1 : 2, "scales");
  const HostTensor* sizes = v10 ? nullptr : optional_data(c, 3, "sizes");
  if ((scales == nullptr) == (sizes == nullptr))
    c.fail("expected exactly one of 'scales' and 'sizes'");
  // Opset 18: 'antialias' (a low-pass filter when downscaling), 'keep_aspect_ratio_policy'
  // and 'axes' (the dims scales or sizes are for; the others keep their extent).
  if (c.attr_int("antialias", 0) != 0 && a.mode != "nearest")
    c.fail("expected 'antialias' 0 (an antialiasing resize is not supported)");
  if (std::string p = c.attr_string("keep_aspect_ratio_policy", "stretch"); p != "stretch")
    c.fail(fmt::format("expected 'keep_aspect_ratio_policy' stretch, got '{}'", p));
  HostTensor full = scales != nullptr ? *scales : *sizes;
  if (c.has_attr("axes")) {
    std::vector<int64_t> axes = c.attr_ints("axes", {});
    if (static_cast<int64_t>(axes.size()) != full.numel())
      c.fail(fmt::format("expected {} {} (one per axis), got {}", axes.size(),
                         scales ? "scales" : "sizes", full.numel()));
    std::vector<double> values(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d)
      values[static_cast<size_t>(d)] = scales ? 1.0 : static_cast<double>(t.shape[d]);
    for (size_t k = 0; k < axes.size(); ++k)
      values[static_cast<size_t>(norm_axis(axes[k], rank, "'axes'"))] = full.values[k];
    full = host(full.elem_type, {rank}, std::move(values));
  }
  const HostTensor& given = full;
  if (given.numel() != rank)
    c.fail(fmt::format("expected {} {}, got {}", rank, scales ? "scales" : "sizes", given.numel()));
  if (a.coordinates == "tf_crop_and_resize" && (roi == nullptr || roi->numel() != 2 * rank))
    c.fail(fmt::format("expected a roi of {} values for tf_crop_and_resize", 2 * rank));
  Value y = x;
  std::vector<int64_t> out_dims = t.shape.dims();
  for (int64_t d = 0; d < rank; ++d) {
    int64_t in = t.shape[d];
    double scale = 0;
    int64_t out = 0;
    if (scales != nullptr) {
      scale = given.values[static_cast<size_t>(d)];
      out = static_cast<int64_t>(scale * static_cast<double>(in));
    } else {
      out = given.ints()[static_cast<size_t>(d)];
      scale = in == 0 ? 1.0 : static_cast<double>(out) / static_cast<double>(in);
    }
    if (!(scale > 0) || out <= 0 || in <= 0)
      c.fail(fmt::format("expected a positive scale and extent for dim {}, got scale {} and "
                         "extent {}",
                         d, scale, out));
    double r0 =
        roi != nullptr && roi->numel() == 2 * rank ? roi->values[static_cast<size_t>(d)] : 0;
    double r1 =
        roi != nullptr && roi->numel() == 2 * rank ? roi->values[static_cast<size_t>(d + rank)] : 1;
    AxisMap m = axis_map(a, in, out, scale, r0, r1);
    out_dims[static_cast<size_t>(d)] = out;
    if (identity(m, in, out)) continue;
    // The axis last, as rows of `in` values; times W^T; back in place.
    std::vector<int64_t> perm(static_cast<size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    std::swap(perm[static_cast<size_t>(d)], perm.back());
    Value moved = d == rank - 1 ? y : b.permute(y, perm);
    Shape ms = b.type(moved).shape;
    std::vector<double> wt(static_cast<size_t>(in * out));
    for (int64_t i = 0; i < out; ++i)
      for (int64_t j = 0; j < in; ++j)
        wt[static_cast<size_t>(j * out + i)] = m.w[static_cast<size_t>(i * in + j)];
    Value rows = b.reshape(moved, {ms.numel() / in, in});
    Value z = b.matmul(rows, b.constant(Shape{in, out}, std::move(wt), t.dtype));
    if (!m.ext.empty()) z = b.add(z, b.constant(Shape{out}, m.ext, t.dtype));
    std::vector<int64_t> zdims = ms.dims();
    zdims.back() = out;
    z = b.reshape(z, zdims);
    y = d == rank - 1 ? z : b.permute(z, perm);
  }
  c.set_output(0, y);
}

} // namespace tilesat::onnx
