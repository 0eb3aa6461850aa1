// runtime_indices.cpp: GatherElements and ScatterElements whose indices are runtime values
// (a router's TopK indices scattering its weights, as a mixture of experts does), as one-hot
// comparisons: a dim is inserted beside the axis so each index meets every position along it,
// onehot[.., k, j, ..] = (indices[.., k, ..] == j), and the result is a sum over one of the
// two. The intermediate has indices-extent x axis-extent elements per other position.
// ReverseSequence is such a gather along time, its indices computed from runtime lengths.
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
  Value negative = b.less(idx, f(0));
  idx = b.add(idx, b.multiply(negative, f(static_cast<double>(n))));
  int64_t rank = b.type(idx).shape.rank();
  Value expanded = insert_dim(b, idx, axis + 1);
  return b.equal(expanded, iota(b, n, axis + 1, rank + 1, DType::F32));
}

Value back_to(Builder& b, Value v, DType d) {
  return d == DType::F32 ? v : b.typecast(v, d);
}

// out[.., k, ..] = data[.., indices[.., k, ..], ..] along `axis`: the sum over j of
// onehot[.., k, j, ..] * data[.., j, ..].
Value gather_along(Builder& b, Value data, Value indices, int64_t axis) {
  TensorType t = b.type(data);
  Value hot = one_hot(b, indices, axis, t.shape[axis]);
  Value picked = b.multiply(hot, insert_dim(b, in_f32(b, data), axis));
  return back_to(b, b.sum(picked, ReduceOptions{{axis + 1}, false}), t.dtype);
}

} // namespace

void gather_elements_runtime(NodeContext& c) {
  Builder& b = c.builder();
  Value data = c.operand(0), indices = c.operand(1);
  int64_t axis = checked_axis(c, b.type(data).shape, b.type(indices).shape);
  c.set_output(0, gather_along(b, data, indices, axis));
}

void convert_reverse_sequence(NodeContext& c) {
  // Along the time axis, batch entry i reads step len_i - 1 - t for t < len_i and t after:
  // index t + (t < len) (len - 1 - 2t), the same for every other dim, gathered one-hot.
  Builder& b = c.builder();
  Value x = c.operand(0);
  const Shape s = b.type(x).shape;
  if (s.rank() < 2) c.fail(fmt::format("expected an input of rank 2 or more, got {}", s.str()));
  const int64_t time = c.attr_int("time_axis", 0), batch = c.attr_int("batch_axis", 1);
  if (!((time == 0 && batch == 1) || (time == 1 && batch == 0)))
    c.fail(fmt::format("expected time_axis and batch_axis 0 and 1 (either way), got {} and {}",
                       time, batch));
  if (c.input_shape(1) != Shape{s[batch]})
    c.fail(fmt::format("expected 'sequence_lens' of shape [{}], got {}", s[batch],
                       c.input_shape(1).str()));
  std::vector<int64_t> lens_dims(static_cast<size_t>(s.rank()), 1);
  lens_dims[static_cast<size_t>(batch)] = s[batch];
  Value len = b.reshape(in_f32(b, operand_like(c, 1, DType::F32, false)), lens_dims);
  Value t = iota(b, s[time], time, s.rank(), DType::F32);
  auto f = [&](double v) { return b.scalar(v, DType::F32); };
  Value last = b.subtract(len, f(1));
  Value flip = b.subtract(last, b.multiply(t, f(2)));
  Value index = b.add(t, b.multiply(b.less(t, len), flip));
  c.set_output(0, gather_along(b, x, b.broadcast(index, s), time));
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
  Value y;
  if (reduction == "add") {
    y = b.add(x, added);
  } else {
    Value one = b.scalar(1, DType::F32);
    Value hits = b.sum(hot, over_k);
    Value landed = b.minimum(hits, b.scalar(1, DType::F32));
    y = b.add(b.multiply(x, b.subtract(one, landed)), added);
  }
  c.set_output(0, back_to(b, y, t.dtype));
}

} // namespace tilesat::onnx
