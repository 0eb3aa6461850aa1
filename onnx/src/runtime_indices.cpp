// runtime_indices.cpp: GatherElements and ScatterElements whose indices are runtime values
// (a router's TopK indices scattering its weights, as a mixture of experts does), as one-hot
// comparisons: a dim is inserted beside the axis so each index meets every position along it,
// onehot[.., k, j, ..] = (indices[.., k, ..] == j), and the result is a sum over one of the
// two. The intermediate has indices-extent x axis-extent elements per other position.
#include "converters.h"

#include <fmt/format.h>

namespace tilesat::onnx {
namespace {

// `v` with an extent-1 dim inserted at `at`.
Value insert_dim(Builder& b, Value v, int64_t at) {
  std::vector<int64_t> dims = b.type(v).shape.dims();
  dims.insert(dims.begin() + at, 1);
  return b.reshape(v, dims);
}

// The checks both ops share; returns the axis.
int64_t checked_axis(NodeContext& c, const Shape& data, const Shape& indices) {
  int64_t rank = data.rank();
  int64_t axis = norm_axis(c.attr_int("axis", 0), std::max<int64_t>(rank, 1), "'axis'");
  if (indices.rank() != rank)
    c.fail(fmt::format("expected indices of rank {}, got {}", rank, indices.rank()));
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && indices[d] != data[d])
      c.fail(fmt::format("expected runtime indices to match the data's dim {} ({}), got {} (a "
                         "smaller extent needs the indices known at import)",
                         d, data[d], indices[d]));
  return axis;
}

// onehot[.., k, j, ..] (k at `axis`, j at axis + 1) in f32: whether indices[.., k, ..] (negative
// ones counting from the end) is j, for j in [0, n).
Value one_hot(Builder& b, Value indices, int64_t axis, int64_t n) {
  auto f = [&](double v) { return b.scalar(v, DType::F32); };
  Value idx = b.typecast(indices, DType::F32);
  idx = b.add(idx, b.multiply(b.less(idx, f(0)), f(static_cast<double>(n))));
  int64_t rank = b.type(idx).shape.rank();
  return b.equal(insert_dim(b, idx, axis + 1), iota(b, n, axis + 1, rank + 1, DType::F32));
}

Value back_to(Builder& b, Value v, DType d) {
  return d == DType::F32 ? v : b.typecast(v, d);
}

} // namespace

void gather_elements_runtime(NodeContext& c) {
  // out[.., k, ..] = sum over j of onehot[.., k, j, ..] * data[.., j, ..].
  Builder& b = c.builder();
  Value data = c.operand(0);
  TensorType t = b.type(data);
  Value indices = c.operand(1);
  int64_t axis = checked_axis(c, t.shape, b.type(indices).shape);
  Value hot = one_hot(b, indices, axis, t.shape[axis]);
  Value picked = b.multiply(hot, insert_dim(b, in_f32(b, data), axis));
  Value y = b.sum(picked, ReduceOptions{{axis + 1}, false});
  c.set_output(0, back_to(b, y, t.dtype));
}

void scatter_elements_runtime(NodeContext& c) {
  // Sums over k: hits[.., j, ..] of onehot, and added[.., j, ..] of onehot * updates[.., k, ..];
  // 'none' keeps data where nothing lands (ONNX leaves repeated indices undefined; here they
  // add), 'add' adds to data.
  Builder& b = c.builder();
  Value data = c.operand(0);
  TensorType t = b.type(data);
  Value indices = c.operand(1);
  Shape is = b.type(indices).shape;
  int64_t axis = checked_axis(c, t.shape, is);
  if (c.input_shape(2) != is) c.fail("expected updates of the indices' shape");
  std::string reduction = c.attr_string("reduction", "none");
  if (reduction != "none" && reduction != "add")
    c.fail(fmt::format("expected reduction 'none' or 'add' with runtime indices, got '{}'",
                       reduction));
  Value hot = one_hot(b, indices, axis, t.shape[axis]);
  Value updates = insert_dim(b, in_f32(b, operand_like(c, 2, DType::F32, false)), axis + 1);
  ReduceOptions over_k{{axis}, false};
  Value added = b.sum(b.multiply(hot, updates), over_k);
  Value x = in_f32(b, data);
  Value y =
      reduction == "add"
          ? b.add(x, added)
          : b.add(b.multiply(x, b.subtract(b.scalar(1, DType::F32),
                                           b.minimum(b.sum(hot, over_k), b.scalar(1, DType::F32)))),
                  added);
  c.set_output(0, back_to(b, y, t.dtype));
}

} // namespace tilesat::onnx
