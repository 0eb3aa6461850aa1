// heads.cpp: split_heads and concatenate_heads, the attention head moves, as strided reads.
#include "tilesat/graph/heads.h"

#include "ops/op_impl.h"

#include <fmt/format.h>

namespace tilesat {

HeadView head_view(OpKind kind, const Attrs& attrs, const Shape& x) {
  if (kind == OpKind::ConcatenateHeads) {
    if (x.rank() != 4)
      ops::fail(fmt::format("expected an operand of rank 4 [batch, heads, seq, head_dim], got {}",
                            x.str()));
    const int64_t b = x[0], h = x[1], s = x[2], d = x[3];
    // Result [b, s, h * d] read as [b, s, h, d].
    return HeadView{{b, s, h, d}, {h * s * d, d, s * d, 1}, 0};
  }
  if (kind != OpKind::SplitHeads) ops::fail(fmt::format("'{}' is not a head op", op_name(kind)));
  if (x.rank() != 3)
    ops::fail(fmt::format(
        "expected an operand of rank 3 [batch, seq, parts * heads * head_dim], got {}", x.str()));
  const int64_t heads = attrs.get<int64_t>("num_heads"), parts = attrs.get<int64_t>("parts"),
                part = attrs.get<int64_t>("part");
  const int64_t b = x[0], s = x[1], w = x[2];
  if (heads < 1) ops::fail(fmt::format("expected 'num_heads' >= 1, got {}", heads));
  if (parts < 1) ops::fail(fmt::format("expected 'parts' >= 1, got {}", parts));
  if (part < 0 || part >= parts)
    ops::fail(fmt::format("expected 'part' in [0, {}), got {}", parts, part));
  if (w % (parts * heads) != 0)
    ops::fail(fmt::format("expected the last dim ({}) to divide into {} parts of {} heads", w,
                          parts, heads));
  const int64_t d = w / parts / heads;
  const int64_t base = part * heads * d;
  if (attrs.get<bool>("transpose")) return HeadView{{b, heads, d, s}, {s * w, d, 1, w}, base};
  return HeadView{{b, heads, s, d}, {s * w, d, w, 1}, base};
}

namespace ops {

TensorType infer_split_heads(const InferArgs& in) {
  const TensorType& x = *in.operands[0];
  return TensorType{x.dtype, Shape(head_view(OpKind::SplitHeads, in.attrs, x.shape).shape), {}};
}

TensorType infer_concatenate_heads(const InferArgs& in) {
  const TensorType& x = *in.operands[0];
  HeadView v = head_view(OpKind::ConcatenateHeads, in.attrs, x.shape);
  return TensorType{x.dtype, Shape({v.shape[0], v.shape[1], v.shape[2] * v.shape[3]}), {}};
}

namespace {
Tensor eval_heads(OpKind kind, const EvalArgs& in) {
  const Tensor& x = *in.operands[0];
  HeadView v = head_view(kind, in.attrs, x.shape());
  return gather(x, in.result, strided_offsets(Shape(v.shape), v.strides, v.base));
}
} // namespace

Tensor eval_split_heads(const EvalArgs& in) {
  return eval_heads(OpKind::SplitHeads, in);
}

Tensor eval_concatenate_heads(const EvalArgs& in) {
  return eval_heads(OpKind::ConcatenateHeads, in);
}

} // namespace ops
} // namespace tilesat
