// matmul.cpp: matrix products (matmul, linear) with NumPy batching and transposed operands.
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

// Output rows and columns one pass over a block of B accumulates: 4 rows x 512 double
// accumulators (16 KiB) stay in the L1 cache while the B panel (K x 512 floats) is reused by
// every group of rows.
constexpr int64_t kRowBlock = 4;
constexpr int64_t kColBlock = 512;

// acc[r * kColBlock + c] += a_rows[r][p] * b[p][c] for p in [0, k), in that order: each output
// element is summed exactly as the plain triple loop sums it (in double, p ascending), so the
// blocking changes the speed, not one bit of the result. GCC compiles an AVX2 clone too
// (mul and add stay separate instructions: no FMA, so no change in rounding).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
void accumulate_block(double* acc, const float* const* a_rows, int64_t a_step, int64_t rows,
                      const float* b, int64_t b_step, int64_t cols, int64_t k) {
  for (int64_t p = 0; p < k; ++p) {
    const float* brow = b + p * b_step;
    for (int64_t r = 0; r < rows; ++r) {
      const double av = static_cast<double>(a_rows[r][p * a_step]);
      double* ac = acc + r * kColBlock;
      for (int64_t c = 0; c < cols; ++c) ac[c] += av * static_cast<double>(brow[c]);
    }
  }
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
  // B of the current batch as a row-major k x n matrix (repacked only when the batch moves to
  // another B), and the accumulators of one block of the output.
  std::vector<float> packed(static_cast<size_t>(l.k * l.n));
  std::vector<double> acc(static_cast<size_t>(kRowBlock * kColBlock));
  int64_t packed_off = -1;
  const float* a_data = a.data().data();
  for (size_t bi = 0; bi < a_off.size(); ++bi) {
    if (b_off[bi] != packed_off) {
      for (int64_t p = 0; p < l.k; ++p)
        for (int64_t j = 0; j < l.n; ++j)
          packed[static_cast<size_t>(p * l.n + j)] =
              b[b_off[bi] + (tb ? j * b_cols + p : p * b_cols + j)];
      packed_off = b_off[bi];
    }
    float* o = out.data().data() + static_cast<int64_t>(bi) * l.m * l.n;
    // Row i of A, element p, is at a_rows[i][p * a_step].
    const int64_t a_step = ta ? a_cols : 1;
    for (int64_t i0 = 0; i0 < l.m; i0 += kRowBlock) {
      const int64_t rows = std::min(kRowBlock, l.m - i0);
      const float* a_rows[kRowBlock];
      for (int64_t r = 0; r < rows; ++r)
        a_rows[r] = a_data + a_off[bi] + (ta ? i0 + r : (i0 + r) * a_cols);
      for (int64_t j0 = 0; j0 < l.n; j0 += kColBlock) {
        const int64_t cols = std::min(kColBlock, l.n - j0);
        std::fill(acc.begin(), acc.end(), 0.0);
        accumulate_block(acc.data(), a_rows, a_step, rows, packed.data() + j0, l.n, cols, l.k);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c)
            o[(i0 + r) * l.n + j0 + c] =
                static_cast<float>(acc[static_cast<size_t>(r * kColBlock + c)]);
      }
    }
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
