// A C++ API for writing graphs that reads like the model it builds.
//
// Each op has one method (its snake_case name) that adds the op to a Graph, infers its type,
// and returns a `Value`, a light handle to the op's result. Invalid operands or attributes
// throw tilesat::Error naming the op, so a mistake shows up at the line that made it.
//
//   Graph g; Builder b(g);
//   Value x = b.input("x", {32, 128});
//   Value w = b.weight("w1", {256, 128}), bias = b.weight("b1", {256});
//   b.output(b.relu(b.add(b.matmul(x, w, {.transpose_b = true}), bias)));
#pragma once

#include "tilesat/graph/conv_attrs.h"
#include "tilesat/graph/graph.h"
#include "tilesat/graph/spmd.h"

#include <span>
#include <string>
#include <vector>

namespace tilesat {

/// A value of the graph being built (the result of one node).
struct Value {
  NodeId id = 0;
  friend bool operator==(Value, Value) = default;
};

struct MatmulOptions {
  bool transpose_a = false; // use a's last two dims transposed
  bool transpose_b = false; // use b's last two dims transposed
};

struct AttentionOptions {
  double scale = 0; // 0: 1 / sqrt(head_dim)
  bool is_causal = false;
  std::string mask_kind = "add"; // or "select"
  double mask_fill = 0;
};

struct ReduceOptions {
  std::vector<int64_t> dims = {}; // dims to reduce; empty (the default): all dims
  bool keep_dim = false;          // keep reduced dims as extent 1
};

struct BinaryOptions {
  /// For the lower-rank operand, the result dim each of its dims maps to; empty (the
  /// default): NumPy right alignment.
  std::vector<int64_t> broadcast_dims = {};
};

/// Window options of conv2d and the pools; the window defaults are those of the op table, the
/// layout is NCHW (written as conv2d's dim attributes, whose op-table default is NHWC).
struct Conv2dOptions {
  std::vector<int64_t> stride = {1, 1};        // [height, width] step
  std::vector<int64_t> padding = {0, 0, 0, 0}; // [top, left, bottom, right]
  std::vector<int64_t> dilation = {1, 1};      // [height, width] tap spacing
  int64_t groups = 1;                          // conv2d only
  std::string activation = "";                 // conv2d only: a unary op name, or empty
  ConvDims dims = {0, 2, 3, 1};                // conv2d's layout {batch, height, width, channel}
  FlatImage flat = {};                         // set: a flattened NHWC input (dims: NHWC)
};
struct Pool2dOptions {
  std::vector<int64_t> stride = {1, 1};
  std::vector<int64_t> padding = {0, 0, 0, 0};
  std::vector<int64_t> dilation = {1, 1};
  bool ceil_mode = false;
  bool count_include_pad = false; // avg_pool2d only
  FlatImage flat = {};            // set: a flattened NHWC input [1, 1, N*H*W, C]
};

/// A mesh_shard's attributes; the defaults replicate a host tensor on every chip.
struct MeshShardOptions {
  ShardDirection direction = ShardDirection::FullToShard;
  ShardType type = ShardType::Replicate;
  std::vector<int64_t> shard_shape = {1}; // pieces per tensor dim
  std::vector<int64_t> shard_dims = {-1}; // per mesh axis, the tensor dim split over it, or -1
};

class Builder {
public:
  explicit Builder(Graph& g) : g_(g) {}

  Graph& graph() { return g_; }
  const TensorType& type(Value v) const { return g_.node(v.id).type; }

  // Arguments and results.
  Value input(std::string name, Shape shape, DType dtype = DType::F32);
  Value weight(std::string name, Shape shape, DType dtype = DType::F32);
  void output(Value v, std::string name = "");

  /// Any op kind, with attributes as written (defaults are filled in by the op table).
  Value op(OpKind kind, std::span<const Value> operands, Attrs attrs = {});
  Value op(OpKind kind, std::initializer_list<Value> operands, Attrs attrs = {});

  // Leaves.
  /// A tensor of literal values (one value per element, or one value for all).
  Value constant(Shape shape, std::vector<double> values, DType dtype = DType::F32);
  Value constant(const Tensor& t);
  Value full(Shape shape, double fill_value, DType dtype = DType::F32);
  /// A rank-0 constant, the scalar operand of an elementwise op.
  Value scalar(double value, DType dtype = DType::F32);

  // Matrix products.
  Value matmul(Value a, Value b, MatmulOptions o = {});
  Value linear(Value a, Value b, MatmulOptions o = {});
  Value linear(Value a, Value b, Value bias, MatmulOptions o = {});

  // Elementwise binary.
  Value add(Value a, Value b, BinaryOptions o = {});
  Value subtract(Value a, Value b, BinaryOptions o = {});
  Value multiply(Value a, Value b, BinaryOptions o = {});
  Value divide(Value a, Value b, BinaryOptions o = {});
  Value maximum(Value a, Value b, BinaryOptions o = {});
  Value minimum(Value a, Value b, BinaryOptions o = {});
  Value pow(Value a, Value b, BinaryOptions o = {});
  Value add_relu(Value a, Value b, BinaryOptions o = {});
  /// Comparisons: 1 where true, 0 where false, in the operand dtype (ttir.eq, ttir.lt, ttir.gt).
  Value equal(Value a, Value b, BinaryOptions o = {});
  Value less(Value a, Value b, BinaryOptions o = {});
  Value greater(Value a, Value b, BinaryOptions o = {});
  /// `a` where `cond` is nonzero, else `b`; all three broadcast as NumPy does.
  Value where(Value cond, Value a, Value b);
  /// One fused elementwise kernel; `body` is its op tree over %0, %1, ... (fused_body.h).
  Value fused_eltwise(std::span<const Value> operands, std::string body);

  // Elementwise unary.
  Value relu(Value x);
  Value gelu(Value x);
  Value exp(Value x);
  Value log(Value x);
  Value neg(Value x);
  Value abs(Value x);
  Value sin(Value x);
  Value cos(Value x);
  Value tanh(Value x);
  Value sigmoid(Value x);
  Value silu(Value x);
  Value sqrt(Value x);
  Value rsqrt(Value x);
  Value reciprocal(Value x);
  Value erf(Value x);

  // Data movement.
  Value transpose(Value x, int64_t dim0, int64_t dim1);
  Value permute(Value x, std::vector<int64_t> permutation);
  /// To `shape`; `dims[i]` is the result dim of operand dim i (empty: NumPy alignment).
  Value broadcast(Value x, Shape shape, std::vector<int64_t> dims = {});
  Value reshape(Value x, std::vector<int64_t> shape);
  Value concat(std::span<const Value> xs, int64_t dim);
  Value concat(std::initializer_list<Value> xs, int64_t dim);
  /// `step` empty (the default): 1 in every dim.
  Value slice(Value x, std::vector<int64_t> begins, std::vector<int64_t> ends,
              std::vector<int64_t> step = {});
  Value typecast(Value x, DType dtype);
  /// Slices of `data` along `dim` picked by i32 `indices` (an embedding lookup with dim 0).
  Value take(Value data, Value indices, int64_t dim = 0);
  /// Part `part` of `parts` of x's last dim split into `num_heads` heads:
  /// [B, S, parts * H * D] -> [B, H, S, D], or [B, H, D, S] with `transpose`.
  Value split_heads(Value x, int64_t num_heads, int64_t parts = 1, int64_t part = 0,
                    bool transpose = false);
  /// [B, H, S, D] -> [B, S, H * D].
  Value concatenate_heads(Value x);
  /// softmax(q k^T * scale + mask) v; `mask` optional (nullptr: none), added to the scores
  /// (mask_kind "add") or selecting them, mask_fill elsewhere ("select"); scale 0 is
  /// 1 / sqrt(head_dim).
  Value scaled_dot_product_attention(Value q, Value k, Value v, const Value* mask = nullptr,
                                     AttentionOptions o = {});
  /// x * cos + rotate_half(x) * sin over x's last dim (even), cos and sin broadcast to x.
  Value rotary_embedding(Value x, Value cos, Value sin);

  // Reductions.
  Value sum(Value x, ReduceOptions o = {});
  Value mean(Value x, ReduceOptions o = {});
  Value max(Value x, ReduceOptions o = {});
  Value softmax(Value x, int64_t dim = -1);
  // Normalization.
  /// Normalizes over dims [axis, rank); `scale` and `bias` are optional (nullptr: none).
  Value layer_norm(Value x, const Value* scale = nullptr, const Value* bias = nullptr,
                   int64_t axis = -1, double epsilon = 1e-5);
  /// x / sqrt(mean(x^2) + epsilon) over dims [axis, rank), times `weight` if given.
  Value rms_norm(Value x, const Value* weight = nullptr, int64_t axis = -1, double epsilon = 1e-5);
  // Convolution and pooling (NCHW input, OIHW weight).
  Value conv2d(Value x, Value weight, Conv2dOptions o = {});
  Value conv2d(Value x, Value weight, Value bias, Conv2dOptions o = {});
  Value max_pool2d(Value x, std::vector<int64_t> kernel_size, Pool2dOptions o = {});
  Value avg_pool2d(Value x, std::vector<int64_t> kernel_size, Pool2dOptions o = {});

  // Multi-chip (SPMD; see spmd.h). Collectives combine the chips along cluster_axis, of
  // which there are cluster_size.
  ///   b.mesh_shard(x, {.type = ShardType::Devices, .shard_shape = {8, 1},
  ///                    .shard_dims = {-1, 0}});   // rows of x split over a 1x8 mesh
  Value mesh_shard(Value x, MeshShardOptions o = {});
  Value all_gather(Value x, int64_t dim, int64_t cluster_axis, int64_t cluster_size);
  Value reduce_scatter(Value x, int64_t dim, int64_t cluster_axis, int64_t cluster_size);
  Value all_reduce(Value x, int64_t cluster_axis);

private:
  Value unary(OpKind kind, Value x) { return op(kind, {x}); }
  Value binary(OpKind kind, Value a, Value b, BinaryOptions o);
  Value reduce(OpKind kind, Value x, ReduceOptions o);
  Graph& g_;
};

} // namespace tilesat
