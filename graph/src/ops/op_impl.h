// op_impl.h: private to graph/: the shape inference and reference semantics of every op kind,
// split by family (leaf, matmul, elementwise, data_movement, reduction), and the helpers
// they share. op_table.cpp puts these functions into the op registry.
#pragma once

#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/op.h"

#include <span>
#include <string>
#include <vector>

namespace tilesat::ops {

/// Throws tilesat::Error with `message` (op table callers prefix the op and location).
[[noreturn]] void fail(std::string message);
/// "[1, 0]".
std::string list_str(std::span<const int64_t> v);
/// `axis` normalized into [0, rank); fails with "expected <what> in [-rank, rank), got axis".
int64_t axis_or_fail(int64_t axis, int64_t rank, std::string_view what);
/// Checks that a shape written in an attribute has non-negative extents and a size that fits
/// in memory accounting (at most 2^48 elements).
void check_shape(std::span<const int64_t> dims, std::string_view what);
/// Fails unless both dtypes are equal: "expected operand dtypes to match, got f32 and bf16".
void check_same_dtype(DType a, DType b);

/// For each dim of `result`, the stride into an operand of shape `operand` whose dim i maps
/// to result dim dims[i] (0 where the operand is broadcast along that dim).
std::vector<int64_t> broadcast_strides(const Shape& operand, const Shape& result,
                                       std::span<const int64_t> dims);
/// dims[i] = result_rank - rank + i: NumPy's right alignment.
std::vector<int64_t> right_aligned_dims(int64_t rank, int64_t result_rank);
/// For each element of `shape` in row-major order, base + sum(index[d] * strides[d]).
std::vector<int64_t> strided_offsets(const Shape& shape, std::span<const int64_t> strides,
                                     int64_t base = 0);
/// out[i] = in[offsets[i]].
Tensor gather(const Tensor& in, const TensorType& result, std::span<const int64_t> offsets);

// Leaves.
TensorType infer_argument(const InferArgs&);
Tensor eval_argument(const EvalArgs&);
TensorType infer_constant(const InferArgs&);
Tensor eval_constant(const EvalArgs&);
TensorType infer_full(const InferArgs&);
Tensor eval_full(const EvalArgs&);

/// The op named by an `activation` attribute (linear, conv2d), or nullopt when it is empty;
/// fails for a name that is not an elementwise unary op without required attributes.
std::optional<OpKind> activation_of(const Attrs& attrs);
/// `out` with the `activation` of `attrs` applied (unchanged when there is none).
Tensor apply_activation(Tensor out, const Attrs& attrs, const TensorType& result);

// Matrix products.
TensorType infer_matmul(const InferArgs&);
Tensor eval_matmul(const EvalArgs&);
TensorType infer_linear(const InferArgs&);
Tensor eval_linear(const EvalArgs&);

// Elementwise.
TensorType infer_binary(const InferArgs&);
TensorType infer_unary(const InferArgs&);
#define TILESAT_EVAL(name) Tensor eval_##name(const EvalArgs&);
TILESAT_EVAL(add)
TILESAT_EVAL(subtract)
TILESAT_EVAL(multiply)
TILESAT_EVAL(divide)
TILESAT_EVAL(maximum)
TILESAT_EVAL(minimum)
TILESAT_EVAL(pow)
TILESAT_EVAL(equal)
TILESAT_EVAL(less)
TILESAT_EVAL(greater)
TILESAT_EVAL(add_relu)
TILESAT_EVAL(relu)
TILESAT_EVAL(gelu)
TILESAT_EVAL(exp)
TILESAT_EVAL(log)
TILESAT_EVAL(neg)
TILESAT_EVAL(abs)
TILESAT_EVAL(sin)
TILESAT_EVAL(cos)
TILESAT_EVAL(tanh)
TILESAT_EVAL(sigmoid)
TILESAT_EVAL(silu)
TILESAT_EVAL(sqrt)
TILESAT_EVAL(rsqrt)
TILESAT_EVAL(reciprocal)
TILESAT_EVAL(erf)
#undef TILESAT_EVAL

// Selection: where(cond, a, b) with NumPy broadcasting of all three operands.
TensorType infer_where(const InferArgs&);
Tensor eval_where(const EvalArgs&);

// Data movement.
TensorType infer_transpose(const InferArgs&);
Tensor eval_transpose(const EvalArgs&);
TensorType infer_permute(const InferArgs&);
Tensor eval_permute(const EvalArgs&);
TensorType infer_broadcast(const InferArgs&);
Tensor eval_broadcast(const EvalArgs&);
TensorType infer_reshape(const InferArgs&);
Tensor eval_reshape(const EvalArgs&);
TensorType infer_concat(const InferArgs&);
Tensor eval_concat(const EvalArgs&);
TensorType infer_slice(const InferArgs&);
Tensor eval_slice(const EvalArgs&);
TensorType infer_typecast(const InferArgs&);
Tensor eval_typecast(const EvalArgs&);
TensorType infer_take(const InferArgs&);
Tensor eval_take(const EvalArgs&);
// Attention head moves (heads.cpp; their reads are tilesat/graph/heads.h).
TensorType infer_split_heads(const InferArgs&);
Tensor eval_split_heads(const EvalArgs&);
TensorType infer_concatenate_heads(const InferArgs&);
Tensor eval_concatenate_heads(const EvalArgs&);
// Attention (attention.cpp).
TensorType infer_attention(const InferArgs&);
Tensor eval_attention(const EvalArgs&);
// Rotary position embedding (rotary.cpp).
TensorType infer_rotary_embedding(const InferArgs&);
Tensor eval_rotary_embedding(const EvalArgs&);

// Reductions.
TensorType infer_reduce(const InferArgs&);
Tensor eval_sum(const EvalArgs&);
Tensor eval_mean(const EvalArgs&);
Tensor eval_max(const EvalArgs&);
TensorType infer_softmax(const InferArgs&);
Tensor eval_softmax(const EvalArgs&);

// Normalization.
TensorType infer_layer_norm(const InferArgs&);
Tensor eval_layer_norm(const EvalArgs&);
TensorType infer_rms_norm(const InferArgs&);
Tensor eval_rms_norm(const EvalArgs&);

// Convolution and pooling over NCHW tensors.
TensorType infer_conv2d(const InferArgs&);
Tensor eval_conv2d(const EvalArgs&);
TensorType infer_pool2d(const InferArgs&);
Tensor eval_max_pool2d(const EvalArgs&);
Tensor eval_avg_pool2d(const EvalArgs&);

// Fused elementwise kernels (a tree of elementwise ops over the operands).
TensorType infer_fused_eltwise(const InferArgs&);
Tensor eval_fused_eltwise(const EvalArgs&);

// Multi-chip ops (SPMD). Their plain-interpreter semantics are the identity when the op's
// attributes say its group is one chip, else an error pointing at interpret_mesh.
TensorType infer_mesh_shard(const InferArgs&);
Tensor eval_mesh_shard(const EvalArgs&);
TensorType infer_all_gather(const InferArgs&);
Tensor eval_all_gather(const EvalArgs&);
TensorType infer_reduce_scatter(const InferArgs&);
Tensor eval_reduce_scatter(const EvalArgs&);
TensorType infer_all_reduce(const InferArgs&);
Tensor eval_all_reduce(const EvalArgs&);

} // namespace tilesat::ops

namespace tilesat::ops {

/// `attrs` with declared defaults filled in and widened where lossless (int -> float,
/// int list -> float list); fails without naming the op (callers add it).
Attrs with_defaults(const OpInfo& info, const Attrs& attrs);
/// Fails unless `n` operands suit `info`: "expected 2 operands, got 3".
void check_operand_count(const OpInfo& info, size_t n);

} // namespace tilesat::ops
