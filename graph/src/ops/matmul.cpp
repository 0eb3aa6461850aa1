// matmul.cpp: matrix products (matmul, linear) with NumPy batching and transposed operands.
#include "ops/exact_gemm.h"
#include "ops/op_impl.h"
#include "tilesat/graph/fused_body.h"

#include <algorithm>
#include <fmt/format.h>

namespace tilesat::ops {

namespace {

// How a (possibly batched, possibly transposed) matmul reads its operands.
struct MatmulLayout {
  Shape result;
  Shape batch; // broadcast batch dims
  int64_t m = 1, k = 1, n = 1;
  bool a_vector = false; // rank-1 a: one row, dropped from the result
  bool b_vector = false; // rank-1 b: one column, dropped from the result
};

MatmulLayout matmul_layout(const Shape& a, const Shape& b, bool ta, bool tb) {
  if (a.rank() < 1 || b.rank() < 1) {
    fail(fmt::format("expected operands of rank >= 1, got ranks {} and {}", a.rank(), b.rank()));
  }
  MatmulLayout l;
  l.a_vector = a.rank() == 1;
  l.b_vector = b.rank() == 1;
  // A transpose flag on a rank-1 operand has nothing to swap.
  int64_t ar = a.rank(), br = b.rank();
  int64_t a_rows = l.a_vector ? 1 : a[ar - 2], a_cols = a[ar - 1];
  if (!l.a_vector && ta) std::swap(a_rows, a_cols);
  int64_t b_rows = l.b_vector ? b[0] : b[br - 2], b_cols = l.b_vector ? 1 : b[br - 1];
  if (!l.b_vector && tb) std::swap(b_rows, b_cols);
  if (a_cols != b_rows) {
    fail(fmt::format("expected contracting dims to match, got {} and {}", a_cols, b_rows));
  }
  Shape a_batch(std::vector<int64_t>(a.begin(), a.end() - std::min<int64_t>(ar, 2)));
  Shape b_batch(std::vector<int64_t>(b.begin(), b.end() - std::min<int64_t>(br, 2)));
  std::optional<Shape> batch = broadcast_shapes(a_batch, b_batch);
  if (!batch) {
    fail(fmt::format("expected batch dims to broadcast, got {} and {}", a_batch.str(),
                     b_batch.str()));
  }
  l.batch = *batch;
  l.m = a_rows;
  l.k = a_cols;
  l.n = b_cols;
  std::vector<int64_t> dims = l.batch.dims();
  if (!l.a_vector) dims.push_back(l.m);
  if (!l.b_vector) dims.push_back(l.n);
  l.result = Shape(std::move(dims));
  return l;
}

MatmulLayout matmul_layout_of(const Shape& a, const Shape& b, const Attrs& attrs) {
  return matmul_layout(a, b, attrs.get<bool>("transpose_a"), attrs.get<bool>("transpose_b"));
}

// Strides of an operand's batch dims within the broadcast batch (0 where broadcast).
std::vector<int64_t> batch_strides(const Shape& operand, const Shape& batch) {
  int64_t nb = std::max<int64_t>(operand.rank() - 2, 0);
  Shape own(std::vector<int64_t>(operand.begin(), operand.begin() + nb));
  std::vector<int64_t> full = operand.strides();
  std::vector<int64_t> out(static_cast<size_t>(batch.rank()), 0);
  for (int64_t i = 0; i < nb; ++i) {
    if (own[i] != 1) out[static_cast<size_t>(batch.rank() - nb + i)] = full[static_cast<size_t>(i)];
  }
  return out;
}

Tensor matmul(const Tensor& a, const Tensor& b, const Attrs& attrs, const TensorType& result) {
  MatmulLayout l = matmul_layout_of(a.shape(), b.shape(), attrs);
  bool ta = attrs.get<bool>("transpose_a") && !l.a_vector;
  bool tb = attrs.get<bool>("transpose_b") && !l.b_vector;
  // Element (i, j) of a stored matrix with `cols` columns is at i * cols + j.
  int64_t a_cols = a.shape()[a.shape().rank() - 1];
  int64_t b_cols = l.b_vector ? 1 : b.shape()[b.shape().rank() - 1];
  std::vector<int64_t> a_off = strided_offsets(l.batch, batch_strides(a.shape(), l.batch));
  std::vector<int64_t> b_off = strided_offsets(l.batch, batch_strides(b.shape(), l.batch));
  Tensor out(result);
  for (size_t bi = 0; bi < a_off.size(); ++bi) {
    MatrixView av{a.data().data() + a_off[bi], ta ? 1 : a_cols, ta ? a_cols : 1};
    MatrixView bv{b.data().data() + b_off[bi], tb ? 1 : b_cols, tb ? b_cols : 1};
    MatrixOut ov{out.data().data() + static_cast<int64_t>(bi) * l.m * l.n, l.n, 1};
    exact_gemm({l.m, l.n, l.k}, av, bv, nullptr, ov);
  }
  return out;
}

} // namespace

TensorType infer_matmul(const InferArgs& in) {
  const TensorType& a = *in.operands[0];
  const TensorType& b = *in.operands[1];
  check_same_dtype(a.dtype, b.dtype);
  return TensorType{a.dtype, matmul_layout_of(a.shape, b.shape, in.attrs).result, {}};
}

Tensor eval_matmul(const EvalArgs& in) {
  return matmul(*in.operands[0], *in.operands[1], in.attrs, in.result);
}

std::optional<OpKind> activation_of(const Attrs& attrs) {
  const auto& name = attrs.get<std::string>("activation");
  if (name.empty()) return std::nullopt;
  std::optional<OpKind> k = op_by_name(name);
  if (!k || !op_info(*k).has_trait(OpTrait::ElementwiseUnary) || !fusable_in_body(*k)) {
    fail(fmt::format("expected 'activation' to be empty or an elementwise unary op, got \"{}\"",
                     name));
  }
  return k;
}

Tensor apply_activation(Tensor out, const Attrs& attrs, const TensorType& result) {
  std::optional<OpKind> act = activation_of(attrs);
  if (!act) return out;
  const Tensor* operand = &out;
  Attrs defaults = with_defaults(op_info(*act), Attrs{});
  return op_info(*act).eval(
      EvalArgs{std::span<const Tensor* const>(&operand, 1), defaults, result});
}

TensorType infer_linear(const InferArgs& in) {
  activation_of(in.attrs);
  TensorType mm = infer_matmul(in);
  if (in.operands.size() < 3) return mm;
  const TensorType& bias = *in.operands[2];
  check_same_dtype(mm.dtype, bias.dtype);
  std::optional<Shape> s = broadcast_shapes(mm.shape, bias.shape);
  if (!s || *s != mm.shape) {
    fail(fmt::format("expected a bias that broadcasts to {}, got {}", mm.shape.str(),
                     bias.shape.str()));
  }
  return mm;
}

Tensor eval_linear(const EvalArgs& in) {
  Tensor out = matmul(*in.operands[0], *in.operands[1], in.attrs, in.result);
  if (in.operands.size() == 3) {
    const Tensor& bias = *in.operands[2];
    const Shape& r = in.result.shape;
    std::vector<int64_t> offs = strided_offsets(
        r, broadcast_strides(bias.shape(), r, right_aligned_dims(bias.shape().rank(), r.rank())));
    for (size_t i = 0; i < offs.size(); ++i) out.data()[i] += bias[offs[i]];
  }
  return apply_activation(std::move(out), in.attrs, in.result);
}

} // namespace tilesat::ops
