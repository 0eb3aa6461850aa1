// padding_masks.cpp: Pad, Trilu, HardSigmoid, HardSwish, and the index and mask arithmetic
// exporters build from Mod, Not and ScatterND. Each is expressed in ops the device runs
// (concat, full, take, where, multiply, ...) or, for the index and mask ops, folded at import
// time, so a model using them still plans, lowers and runs.
#include "converters.h"

#include <cmath>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

namespace tilesat::onnx {

namespace {

constexpr int32_t kBool = ::onnx::TensorProto::BOOL;

// The index, along a dim of extent n, that padded position i (in [-before, n + after)) reads
// in `mode` ("edge" or "reflect").
int64_t source_index(int64_t i, int64_t n, const std::string& mode) {
  if (mode == "edge") return std::clamp<int64_t>(i, 0, n - 1);
  // reflect: mirror at the first and last element without repeating them.
  int64_t period = 2 * (n - 1);
  int64_t j = ((i % period) + period) % period;
  return j < n ? j : period - j;
}

double hard_sigmoid(double x, double alpha, double beta) {
  return std::min(std::max(alpha * x + beta, 0.0), 1.0);
}

} // namespace

Value hard_sigmoid(Builder& b, Value x, double alpha, double beta) {
  DType d = b.type(x).dtype;
  Value scaled = b.multiply(x, b.scalar(alpha, d));
  Value y = b.add(scaled, b.scalar(beta, d));
  Value positive = b.relu(y);
  return b.minimum(positive, b.scalar(1.0, d));
}

Value pad_constant(Builder& b, Value x, int64_t axis, int64_t before, int64_t after, double value) {
  if (before == 0 && after == 0) return x;
  TensorType t = b.type(x);
  auto filler = [&](int64_t extent) {
    std::vector<int64_t> d = t.shape.dims();
    d[static_cast<size_t>(axis)] = extent;
    return b.full(Shape(d), value, t.dtype);
  };
  std::vector<Value> parts;
  if (before > 0) parts.push_back(filler(before));
  parts.push_back(x);
  if (after > 0) parts.push_back(filler(after));
  return b.concat(parts, axis);
}

void convert_pad(NodeContext& c) {
  std::string mode = c.attr_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    c.fail(fmt::format("expected 'mode' to be constant, reflect or edge, got '{}'", mode));
  std::vector<int64_t> pads = c.input_data(1, "pads").ints();
  const Shape shape = c.input_shape(0);
  const int64_t rank = shape.rank();
  // Opset 18's optional axes (input 3) say which dims the pads are for.
  std::vector<int64_t> axes;
  if (c.has_input(3)) {
    for (int64_t a : c.input_data(3, "axes").ints()) axes.push_back(norm_axis(a, rank, "'axes'"));
  } else {
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  if (static_cast<int64_t>(pads.size()) != 2 * static_cast<int64_t>(axes.size()))
    c.fail(fmt::format("expected {} pads (begin and end of {} dims), got {}", 2 * axes.size(),
                       axes.size(), pads.size()));
  double value = 0;
  if (c.has_input(2)) {
    const HostTensor& v = c.input_data(2, "constant_value");
    if (v.numel() != 1) c.fail(fmt::format("expected one constant_value, got {}", v.numel()));
    value = v.values[0];
  }
  Builder& b = c.builder();
  Value x = c.operand(0);
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t axis = axes[k], before = pads[k], after = pads[k + axes.size()];
    if (before == 0 && after == 0) continue;
    std::vector<int64_t> dims = b.type(x).shape.dims();
    int64_t n = dims[static_cast<size_t>(axis)];
    if (n + before + after < 0)
      c.fail(fmt::format("pads {} and {} remove more than the {} elements of dim {}", before, after,
                         n, axis));
    // Negative pads crop.
    if (before < 0 || after < 0) {
      std::vector<int64_t> begins(dims.size(), 0), ends = dims;
      begins[static_cast<size_t>(axis)] = std::max<int64_t>(-before, 0);
      ends[static_cast<size_t>(axis)] = n - std::max<int64_t>(-after, 0);
      x = b.slice(x, begins, ends);
      n = ends[static_cast<size_t>(axis)] - begins[static_cast<size_t>(axis)];
      dims[static_cast<size_t>(axis)] = n;
      before = std::max<int64_t>(before, 0);
      after = std::max<int64_t>(after, 0);
      if (before == 0 && after == 0) continue;
    }
    if (mode == "constant") {
      x = pad_constant(b, x, axis, before, after, value);
      continue;
    }
    if (n == 0) c.fail(fmt::format("cannot pad the empty dim {} in {} mode", axis, mode));
    if (mode == "reflect" && (before >= n || after >= n))
      c.fail(fmt::format("reflect pads of dim {} must be smaller than its extent {}, got {} and "
                         "{}",
                         axis, n, before, after));
    std::vector<double> index;
    for (int64_t i = -before; i < n + after; ++i)
      index.push_back(static_cast<double>(n == 1 ? 0 : source_index(i, n, mode)));
    Value idx = b.constant(Shape{static_cast<int64_t>(index.size())}, index, DType::I32);
    x = b.take(x, idx, axis);
  }
  c.set_output(0, x);
}

void convert_trilu(NodeContext& c) {
  bool upper = c.attr_int("upper", 1) != 0;
  int64_t k = 0;
  if (c.has_input(1)) {
    const HostTensor& kt = c.input_data(1, "k");
    if (kt.numel() != 1) c.fail(fmt::format("expected a one-element k, got {}", kt.numel()));
    k = kt.ints()[0];
  }
  const Shape shape = c.input_shape(0);
  if (shape.rank() < 2) c.fail(fmt::format("expected rank >= 2, got {}", shape.rank()));
  int64_t rows = shape[shape.rank() - 2], cols = shape[shape.rank() - 1];
  auto keep = [&](int64_t i, int64_t j) { return upper ? j - i >= k : j - i <= k; };
  if (c.input_static(0)) {
    HostTensor x = *c.input(0).data;
    int64_t plane = rows * cols;
    for (int64_t e = 0; e < x.numel(); ++e) {
      int64_t i = (e % plane) / cols, j = e % cols;
      if (!keep(i, j)) x.values[static_cast<size_t>(e)] = 0;
    }
    c.set_static_output(0, std::move(x));
    return;
  }
  Builder& b = c.builder();
  Value x = c.operand(0);
  DType dtype = b.type(x).dtype;
  std::vector<double> mask;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) mask.push_back(keep(i, j) ? 1.0 : 0.0);
  // where, not a product: zeroed elements must be 0 even where x is inf or NaN.
  Value cond = b.constant(Shape{rows, cols}, mask, dtype);
  c.set_output(0, b.where(cond, x, b.scalar(0.0, dtype)));
}

void convert_hard_sigmoid(NodeContext& c) {
  bool swish = c.node().op_type() == "HardSwish";
  double alpha = swish ? 1.0 / 6.0 : c.attr_float("alpha", 0.2);
  double beta = swish ? 0.5 : c.attr_float("beta", 0.5);
  if (c.input_static(0)) {
    const HostTensor& x = *c.input(0).data;
    c.set_static_output(0, host_unary(
                               x,
                               [=](double v) {
                                 double h = hard_sigmoid(v, alpha, beta);
                                 return swish ? v * h : h;
                               },
                               x.elem_type));
    return;
  }
  Builder& b = c.builder();
  Value x = c.operand(0);
  Value h = hard_sigmoid(b, x, alpha, beta);
  c.set_output(0, swish ? b.multiply(x, h) : h);
}

void convert_mod(NodeContext& c) {
  if (!c.input_static(0) || !c.input_static(1))
    c.fail("expected both inputs known at import time (Mod of runtime values is not supported; "
           "exporters use it for index arithmetic)");
  bool fmod = c.attr_int("fmod", 0) != 0;
  const HostTensor& a = *c.input(0).data;
  const HostTensor& b = *c.input(1).data;
  bool integer = a.is_integer() && b.is_integer();
  if (!integer && !fmod) c.fail("expected fmod=1 for floating-point inputs (the ONNX rule)");
  c.set_static_output(0, host_binary(
                             a, b,
                             [&](double x, double y) {
                               if (y == 0 && integer) throw Error("Mod: integer division by zero");
                               double r = std::fmod(x, y);
                               // fmod=0: the remainder takes the divisor's sign (Python's %).
                               if (!fmod && r != 0 && ((r < 0) != (y < 0))) r += y;
                               return r;
                             },
                             a.elem_type));
}

void convert_not(NodeContext& c) {
  if (!c.input_static(0))
    c.fail("expected its input known at import time (Not of runtime values is not supported)");
  const HostTensor& x = *c.input(0).data;
  c.set_static_output(0, host_unary(
                             x, [](double v) { return v == 0 ? 1.0 : 0.0; }, kBool));
}

void convert_scatter_nd(NodeContext& c) {
  if (!c.input_static(0) || !c.input_static(1) || !c.input_static(2))
    c.fail("expected data, indices and updates known at import time (ScatterND of runtime "
           "values is not supported; exporters use it to build masks)");
  if (c.attr_string("reduction", "none") != "none")
    c.fail(fmt::format("expected reduction 'none', got '{}'", c.attr_string("reduction", "")));
  HostTensor data = *c.input(0).data;
  const HostTensor& indices = *c.input(1).data;
  const HostTensor& updates = *c.input(2).data;
  if (indices.dims.empty()) c.fail("expected indices of rank >= 1");
  const int64_t q = static_cast<int64_t>(indices.dims.size());
  const int64_t depth = indices.dims.back();
  const int64_t rank = static_cast<int64_t>(data.dims.size());
  if (depth < 1 || depth > rank)
    c.fail(fmt::format("expected the last indices dim in [1, {}], got {}", rank, depth));
  // Each index tuple addresses a slice of data's trailing dims.
  int64_t slice = 1;
  for (int64_t d = depth; d < rank; ++d) slice *= data.dims[static_cast<size_t>(d)];
  int64_t tuples = 1;
  for (int64_t d = 0; d + 1 < q; ++d) tuples *= indices.dims[static_cast<size_t>(d)];
  if (updates.numel() != tuples * slice)
    c.fail(fmt::format("expected {} update values, got {}", tuples * slice, updates.numel()));
  std::vector<int64_t> idx = indices.ints();
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = 0;
    for (int64_t d = 0; d < depth; ++d) {
      int64_t extent = data.dims[static_cast<size_t>(d)];
      int64_t i = idx[static_cast<size_t>(t * depth + d)];
      if (i < -extent || i >= extent)
        c.fail(fmt::format("index {} out of range for dim {} of extent {}", i, d, extent));
      offset = offset * extent + (i < 0 ? i + extent : i);
    }
    for (int64_t e = 0; e < slice; ++e)
      data.values[static_cast<size_t>(offset * slice + e)] =
          updates.values[static_cast<size_t>(t * slice + e)];
  }
  c.set_static_output(0, std::move(data));
}

} // namespace tilesat::onnx
