// data_movement.cpp: Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice,
// Gather and Expand, folded on the host when their data input is static.
#include "converters.h"

#include <fmt/format.h>
#include <numeric>
#include <onnx/onnx_pb.h>

namespace tilesat::onnx {

namespace {

// Output 0 is input 0 with new dims (same elements in the same order).
void set_reshaped(NodeContext& c, std::vector<int64_t> dims) {
  if (c.input_static(0)) {
    HostTensor x = *c.input(0).data;
    x.dims = std::move(dims);
    c.set_static_output(0, std::move(x));
    return;
  }
  if (c.input_shape(0).dims() == dims) {
    c.forward(0, 0);
    return;
  }
  c.set_output(0, c.builder().reshape(c.operand(0), std::move(dims)));
}

std::vector<bool> axis_set(NodeContext& c, const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<bool> set(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    int64_t n = norm_axis(a, rank, "axes");
    if (set[static_cast<size_t>(n)]) c.fail(fmt::format("expected distinct axes, got {}", a));
    set[static_cast<size_t>(n)] = true;
  }
  return set;
}

// Output `out` is the slice `dims` of input 0.
void set_slice(NodeContext& c, size_t out, const std::vector<SliceDim>& dims) {
  if (c.input_static(0)) {
    c.set_static_output(out, host_slice(*c.input(0).data, dims));
    return;
  }
  // Dims walked backwards (a negative step, as torch.flip exports) are left whole by the
  // slice and picked afterwards with a take of their indices in order.
  Shape s = c.input_shape(0);
  std::vector<int64_t> begins, ends, steps;
  std::vector<size_t> reversed;
  bool whole = true;
  for (size_t d = 0; d < dims.size(); ++d) {
    const SliceDim& sd = dims[d];
    const int64_t extent = s[static_cast<int64_t>(d)];
    if (sd.step < 0 && sd.count > 1) {
      reversed.push_back(d);
      begins.push_back(0);
      ends.push_back(extent);
      steps.push_back(1);
      continue;
    }
    int64_t step = sd.step < 0 ? 1 : sd.step;
    begins.push_back(sd.start);
    ends.push_back(sd.count == 0 ? sd.start : sd.start + (sd.count - 1) * step + 1);
    steps.push_back(step);
    whole = whole && sd.start == 0 && sd.count == extent && step == 1;
  }
  if (whole && reversed.empty() && out == 0 && c.num_outputs() == 1) {
    c.forward(0, 0);
    return;
  }
  Builder& b = c.builder();
  Value y = c.operand(0);
  bool unit = std::all_of(steps.begin(), steps.end(), [](int64_t v) { return v == 1; });
  if (!whole) y = b.slice(y, begins, ends, unit ? std::vector<int64_t>{} : steps);
  for (size_t d : reversed) {
    const SliceDim& sd = dims[d];
    std::vector<double> idx(static_cast<size_t>(sd.count));
    for (int64_t i = 0; i < sd.count; ++i)
      idx[static_cast<size_t>(i)] = static_cast<double>(sd.start + i * sd.step);
    y = b.take(y, b.constant(Shape{sd.count}, std::move(idx), DType::I32), static_cast<int64_t>(d));
  }
  c.set_output(out, y);
}

} // namespace

void convert_reshape(NodeContext& c) {
  std::vector<int64_t> shape = c.input_data(1, "shape").ints();
  bool allow_zero = c.attr_int("allowzero", 0) != 0;
  set_reshaped(c, reshape_dims(c.input_shape(0).dims(), shape, allow_zero));
}

void convert_flatten(NodeContext& c) {
  std::vector<int64_t> in = c.input_shape(0).dims();
  auto rank = static_cast<int64_t>(in.size());
  int64_t axis = c.attr_int("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) {
    c.fail(fmt::format("expected 'axis' in [{}, {}], got {}", -rank, rank, c.attr_int("axis", 1)));
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= in[static_cast<size_t>(d)];
  set_reshaped(c, {outer, inner});
}

void convert_squeeze(NodeContext& c) {
  std::vector<int64_t> in = c.input_shape(0).dims();
  auto rank = static_cast<int64_t>(in.size());
  std::optional<std::vector<int64_t>> axes = axes_of(c, 13, 1);
  std::vector<bool> drop(in.size(), false);
  if (axes) {
    drop = axis_set(c, *axes, rank);
  } else {
    for (size_t d = 0; d < in.size(); ++d) drop[d] = in[d] == 1;
  }
  std::vector<int64_t> out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (drop[d] && in[d] != 1) c.fail(fmt::format("expected dim {} to be 1, got {}", d, in[d]));
    if (!drop[d]) out.push_back(in[d]);
  }
  set_reshaped(c, std::move(out));
}

void convert_unsqueeze(NodeContext& c) {
  std::vector<int64_t> in = c.input_shape(0).dims();
  std::optional<std::vector<int64_t>> axes = axes_of(c, 13, 1);
  if (!axes) c.fail("expected 'axes', got none");
  auto rank = static_cast<int64_t>(in.size() + axes->size());
  std::vector<bool> add = axis_set(c, *axes, rank);
  std::vector<int64_t> out;
  size_t k = 0;
  for (size_t d = 0; d < add.size(); ++d) out.push_back(add[d] ? 1 : in[k++]);
  set_reshaped(c, std::move(out));
}

void convert_transpose(NodeContext& c) {
  auto rank = c.input_shape(0).rank();
  std::vector<int64_t> rev(static_cast<size_t>(rank));
  std::iota(rev.rbegin(), rev.rend(), 0);
  std::vector<int64_t> perm = c.attr_ints("perm", rev);
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  bool ok = static_cast<int64_t>(perm.size()) == rank;
  for (size_t i = 0; ok && i < perm.size(); ++i) {
    ok = perm[i] >= 0 && perm[i] < rank && !seen[static_cast<size_t>(perm[i])];
    if (ok) seen[static_cast<size_t>(perm[i])] = true;
  }
  if (!ok) c.fail(fmt::format("expected 'perm' to be a permutation of [0, {})", rank));
  if (c.input_static(0)) {
    c.set_static_output(0, host_permute(*c.input(0).data, perm));
    return;
  }
  std::vector<int64_t> moved;
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) moved.push_back(static_cast<int64_t>(i));
  }
  Builder& b = c.builder();
  if (moved.empty()) {
    c.forward(0, 0);
  } else if (moved.size() == 2) {
    c.set_output(0, b.transpose(c.operand(0), moved[0], moved[1]));
  } else {
    c.set_output(0, b.permute(c.operand(0), perm));
  }
}

void convert_concat(NodeContext& c) {
  int64_t axis = c.attr_int("axis", 0);
  bool all_static = true;
  std::optional<DType> dtype;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    all_static = all_static && c.input_static(i);
    if (!c.input_static(i) && !dtype) dtype = c.input_type(i).dtype;
  }
  if (all_static) {
    std::vector<const HostTensor*> parts;
    for (size_t i = 0; i < c.num_inputs(); ++i) parts.push_back(&*c.input(i).data);
    c.set_static_output(0, host_concat(parts, axis));
    return;
  }
  std::vector<Value> parts;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    // An empty static part (a common artifact of shape arithmetic) adds nothing.
    if (c.input_static(i) && c.input(i).data.numel() == 0) continue;
    parts.push_back(operand_like(c, i, *dtype, false));
  }
  if (parts.size() == 1) {
    c.set_output(0, parts[0]);
    return;
  }
  c.set_output(0, c.builder().concat(parts, axis));
}

void convert_split(NodeContext& c) {
  std::vector<int64_t> in = c.input_shape(0).dims();
  int64_t axis = norm_axis(c.attr_int("axis", 0), static_cast<int64_t>(in.size()), "'axis'");
  int64_t extent = in[static_cast<size_t>(axis)];
  std::vector<int64_t> sizes;
  if (c.opset() < 13) {
    sizes = c.attr_ints("split", {});
  } else if (c.has_input(1)) {
    sizes = c.input_data(1, "split").ints();
  }
  auto n = static_cast<int64_t>(c.num_outputs());
  if (c.has_attr("num_outputs") && c.attr_int("num_outputs", 0) != n)
    c.fail(fmt::format("expected 'num_outputs' to be the {} outputs, got {}", n,
                       c.attr_int("num_outputs", 0)));
  if (sizes.empty()) {
    int64_t each = (extent + n - 1) / n;
    for (int64_t i = 0; i < n; ++i) sizes.push_back(std::min(each, extent - i * each));
  }
  if (static_cast<int64_t>(sizes.size()) != n) {
    c.fail(fmt::format("expected {} split sizes (one per output), got {}", n, sizes.size()));
  }
  int64_t start = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0 || start + sizes[i] > extent) {
      c.fail(fmt::format("expected split sizes that sum to {}, got [{}]", extent,
                         fmt::join(sizes, ", ")));
    }
    std::vector<SliceDim> dims;
    for (int64_t d : in) dims.push_back(SliceDim{0, d, 1});
    dims[static_cast<size_t>(axis)] = SliceDim{start, sizes[i], 1};
    set_slice(c, i, dims);
    start += sizes[i];
  }
  if (start != extent) {
    c.fail(fmt::format("expected split sizes that sum to {}, got [{}]", extent,
                       fmt::join(sizes, ", ")));
  }
}

void convert_slice(NodeContext& c) {
  std::vector<int64_t> starts = c.input_data(1, "starts").ints();
  std::vector<int64_t> ends = c.input_data(2, "ends").ints();
  std::vector<int64_t> axes, steps;
  if (c.has_input(3)) axes = c.input_data(3, "axes").ints();
  if (c.has_input(4)) steps = c.input_data(4, "steps").ints();
  set_slice(c, 0, slice_dims(c.input_shape(0).dims(), starts, ends, axes, steps));
}

void convert_gather(NodeContext& c) {
  int64_t axis = c.attr_int("axis", 0);
  if (c.input_static(0) && c.input_static(1)) {
    c.set_static_output(0, host_take(*c.input(0).data, *c.input(1).data, axis));
    return;
  }
  Builder& b = c.builder();
  Value data = c.operand(0);
  Value indices;
  if (c.input(1).data) {
    // Indices known at import time: checked here, so a bad index names this node.
    const HostTensor& idx = *c.input(1).data;
    Shape s = b.type(data).shape;
    int64_t a = norm_axis(axis, s.rank(), "'axis'");
    for (int64_t i : idx.ints()) {
      if (i < -s[a] || i >= s[a]) {
        c.fail(fmt::format("expected indices in [{}, {}), got {}", -s[a], s[a], i));
      }
    }
    indices = b.constant(to_tensor(idx, DType::I32));
  } else {
    indices = c.operand(1);
  }
  c.set_output(0, b.take(data, indices, axis));
}

void convert_expand(NodeContext& c) {
  std::vector<int64_t> shape = c.input_data(1, "shape").ints();
  std::vector<int64_t> in = c.input_shape(0).dims();
  std::optional<Shape> out = broadcast_shapes(Shape(in), Shape(shape));
  if (!out) {
    c.fail(fmt::format("expected a shape that broadcasts with [{}], got [{}]", fmt::join(in, ", "),
                       fmt::join(shape, ", ")));
  }
  if (c.input_static(0)) {
    const HostTensor& x = *c.input(0).data;
    if (out->numel() > kMaxHostElements) c.fail("expected a smaller folded tensor");
    HostTensor zeros = host(x.elem_type, out->dims(), {});
    zeros.values.assign(static_cast<size_t>(out->numel()), 0.0);
    c.set_static_output(0, host_binary(
                               x, zeros, [](double a, double) { return a; }, x.elem_type));
    return;
  }
  if (out->dims() == in) {
    c.forward(0, 0);
    return;
  }
  c.set_output(0, c.builder().broadcast(c.operand(0), *out));
}

} // namespace tilesat::onnx
