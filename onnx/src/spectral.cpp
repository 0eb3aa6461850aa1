// spectral.cpp: ONNX's signal-processing ops (opset 17) as the graph's own ops, so audio front
// ends (spectrograms, mel filterbanks) import, plan and run: DFT as a matmul with a constant
// Fourier basis, STFT as a strided conv whose filters are the windowed basis (one filter per
// frequency bin and real/imaginary part), and HannWindow, HammingWindow, BlackmanWindow and
// MelWeightMatrix computed at import (their inputs are sizes and frequencies).
//
// Complex values are ONNX's: a trailing dim of 2 (real, imaginary); a trailing 1 is a real
// signal. The basis is cos(2 pi k n / L) and -sin(2 pi k n / L) (+sin and 1/L for an inverse),
// so (xr + i xi) e^{-i theta} = xr cos + xi sin + i (xi cos - xr sin).
#include "converters.h"

#include <cmath>
#include <fmt/format.h>
#include <numbers>
#include <numeric>

namespace tilesat::onnx {
namespace {

using TP = ::onnx::TensorProto;

// The Fourier basis of a length-`period` transform read by `taps` samples of a signal with
// `parts` (1: real, 2: complex) values each, for `bins` frequencies, as [2 * bins, taps, parts]:
// entry [p * bins + k, n, q] weighs part q of sample n into part p of bin k. Samples at
// n >= period read nothing (the signal is cut to the period). `window` (taps values or empty)
// scales each sample.
HostTensor fourier_basis(int32_t elem_type, int64_t period, int64_t taps, int64_t parts,
                         int64_t bins, bool inverse, std::span<const double> window) {
  std::vector<double> w(static_cast<size_t>(bins * 2 * taps * parts), 0.0);
  const double sign = inverse ? 1.0 : -1.0, scale = inverse ? 1.0 / static_cast<double>(period) : 1;
  for (int64_t k = 0; k < bins; ++k) {
    for (int64_t n = 0; n < std::min(taps, period); ++n) {
      // k * n mod period keeps the angle small, so cos and sin stay exact at large k * n.
      double theta = 2.0 * std::numbers::pi * static_cast<double>((k * n) % period) /
                     static_cast<double>(period);
      double cs = std::cos(theta) * scale, sn = sign * std::sin(theta) * scale;
      if (!window.empty()) {
        cs *= window[static_cast<size_t>(n)];
        sn *= window[static_cast<size_t>(n)];
      }
      auto at = [&](int64_t p, int64_t q) -> double& {
        return w[static_cast<size_t>(((p * bins + k) * taps + n) * parts + q)];
      };
      at(0, 0) = cs; // real of the bin from the real of the sample
      at(1, 0) = sn; // imaginary from real
      if (parts == 2) {
        at(0, 1) = -sn; // real from imaginary
        at(1, 1) = cs;  // imaginary from imaginary
      }
    }
  }
  return host(elem_type, {bins * 2, taps, parts}, std::move(w));
}

// The spectrum of each row of `frames` ([rows, taps * parts], sample-major) against
// fourier_basis: [rows, 2 * bins], the real parts of the bins, then the imaginary ones.
Value spectrum(Builder& b, Value frames, const HostTensor& basis) {
  HostTensor m = basis;
  m.dims = {basis.dims[0], basis.dims[1] * basis.dims[2]};
  const int64_t flip[] = {1, 0};
  return b.matmul(frames, b.constant(to_tensor(host_permute(m, flip), b.type(frames).dtype)));
}

// [..., 2 * bins] (real parts, then imaginary) -> [..., bins, 2] (ONNX's complex layout): a
// reshape and a swap of the last two dims, which later ops can fold (a sum of squares over the
// real/imaginary dim becomes one over the dim of the parts).
Value interleaved(Builder& b, Value y, std::vector<int64_t> front, int64_t bins) {
  front.push_back(2);
  front.push_back(bins);
  auto rank = static_cast<int64_t>(front.size());
  return b.transpose(b.reshape(y, front), rank - 2, rank - 1);
}

// The node that reduces `value` (a spectrum, [..., bins, 2]) to its power re^2 + im^2 over the
// last axis, and whether it then takes the square root: a ReduceSumSquare or ReduceL2 over the
// last axis, or Pow(., 2) or Mul(x, x) then ReduceSum over it, each the only use of its input.
// The nodes between are added to `chain`.
const ::onnx::NodeProto* power_consumer(NodeContext& c, const std::string& value, int64_t rank,
                                        std::vector<const ::onnx::NodeProto*>& chain, bool& root) {
  Importer& im = c.importer();
  const ::onnx::NodeProto* n = im.sole_consumer(value);
  if (n == nullptr || n->input_size() < 1 || n->input(0) != value) return nullptr;
  const bool square = (n->op_type() == "Pow" && n->input_size() == 2 && im.has_value(n->input(1)) &&
                       im.value(n->input(1)).data && im.value(n->input(1)).data.numel() == 1 &&
                       im.value(n->input(1)).data->values[0] == 2.0) ||
                      (n->op_type() == "Mul" && n->input_size() == 2 && n->input(1) == value);
  if (square) {
    if (n->op_type() == "Mul" && im.use_count(value) != 2) return nullptr;
    chain.push_back(n);
    const std::string& sq = n->output(0);
    n = im.sole_consumer(sq);
    if (n == nullptr || n->op_type() != "ReduceSum" || n->input(0) != sq) return nullptr;
  } else if (n->op_type() != "ReduceSumSquare" && n->op_type() != "ReduceL2") {
    return nullptr;
  }
  NodeContext r(im, *n);
  std::optional<std::vector<int64_t>> axes = axes_of(r, n->op_type() == "ReduceSum" ? 13 : 18, 1);
  if (!axes || axes->size() != 1 || ((*axes)[0] != -1 && (*axes)[0] != rank - 1)) return nullptr;
  root = n->op_type() == "ReduceL2";
  return n;
}

// When the spectrum is used only for its power (power_consumer), that is computed from the
// planar product `y` [rows, 2 * bins] as re^2 + im^2 (no [..., bins, 2] tensor, whose last dim
// of 2 would fill one tile column in 16), and the consumer nodes are absorbed.
void set_power_if_only_use(NodeContext& c, Value y, std::vector<int64_t> front, int64_t bins) {
  std::vector<const ::onnx::NodeProto*> chain;
  bool root = false;
  auto rank = static_cast<int64_t>(front.size()) + 2;
  const ::onnx::NodeProto* n = power_consumer(c, c.node().output(0), rank, chain, root);
  if (n == nullptr) return;
  Builder& b = c.builder();
  const int64_t rows = b.type(y).shape[0];
  Value re = b.slice(y, {0, 0}, {rows, bins}), im = b.slice(y, {0, bins}, {rows, 2 * bins});
  Value re2 = b.multiply(re, re);
  Value p = b.add(re2, b.multiply(im, im));
  if (root) p = b.sqrt(p);
  front.push_back(bins);
  if (NodeContext(c.importer(), *n).attr_int("keepdims", 1) != 0) front.push_back(1);
  chain.push_back(n);
  for (const ::onnx::NodeProto* absorbed : chain) c.importer().absorb(absorbed);
  OnnxValue out;
  out.node = b.reshape(p, front).id;
  c.importer().define(n->output(0), std::move(out));
}

// Frames of `x` [batch, length, parts], `taps` samples every `step`, as [batch * frames,
// taps * parts]: with g = gcd(taps, step) the signal is cut into g-sample blocks, and frame f
// is blocks f * step / g ... (f * step + taps) / g - 1, so taps / g strided slices of the blocks
// side by side make every frame (no gather). nullopt when that would take more than 64 slices.
std::optional<Value> framed(Builder& b, Value x, int64_t taps, int64_t step, int64_t frames) {
  const Shape s = b.type(x).shape;
  const int64_t g = std::gcd(taps, step), parts = s[2];
  if (taps / g > 64) return std::nullopt;
  const int64_t used = (frames - 1) * step + taps;
  if (used < s[1]) x = b.slice(x, {0, 0, 0}, {s[0], used, parts});
  x = b.reshape(x, {s[0], used / g, g * parts});
  std::vector<Value> slices;
  for (int64_t j = 0; j < taps / g; ++j)
    slices.push_back(b.slice(x, {0, j, 0}, {s[0], j + (frames - 1) * (step / g) + 1, g * parts},
                             {1, step / g, 1}));
  Value f = slices.size() == 1 ? slices[0] : b.concat(slices, 2);
  return b.reshape(f, {s[0] * frames, taps * parts});
}

// Checks the trailing real/complex dim of input 0 and returns it (1 or 2).
int64_t complex_parts(NodeContext& c, const Shape& s, std::string_view what) {
  if (s.rank() < 2 || (s[s.rank() - 1] != 1 && s[s.rank() - 1] != 2))
    c.fail(fmt::format("expected the {} to end in a dim of 1 (real) or 2 (complex), got shape {}",
                       what, s.str()));
  return s[s.rank() - 1];
}

// The frequencies a transform of length `period` keeps: all, or half and one when `onesided`
// (the rest mirror them for a real signal).
int64_t bins_of(NodeContext& c, int64_t period, int64_t parts, bool onesided) {
  if (onesided && parts == 2)
    c.fail("expected a real signal (last dim 1) with 'onesided' 1: a complex signal's spectrum "
           "has no symmetry to drop half of");
  return onesided ? period / 2 + 1 : period;
}

// Output 0 as a window function of input 0 (its size): sum_j a_j cos(2 pi j n / N), N the size
// (periodic) or the size less one (symmetric, 'periodic' 0).
void set_cosine_window(NodeContext& c, std::span<const double> coefficients) {
  int64_t size = static_int(c, 0, "size");
  if (size < 1 || size > kMaxHostElements)
    c.fail(fmt::format("expected a 'size' from 1 to {}, got {}", kMaxHostElements, size));
  int64_t period = c.attr_int("periodic", 1) != 0 ? size : size - 1;
  std::vector<double> v(static_cast<size_t>(size));
  for (int64_t n = 0; n < size; ++n) {
    double sum = 0;
    for (size_t j = 0; j < coefficients.size(); ++j) {
      // A one-point symmetric window (period 0) is its n = 0 value.
      double theta = period == 0 ? 0.0
                                 : 2.0 * std::numbers::pi * static_cast<double>(j) *
                                       static_cast<double>(n) / static_cast<double>(period);
      sum += coefficients[j] * std::cos(theta);
    }
    v[static_cast<size_t>(n)] = sum;
  }
  auto type = static_cast<int32_t>(c.attr_int("output_datatype", TP::FLOAT));
  if (!dtype_of(type)) c.fail(fmt::format("unsupported 'output_datatype' {}", type));
  c.set_static_output(0, host(type, {size}, std::move(v)));
}

} // namespace

void convert_dft(NodeContext& c) {
  Builder& b = c.builder();
  const Shape s = c.input_shape(0);
  const int64_t parts = complex_parts(c, s, "input");
  const int64_t rank = s.rank();
  // Opset 20 moved the axis to input 2 (default -2, the dim before the real/imaginary one).
  const int64_t axis =
      c.opset() >= 20 ? norm_axis(c.has_input(2) ? static_int(c, 2, "axis") : -2, rank, "'axis'")
                      : norm_axis(c.attr_int("axis", 1), rank, "'axis'");
  if (axis == rank - 1)
    c.fail("expected 'axis' to name a signal dim, not the last (real/imaginary) one");
  const int64_t taps = s[axis];
  int64_t period = taps;
  if (c.has_input(1)) {
    period = static_int(c, 1, "dft_length");
    if (period < 1) c.fail(fmt::format("expected a positive 'dft_length', got {}", period));
  }
  const bool inverse = c.attr_int("inverse", 0) != 0, onesided = c.attr_int("onesided", 0) != 0;
  if (inverse && onesided) c.fail("expected 'onesided' 0 for an inverse transform");
  const int64_t bins = bins_of(c, period, parts, onesided);
  if (bins * 2 * taps * parts > kMaxHostElements)
    c.fail(fmt::format("a length-{} transform of {} samples needs a {}x{} basis, more than {} "
                       "elements",
                       period, taps, taps * parts, bins * 2, kMaxHostElements));

  // The signal dim beside the real/imaginary dim, everything else in front: [..., taps, parts]
  // -> [rest, taps * parts] x basis [taps * parts, bins * 2] -> [..., bins, 2].
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank - 1; ++d)
    if (d != axis) perm.push_back(d);
  perm.push_back(axis);
  perm.push_back(rank - 1);
  Value x = c.operand(0);
  const bool moved = axis != rank - 2;
  if (moved) x = b.permute(x, perm);
  std::vector<int64_t> front(perm.begin(), perm.end() - 2);
  int64_t rest = 1;
  std::vector<int64_t> out_dims;
  for (int64_t d : front) {
    rest *= s[d];
    out_dims.push_back(s[d]);
  }
  x = b.reshape(x, {rest, taps * parts});
  Value planar = spectrum(b, x, fourier_basis(TP::FLOAT, period, taps, parts, bins, inverse, {}));
  Value y = interleaved(b, planar, out_dims, bins);
  if (moved) {
    std::vector<int64_t> back(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      back[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
    y = b.permute(y, back);
  }
  c.set_output(0, y);
  // The power's dims are the output's only when the signal dim was not moved.
  if (!moved) set_power_if_only_use(c, planar, out_dims, bins);
}

void convert_stft(NodeContext& c) {
  Builder& b = c.builder();
  const Shape s = c.input_shape(0);
  const int64_t parts = complex_parts(c, s, "signal");
  if (s.rank() != 3)
    c.fail(fmt::format("expected a signal of shape [batch, length, 1 or 2], got {}", s.str()));
  const int64_t step = static_int(c, 1, "frame_step");
  if (step < 1) c.fail(fmt::format("expected a positive 'frame_step', got {}", step));
  const bool has_window = c.has_input(2), has_length = c.has_input(3);
  if (!has_window && !has_length) c.fail("expected a 'window' or a 'frame_length'");
  int64_t length = 0;
  if (has_window) {
    Shape w = c.input_shape(2);
    if (w.rank() != 1) c.fail(fmt::format("expected a 1-D 'window', got shape {}", w.str()));
    length = w[0];
  }
  if (has_length) {
    int64_t l = static_int(c, 3, "frame_length");
    if (has_window && l != length)
      c.fail(fmt::format("expected 'frame_length' {} to equal the window's length {}", l, length));
    length = l;
  }
  if (length < 1 || length > s[1])
    c.fail(fmt::format("expected a frame length from 1 to the signal's {}, got {}", s[1], length));
  const int64_t bins = bins_of(c, length, parts, c.attr_int("onesided", 1) != 0);
  if (bins * 2 * length * parts > kMaxHostElements)
    c.fail(fmt::format("a length-{} frame needs a {}x{} basis, more than {} elements", length,
                       bins * 2, length * parts, kMaxHostElements));
  // A window known at import is folded into the basis; a runtime one scales the samples.
  std::vector<double> window;
  const bool runtime_window = has_window && !c.input_static(2);
  if (has_window && !runtime_window) window = c.input(2).data->values;
  HostTensor basis = fourier_basis(TP::FLOAT, length, length, parts, bins, false, window);
  const int64_t frames = (s[1] - length) / step + 1;
  const DType dtype = b.type(c.operand(0)).dtype;
  Value y;
  if (std::optional<Value> f = framed(b, c.operand(0), length, step, frames)) {
    Value x = *f;
    if (runtime_window) {
      Value w = b.broadcast(b.reshape(c.operand(2), {length, 1}), Shape{length, parts});
      x = b.multiply(x, b.reshape(w, {1, length * parts}));
    }
    y = spectrum(b, x, basis);
  } else {
    // Frames far apart relative to their common divisor with the frame length (taps / g past
    // 64 slices): a 1 x length conv strided by the step, one filter per bin and part.
    const int64_t to_conv[] = {0, 2, 1};
    basis = host_permute(basis, to_conv);
    basis.dims = {bins * 2, parts, 1, length};
    Value weight = b.constant(to_tensor(basis, dtype));
    if (runtime_window) weight = b.multiply(weight, b.reshape(c.operand(2), {1, 1, 1, length}));
    Value x = b.reshape(b.permute(c.operand(0), {0, 2, 1}), {s[0], parts, 1, s[1]});
    Conv2dOptions o;
    o.stride = {1, step};
    // [batch, 2 * bins, 1, frames] -> [batch * frames, 2 * bins].
    y = b.reshape(b.permute(b.conv2d(x, weight, o), {0, 3, 2, 1}), {s[0] * frames, bins * 2});
  }
  c.set_output(0, interleaved(b, y, {s[0], frames}, bins));
  set_power_if_only_use(c, y, {s[0], frames}, bins);
}

void convert_window(NodeContext& c) {
  const std::string& op = c.node().op_type();
  if (op == "HannWindow") {
    const double a[] = {0.5, -0.5};
    set_cosine_window(c, a);
  } else if (op == "HammingWindow") {
    const double a[] = {25.0 / 46.0, -21.0 / 46.0};
    set_cosine_window(c, a);
  } else {
    const double a[] = {0.42, -0.5, 0.08};
    set_cosine_window(c, a);
  }
}

void convert_mel_weight_matrix(NodeContext& c) {
  const int64_t mels = static_int(c, 0, "num_mel_bins");
  const int64_t dft_length = static_int(c, 1, "dft_length");
  const int64_t rate = static_int(c, 2, "sample_rate");
  const double lower = static_scalar(c, 3, "lower_edge_hertz"),
               upper = static_scalar(c, 4, "upper_edge_hertz");
  if (mels < 1 || dft_length < 1 || rate < 1)
    c.fail(fmt::format("expected positive 'num_mel_bins', 'dft_length' and 'sample_rate', got {}, "
                       "{} and {}",
                       mels, dft_length, rate));
  if (!(lower >= 0 && lower < upper && std::isfinite(upper)))
    c.fail(fmt::format("expected 0 <= lower_edge_hertz < upper_edge_hertz, got {} and {}", lower,
                       upper));
  const int64_t spectrum = dft_length / 2 + 1;
  if (mels > kMaxHostElements / spectrum)
    c.fail(fmt::format("expected a smaller matrix than {} x {}", spectrum, mels));
  // mels + 2 edges evenly spaced in mel (2595 log10(1 + f / 700)), each as the DFT bin at or
  // below it: floor((dft_length + 1) f / sample_rate), as ONNX's reference computes it.
  auto mel = [](double f) { return 2595.0 * std::log10(1.0 + f / 700.0); };
  const double low = mel(lower), step = (mel(upper) - low) / static_cast<double>(mels + 2);
  std::vector<int64_t> edge(static_cast<size_t>(mels + 2));
  for (int64_t i = 0; i < mels + 2; ++i) {
    double f = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + low) / 2595.0) - 1.0);
    edge[static_cast<size_t>(i)] = static_cast<int64_t>(
        std::floor(static_cast<double>(dft_length + 1) * f / static_cast<double>(rate)));
  }
  // Triangles: rising from the left edge to 1 at the centre, falling to 0 at the right edge.
  std::vector<double> m(static_cast<size_t>(spectrum * mels), 0.0);
  auto at = [&](int64_t bin, int64_t i) -> double& {
    if (bin < 0 || bin >= spectrum)
      c.fail(fmt::format("mel band {} reaches DFT bin {}, past the {} bins of a length-{} DFT "
                         "(is upper_edge_hertz above half the sample rate?)",
                         i, bin, spectrum, dft_length));
    return m[static_cast<size_t>(bin * mels + i)];
  };
  for (int64_t i = 0; i < mels; ++i) {
    int64_t left = edge[static_cast<size_t>(i)], centre = edge[static_cast<size_t>(i + 1)],
            right = edge[static_cast<size_t>(i + 2)];
    if (centre == left) {
      at(centre, i) = 1;
    } else {
      for (int64_t j = left; j <= centre; ++j)
        at(j, i) = static_cast<double>(j - left) / static_cast<double>(centre - left);
    }
    for (int64_t j = centre; j < right; ++j)
      at(j, i) = static_cast<double>(right - j) / static_cast<double>(right - centre);
  }
  auto type = static_cast<int32_t>(c.attr_int("output_datatype", TP::FLOAT));
  if (!dtype_of(type)) c.fail(fmt::format("unsupported 'output_datatype' {}", type));
  c.set_static_output(0, host(type, {spectrum, mels}, std::move(m)));
}

} // namespace tilesat::onnx
