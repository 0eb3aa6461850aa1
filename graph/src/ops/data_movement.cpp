// data_movement.cpp: ops that only move or copy elements: transpose, permute, broadcast,
// reshape, concat, slice, typecast.
#include "ops/op_impl.h"

#include <fmt/format.h>

namespace tilesat::ops {

namespace {

using IntList = std::vector<int64_t>;

const IntList& ints(const Attrs& attrs, std::string_view name) {
  return attrs.get<IntList>(name);
}

// Result dim i reads operand dim perm[i].
Tensor permuted(const Tensor& x, const IntList& perm, const TensorType& result) {
  std::vector<int64_t> in = x.shape().strides(), strides;
  for (int64_t p : perm) strides.push_back(in[static_cast<size_t>(p)]);
  return gather(x, result, strided_offsets(result.shape, strides));
}

IntList transpose_perm(const Attrs& attrs, int64_t rank) {
  int64_t d0 = axis_or_fail(attrs.get<int64_t>("dim0"), rank, "'dim0'");
  int64_t d1 = axis_or_fail(attrs.get<int64_t>("dim1"), rank, "'dim1'");
  IntList perm = right_aligned_dims(rank, rank);
  std::swap(perm[static_cast<size_t>(d0)], perm[static_cast<size_t>(d1)]);
  return perm;
}

IntList checked_permutation(const Attrs& attrs, int64_t rank) {
  const IntList& perm = ints(attrs, "permutation");
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  bool ok = static_cast<int64_t>(perm.size()) == rank;
  for (size_t i = 0; ok && i < perm.size(); ++i) {
    ok = perm[i] >= 0 && perm[i] < rank && !seen[static_cast<size_t>(perm[i])];
    if (ok) seen[static_cast<size_t>(perm[i])] = true;
  }
  if (!ok) {
    fail(fmt::format("expected 'permutation' to be a permutation of [0, {}), got {}", rank,
                     list_str(perm)));
  }
  return perm;
}

TensorType apply_perm(const TensorType& x, const IntList& perm) {
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(x.shape[p]);
  return TensorType{x.dtype, Shape(std::move(dims)), {}};
}

// Operand dim i -> result dim of `broadcast`, validated against the operand and result.
IntList broadcast_map(const Shape& x, const Shape& result, const IntList& dims) {
  if (dims.empty()) {
    std::optional<Shape> s = broadcast_shapes(x, result);
    if (x.rank() > result.rank() || !s || *s != result) {
      fail(fmt::format("expected an operand shape that broadcasts to {}, got {}", result.str(),
                       x.str()));
    }
    return right_aligned_dims(x.rank(), result.rank());
  }
  if (static_cast<int64_t>(dims.size()) != x.rank()) {
    fail(fmt::format("expected 'dims' to have {} entries (the operand rank), got {}", x.rank(),
                     list_str(dims)));
  }
  std::vector<bool> used(static_cast<size_t>(result.rank()), false);
  IntList map;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= result.rank() || used[static_cast<size_t>(dims[i])]) {
      fail(fmt::format("expected 'dims' to be distinct dims in [0, {}), got {}", result.rank(),
                       list_str(dims)));
    }
    used[static_cast<size_t>(dims[i])] = true;
    int64_t d = x[static_cast<int64_t>(i)];
    if (d != 1 && d != result[dims[i]]) {
      fail(fmt::format("expected operand dim {} to be 1 or {} (result dim {}), got {}", i,
                       result[dims[i]], dims[i], d));
    }
    map.push_back(dims[i]);
  }
  return map;
}

Shape reshape_target(const Shape& x, const IntList& shape) {
  IntList dims = shape;
  int64_t inferred = -1, known = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (inferred >= 0) {
        fail(fmt::format("expected at most one -1 in 'shape', got {}", list_str(shape)));
      }
      inferred = static_cast<int64_t>(i);
      continue;
    }
    if (dims[i] < 0)
      fail(fmt::format("expected extents >= -1 in 'shape', got {}", list_str(shape)));
  }
  IntList fixed = dims;
  if (inferred >= 0) fixed[static_cast<size_t>(inferred)] = 1;
  check_shape(fixed, "'shape'");
  for (int64_t d : fixed) known *= d;
  if (inferred >= 0) {
    if (known == 0 || x.numel() % known != 0) {
      fail(fmt::format("expected a 'shape' whose -1 can be inferred from {} elements, got {}",
                       x.numel(), list_str(shape)));
    }
    dims[static_cast<size_t>(inferred)] = x.numel() / known;
  }
  Shape out(std::move(dims));
  if (out.numel() != x.numel()) {
    fail(fmt::format("expected a 'shape' with {} elements, got {} ({} elements)", x.numel(),
                     list_str(shape), out.numel()));
  }
  return out;
}

// Normalized begins and steps plus the result shape of a slice.
struct SliceLayout {
  IntList begins, steps;
  Shape result;
};

SliceLayout slice_layout(const Shape& x, const Attrs& attrs) {
  const IntList& begins = ints(attrs, "begins");
  const IntList& ends = ints(attrs, "ends");
  IntList steps = ints(attrs, "step");
  auto rank = static_cast<size_t>(x.rank());
  if (steps.empty()) steps.assign(rank, 1);
  for (auto [name, list] : {std::pair{"begins", &begins}, {"ends", &ends}, {"step", &steps}}) {
    if (list->size() != rank) {
      fail(fmt::format("expected '{}' to have {} entries (the operand rank), got {}", name, rank,
                       list_str(*list)));
    }
  }
  SliceLayout l;
  IntList dims;
  for (size_t i = 0; i < rank; ++i) {
    int64_t d = x[static_cast<int64_t>(i)];
    auto norm = [&](int64_t v, const char* name) {
      if (v < -d || v > d) {
        fail(fmt::format("expected {}[{}] in [{}, {}], got {}", name, i, -d, d, v));
      }
      return v < 0 ? v + d : v;
    };
    int64_t b = norm(begins[i], "begins"), e = norm(ends[i], "ends");
    if (steps[i] <= 0) fail(fmt::format("expected step[{}] > 0, got {}", i, steps[i]));
    if (b > e) {
      fail(fmt::format("expected begins[{}] <= ends[{}], got {} and {}", i, i, begins[i], ends[i]));
    }
    l.begins.push_back(b);
    l.steps.push_back(steps[i]);
    dims.push_back((e - b + steps[i] - 1) / steps[i]);
  }
  l.result = Shape(std::move(dims));
  return l;
}

} // namespace

TensorType infer_transpose(const InferArgs& in) {
  const TensorType& x = *in.operands[0];
  return apply_perm(x, transpose_perm(in.attrs, x.shape.rank()));
}

Tensor eval_transpose(const EvalArgs& in) {
  const Tensor& x = *in.operands[0];
  return permuted(x, transpose_perm(in.attrs, x.shape().rank()), in.result);
}

TensorType infer_permute(const InferArgs& in) {
  const TensorType& x = *in.operands[0];
  return apply_perm(x, checked_permutation(in.attrs, x.shape.rank()));
}

Tensor eval_permute(const EvalArgs& in) {
  const Tensor& x = *in.operands[0];
  return permuted(x, checked_permutation(in.attrs, x.shape().rank()), in.result);
}

TensorType infer_broadcast(const InferArgs& in) {
  const TensorType& x = *in.operands[0];
  const IntList& shape = ints(in.attrs, "shape");
  check_shape(shape, "'shape'");
  broadcast_map(x.shape, Shape(shape), ints(in.attrs, "dims"));
  return TensorType{x.dtype, Shape(shape), {}};
}

Tensor eval_broadcast(const EvalArgs& in) {
  const Tensor& x = *in.operands[0];
  const Shape& r = in.result.shape;
  IntList map = broadcast_map(x.shape(), r, ints(in.attrs, "dims"));
  return gather(x, in.result, strided_offsets(r, broadcast_strides(x.shape(), r, map)));
}

TensorType infer_reshape(const InferArgs& in) {
  const TensorType& x = *in.operands[0];
  return TensorType{x.dtype, reshape_target(x.shape, ints(in.attrs, "shape")), {}};
}

Tensor eval_reshape(const EvalArgs& in) {
  return Tensor(in.result, in.operands[0]->data());
}

TensorType infer_concat(const InferArgs& in) {
  const TensorType& first = *in.operands[0];
  int64_t dim = axis_or_fail(in.attrs.get<int64_t>("dim"), first.shape.rank(), "'dim'");
  Shape out = first.shape;
  for (size_t i = 1; i < in.operands.size(); ++i) {
    const TensorType& x = *in.operands[i];
    check_same_dtype(first.dtype, x.dtype);
    bool ok = x.shape.rank() == first.shape.rank();
    for (int64_t d = 0; ok && d < x.shape.rank(); ++d)
      ok = d == dim || x.shape[d] == first.shape[d];
    if (!ok) {
      fail(fmt::format("expected operand {} to match operand 0 except in dim {}, got {} and {}", i,
                       dim, x.shape.str(), first.shape.str()));
    }
    out[dim] += x.shape[dim];
  }
  check_shape(out.dims(), "the result");
  return TensorType{first.dtype, out, {}};
}

Tensor eval_concat(const EvalArgs& in) {
  const Shape& r = in.result.shape;
  int64_t dim = axis_or_fail(in.attrs.get<int64_t>("dim"), r.rank(), "'dim'");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= r[d];
  for (int64_t d = dim + 1; d < r.rank(); ++d) inner *= r[d];
  Tensor out(in.result);
  size_t o = 0;
  for (int64_t i = 0; i < outer; ++i) {
    for (const Tensor* x : in.operands) {
      int64_t chunk = x->shape()[dim] * inner;
      for (int64_t j = 0; j < chunk; ++j) out.data()[o++] = (*x)[i * chunk + j];
    }
  }
  return out;
}

TensorType infer_slice(const InferArgs& in) {
  const TensorType& x = *in.operands[0];
  return TensorType{x.dtype, slice_layout(x.shape, in.attrs).result, {}};
}

Tensor eval_slice(const EvalArgs& in) {
  const Tensor& x = *in.operands[0];
  SliceLayout l = slice_layout(x.shape(), in.attrs);
  std::vector<int64_t> in_strides = x.shape().strides(), strides;
  int64_t base = 0;
  for (size_t d = 0; d < in_strides.size(); ++d) {
    strides.push_back(in_strides[d] * l.steps[d]);
    base += in_strides[d] * l.begins[d];
  }
  return gather(x, in.result, strided_offsets(in.result.shape, strides, base));
}

TensorType infer_typecast(const InferArgs& in) {
  return TensorType{in.attrs.get<DType>("dtype"), in.operands[0]->shape, {}};
}

Tensor eval_typecast(const EvalArgs& in) {
  return Tensor(in.result, in.operands[0]->data());
}

} // namespace tilesat::ops
