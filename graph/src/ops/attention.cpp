// attention.cpp: scaled_dot_product_attention, softmax(q k^T * scale + mask) v per head.
#include "ops/op_impl.h"

#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace tilesat::ops {
namespace {

struct Dims {
  int64_t batch, heads, kv_heads, sq, skv, d, dv;
};

Dims attention_dims(const Shape& q, const Shape& k, const Shape& v) {
  for (const Shape* s : {&q, &k, &v})
    if (s->rank() != 4)
      fail(fmt::format("expected query, key and value of rank 4 [batch, heads, seq, head_dim], "
                       "got {}, {} and {}",
                       q.str(), k.str(), v.str()));
  Dims d{q[0], q[1], k[1], q[2], k[2], q[3], v[3]};
  if (k[0] != d.batch || v[0] != d.batch || v[1] != d.kv_heads || v[2] != d.skv)
    fail(fmt::format("expected key and value of one batch and sequence, got {} and {} for query {}",
                     k.str(), v.str(), q.str()));
  if (k[3] != d.d)
    fail(fmt::format("expected the key's head_dim {} to be the query's {}", k[3], d.d));
  if (d.kv_heads < 1 || d.heads % d.kv_heads != 0)
    fail(fmt::format("expected the query's {} heads to be a multiple of the key's {}", d.heads,
                     d.kv_heads));
  return d;
}

} // namespace

TensorType infer_attention(const InferArgs& in) {
  const TensorType &q = *in.operands[0], &k = *in.operands[1], &v = *in.operands[2];
  check_same_dtype(q.dtype, k.dtype);
  check_same_dtype(q.dtype, v.dtype);
  Dims d = attention_dims(q.shape, k.shape, v.shape);
  const std::string& kind = in.attrs.get<std::string>("mask_kind");
  if (kind != "add" && kind != "select")
    fail(fmt::format("expected 'mask_kind' \"add\" or \"select\", got \"{}\"", kind));
  if (in.operands.size() == 4) {
    Shape scores{d.batch, d.heads, d.sq, d.skv};
    std::optional<Shape> b = broadcast_shapes(in.operands[3]->shape, scores);
    if (!b || *b != scores)
      fail(fmt::format("expected a mask that broadcasts to the scores {}, got {}", scores.str(),
                       in.operands[3]->shape.str()));
  }
  return TensorType{q.dtype, Shape({d.batch, d.heads, d.sq, d.dv}), {}};
}

Tensor eval_attention(const EvalArgs& in) {
  const Tensor &q = *in.operands[0], &k = *in.operands[1], &v = *in.operands[2];
  const Tensor* mask = in.operands.size() == 4 ? in.operands[3] : nullptr;
  Dims d = attention_dims(q.shape(), k.shape(), v.shape());
  double scale = in.attrs.get<double>("scale");
  if (scale == 0) scale = 1.0 / std::sqrt(static_cast<double>(d.d));
  const bool causal = in.attrs.get<bool>("is_causal");
  const bool select = in.attrs.get<std::string>("mask_kind") == "select";
  const double fill = in.attrs.get<double>("mask_fill");
  Shape scores{d.batch, d.heads, d.sq, d.skv};
  std::vector<int64_t> mask_at;
  if (mask) {
    std::vector<int64_t> st =
        broadcast_strides(mask->shape(), scores, right_aligned_dims(mask->shape().rank(), 4));
    mask_at = strided_offsets(scores, st);
  }
  Tensor out(in.result);
  std::vector<double> s(static_cast<size_t>(d.skv));
  const int64_t group = d.heads / d.kv_heads;
  for (int64_t b = 0; b < d.batch; ++b) {
    for (int64_t h = 0; h < d.heads; ++h) {
      const int64_t hk = h / group;
      for (int64_t i = 0; i < d.sq; ++i) {
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < d.skv; ++j) {
          double dot = 0;
          for (int64_t e = 0; e < d.d; ++e)
            dot +=
                double{q.data()[static_cast<size_t>(((b * d.heads + h) * d.sq + i) * d.d + e)]} *
                double{
                    k.data()[static_cast<size_t>(((b * d.kv_heads + hk) * d.skv + j) * d.d + e)]};
          double x = dot * scale;
          if (mask) {
            double mv = mask->data()[static_cast<size_t>(
                mask_at[static_cast<size_t>(((b * d.heads + h) * d.sq + i) * d.skv + j)])];
            x = select ? (mv != 0 ? x : fill) : x + mv;
          }
          if (causal && j > i) x = -std::numeric_limits<double>::infinity();
          s[static_cast<size_t>(j)] = x;
          m = std::max(m, x);
        }
        double sum = 0;
        for (double& x : s) {
          x = std::exp(x - m);
          sum += x;
        }
        for (int64_t e = 0; e < d.dv; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < d.skv; ++j)
            acc +=
                s[static_cast<size_t>(j)] *
                double{
                    v.data()[static_cast<size_t>(((b * d.kv_heads + hk) * d.skv + j) * d.dv + e)]};
          out.data()[static_cast<size_t>(((b * d.heads + h) * d.sq + i) * d.dv + e)] =
              static_cast<float>(acc / sum);
        }
      }
    }
  }
  return out;
}

} // namespace tilesat::ops
