// builder.cpp: one Builder method per op kind, each a thin call of Graph::add_op.
#include "tilesat/graph/builder.h"

namespace tilesat {

namespace {

using IntList = std::vector<int64_t>;

Attrs attrs(std::initializer_list<Attrs::Entry> entries) {
  Attrs a;
  for (const auto& [name, value] : entries) a.set(name, value);
  return a;
}

// Only flags that differ from the defaults are written, as a user would write them.
Attrs matmul_attrs(MatmulOptions o) {
  Attrs a;
  if (o.transpose_a) a.set("transpose_a", true);
  if (o.transpose_b) a.set("transpose_b", true);
  return a;
}

// Window attributes that differ from the op table's defaults.
void set_window(Attrs& a, const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                const std::vector<int64_t>& dilation) {
  if (stride != IntList{1, 1}) a.set("stride", stride);
  if (padding != IntList{0, 0, 0, 0}) a.set("padding", padding);
  if (dilation != IntList{1, 1}) a.set("dilation", dilation);
}

Attrs conv_attrs(const Conv2dOptions& o) {
  Attrs a;
  set_window(a, o.stride, o.padding, o.dilation);
  if (o.groups != 1) a.set("groups", o.groups);
  if (!o.activation.empty()) a.set("activation", o.activation);
  // The dims that differ from the op table's NHWC defaults.
  const ConvDims nhwc;
  if (o.dims.batch != nhwc.batch) a.set("batch_dim", o.dims.batch);
  if (o.dims.height != nhwc.height) a.set("height_dim", o.dims.height);
  if (o.dims.width != nhwc.width) a.set("width_dim", o.dims.width);
  if (o.dims.channel != nhwc.channel) a.set("channel_dim", o.dims.channel);
  if (o.flat.active()) set_flat_image(a, o.flat);
  return a;
}

Attrs pool_attrs(std::vector<int64_t> kernel_size, const Pool2dOptions& o) {
  Attrs a;
  a.set("kernel_size", std::move(kernel_size));
  set_window(a, o.stride, o.padding, o.dilation);
  if (o.ceil_mode) a.set("ceil_mode", true);
  if (o.flat.active()) set_flat_image(a, o.flat);
  return a;
}

} // namespace

Value Builder::input(std::string name, Shape shape, DType dtype) {
  return {
      g_.add_argument(std::move(name), TensorType{dtype, std::move(shape), {}}, ArgRole::Input)};
}

Value Builder::weight(std::string name, Shape shape, DType dtype) {
  return {
      g_.add_argument(std::move(name), TensorType{dtype, std::move(shape), {}}, ArgRole::Weight)};
}

void Builder::output(Value v, std::string name) {
  g_.add_result(v.id, std::move(name));
}

Value Builder::op(OpKind kind, std::span<const Value> operands, Attrs a) {
  std::vector<NodeId> ids;
  for (Value v : operands) ids.push_back(v.id);
  return {g_.add_op(kind, std::move(ids), std::move(a))};
}

Value Builder::op(OpKind kind, std::initializer_list<Value> operands, Attrs a) {
  return op(kind, std::span<const Value>(operands.begin(), operands.size()), std::move(a));
}

Value Builder::constant(Shape shape, std::vector<double> values, DType dtype) {
  return op(OpKind::Constant, {},
            attrs({{"value", std::move(values)}, {"shape", shape.dims()}, {"dtype", dtype}}));
}

Value Builder::constant(const Tensor& t) {
  return constant(t.shape(), std::vector<double>(t.data().begin(), t.data().end()), t.dtype());
}

Value Builder::full(Shape shape, double fill_value, DType dtype) {
  return op(OpKind::Full, {},
            attrs({{"shape", shape.dims()}, {"fill_value", fill_value}, {"dtype", dtype}}));
}

Value Builder::scalar(double value, DType dtype) {
  return constant(Shape{}, {value}, dtype);
}

Value Builder::matmul(Value a, Value b, MatmulOptions o) {
  return op(OpKind::Matmul, {a, b}, matmul_attrs(o));
}

Value Builder::linear(Value a, Value b, MatmulOptions o) {
  return op(OpKind::Linear, {a, b}, matmul_attrs(o));
}

Value Builder::linear(Value a, Value b, Value bias, MatmulOptions o) {
  return op(OpKind::Linear, {a, b, bias}, matmul_attrs(o));
}

Value Builder::binary(OpKind kind, Value a, Value b, BinaryOptions o) {
  Attrs a_;
  if (!o.broadcast_dims.empty()) a_.set("broadcast_dims", std::move(o.broadcast_dims));
  return op(kind, {a, b}, std::move(a_));
}

Value Builder::add(Value a, Value b, BinaryOptions o) {
  return binary(OpKind::Add, a, b, o);
}
Value Builder::subtract(Value a, Value b, BinaryOptions o) {
  return binary(OpKind::Subtract, a, b, o);
}
Value Builder::multiply(Value a, Value b, BinaryOptions o) {
  return binary(OpKind::Multiply, a, b, o);
}
Value Builder::divide(Value a, Value b, BinaryOptions o) {
  return binary(OpKind::Divide, a, b, o);
}
Value Builder::maximum(Value a, Value b, BinaryOptions o) {
  return binary(OpKind::Maximum, a, b, o);
}
Value Builder::minimum(Value a, Value b, BinaryOptions o) {
  return binary(OpKind::Minimum, a, b, o);
}
Value Builder::pow(Value a, Value b, BinaryOptions o) {
  return binary(OpKind::Pow, a, b, o);
}
Value Builder::add_relu(Value a, Value b, BinaryOptions o) {
  return binary(OpKind::AddRelu, a, b, o);
}
Value Builder::equal(Value a, Value b, BinaryOptions o) {
  return binary(OpKind::Equal, a, b, o);
}
Value Builder::less(Value a, Value b, BinaryOptions o) {
  return binary(OpKind::Less, a, b, o);
}
Value Builder::greater(Value a, Value b, BinaryOptions o) {
  return binary(OpKind::Greater, a, b, o);
}
Value Builder::where(Value cond, Value a, Value b) {
  return op(OpKind::Where, {cond, a, b});
}
Value Builder::fused_eltwise(std::span<const Value> operands, std::string body) {
  Attrs a;
  a.set("body", std::move(body));
  return op(OpKind::FusedEltwise, operands, std::move(a));
}

Value Builder::relu(Value x) {
  return unary(OpKind::Relu, x);
}
Value Builder::gelu(Value x) {
  return unary(OpKind::Gelu, x);
}
Value Builder::exp(Value x) {
  return unary(OpKind::Exp, x);
}
Value Builder::log(Value x) {
  return unary(OpKind::Log, x);
}
Value Builder::neg(Value x) {
  return unary(OpKind::Neg, x);
}
Value Builder::abs(Value x) {
  return unary(OpKind::Abs, x);
}
Value Builder::sin(Value x) {
  return unary(OpKind::Sin, x);
}
Value Builder::cos(Value x) {
  return unary(OpKind::Cos, x);
}
Value Builder::tanh(Value x) {
  return unary(OpKind::Tanh, x);
}
Value Builder::sigmoid(Value x) {
  return unary(OpKind::Sigmoid, x);
}
Value Builder::silu(Value x) {
  return unary(OpKind::Silu, x);
}
Value Builder::sqrt(Value x) {
  return unary(OpKind::Sqrt, x);
}
Value Builder::rsqrt(Value x) {
  return unary(OpKind::Rsqrt, x);
}
Value Builder::reciprocal(Value x) {
  return unary(OpKind::Reciprocal, x);
}
Value Builder::erf(Value x) {
  return unary(OpKind::Erf, x);
}

Value Builder::transpose(Value x, int64_t dim0, int64_t dim1) {
  return op(OpKind::Transpose, {x}, attrs({{"dim0", dim0}, {"dim1", dim1}}));
}

Value Builder::permute(Value x, std::vector<int64_t> permutation) {
  return op(OpKind::Permute, {x}, attrs({{"permutation", std::move(permutation)}}));
}

Value Builder::broadcast(Value x, Shape shape, std::vector<int64_t> dims) {
  Attrs a = attrs({{"shape", shape.dims()}});
  if (!dims.empty()) a.set("dims", std::move(dims));
  return op(OpKind::Broadcast, {x}, std::move(a));
}

Value Builder::reshape(Value x, std::vector<int64_t> shape) {
  return op(OpKind::Reshape, {x}, attrs({{"shape", std::move(shape)}}));
}

Value Builder::concat(std::span<const Value> xs, int64_t dim) {
  return op(OpKind::Concat, xs, attrs({{"dim", dim}}));
}

Value Builder::concat(std::initializer_list<Value> xs, int64_t dim) {
  return concat(std::span<const Value>(xs.begin(), xs.size()), dim);
}

Value Builder::slice(Value x, std::vector<int64_t> begins, std::vector<int64_t> ends,
                     std::vector<int64_t> step) {
  Attrs a = attrs({{"begins", std::move(begins)}, {"ends", std::move(ends)}});
  if (!step.empty()) a.set("step", std::move(step));
  return op(OpKind::Slice, {x}, std::move(a));
}

Value Builder::typecast(Value x, DType dtype) {
  return op(OpKind::Typecast, {x}, attrs({{"dtype", dtype}}));
}

Value Builder::take(Value data, Value indices, int64_t dim) {
  Attrs a;
  if (dim != 0) a.set("dim", dim);
  return op(OpKind::Take, {data, indices}, std::move(a));
}

Value Builder::split_heads(Value x, int64_t num_heads, int64_t parts, int64_t part,
                           bool transpose) {
  Attrs a = attrs({{"num_heads", num_heads}});
  if (parts != 1) a.set("parts", parts);
  if (part != 0) a.set("part", part);
  if (transpose) a.set("transpose", true);
  return op(OpKind::SplitHeads, {x}, std::move(a));
}

Value Builder::concatenate_heads(Value x) {
  return op(OpKind::ConcatenateHeads, {x}, {});
}

Value Builder::scaled_dot_product_attention(Value q, Value k, Value v, const Value* mask,
                                            AttentionOptions o) {
  Attrs a;
  if (o.scale != 0) a.set("scale", o.scale);
  if (o.is_causal) a.set("is_causal", true);
  if (o.mask_kind != "add") a.set("mask_kind", o.mask_kind);
  if (o.mask_fill != 0) a.set("mask_fill", o.mask_fill);
  std::vector<Value> operands{q, k, v};
  if (mask != nullptr) operands.push_back(*mask);
  return op(OpKind::Attention, operands, std::move(a));
}

Value Builder::rotary_embedding(Value x, Value cos, Value sin) {
  return op(OpKind::RotaryEmbedding, {x, cos, sin}, {});
}

Value Builder::reduce(OpKind kind, Value x, ReduceOptions o) {
  Attrs a;
  if (!o.dims.empty()) a.set("dim_arg", std::move(o.dims));
  if (o.keep_dim) a.set("keep_dim", true);
  return op(kind, {x}, std::move(a));
}

Value Builder::sum(Value x, ReduceOptions o) {
  return reduce(OpKind::Sum, x, std::move(o));
}
Value Builder::mean(Value x, ReduceOptions o) {
  return reduce(OpKind::Mean, x, std::move(o));
}
Value Builder::max(Value x, ReduceOptions o) {
  return reduce(OpKind::Max, x, std::move(o));
}

Value Builder::softmax(Value x, int64_t dim) {
  return op(OpKind::Softmax, {x}, attrs({{"dimension", dim}}));
}

Value Builder::layer_norm(Value x, const Value* scale, const Value* bias, int64_t axis,
                          double epsilon) {
  if (bias != nullptr && scale == nullptr) {
    throw Error("'ttir.layer_norm': expected a scale when a bias is given, got none");
  }
  Attrs a;
  if (axis != -1) a.set("axis", axis);
  if (epsilon != 1e-5) a.set("epsilon", epsilon);
  std::vector<Value> operands{x};
  if (scale != nullptr) operands.push_back(*scale);
  if (bias != nullptr) operands.push_back(*bias);
  return op(OpKind::LayerNorm, operands, std::move(a));
}

Value Builder::rms_norm(Value x, const Value* weight, int64_t axis, double epsilon) {
  Attrs a;
  if (axis != -1) a.set("axis", axis);
  if (epsilon != 1e-5) a.set("epsilon", epsilon);
  std::vector<Value> operands{x};
  if (weight != nullptr) operands.push_back(*weight);
  return op(OpKind::RmsNorm, operands, std::move(a));
}

Value Builder::conv2d(Value x, Value weight, Conv2dOptions o) {
  return op(OpKind::Conv2d, {x, weight}, conv_attrs(o));
}

Value Builder::conv2d(Value x, Value weight, Value bias, Conv2dOptions o) {
  return op(OpKind::Conv2d, {x, weight, bias}, conv_attrs(o));
}

Value Builder::max_pool2d(Value x, std::vector<int64_t> kernel_size, Pool2dOptions o) {
  return op(OpKind::MaxPool2d, {x}, pool_attrs(std::move(kernel_size), o));
}

Value Builder::avg_pool2d(Value x, std::vector<int64_t> kernel_size, Pool2dOptions o) {
  Attrs a = pool_attrs(std::move(kernel_size), o);
  if (o.count_include_pad) a.set("count_include_pad", true);
  return op(OpKind::AvgPool2d, {x}, std::move(a));
}

Value Builder::mesh_shard(Value x, MeshShardOptions o) {
  bool replicate = o.type == ShardType::Replicate;
  bool to_shard = o.direction == ShardDirection::FullToShard;
  return op(OpKind::MeshShard, {x},
            attrs({{"shard_type", std::string(replicate ? "replicate" : "devices")},
                   {"shard_direction", std::string(to_shard ? "full_to_shard" : "shard_to_full")},
                   {"shard_shape", std::move(o.shard_shape)},
                   {"shard_dims", std::move(o.shard_dims)}}));
}

Value Builder::all_gather(Value x, int64_t dim, int64_t cluster_axis, int64_t cluster_size) {
  return op(OpKind::AllGather, {x},
            attrs({{"all_gather_dim", dim},
                   {"cluster_axis", cluster_axis},
                   {"cluster_size", cluster_size}}));
}

Value Builder::reduce_scatter(Value x, int64_t dim, int64_t cluster_axis, int64_t cluster_size) {
  return op(OpKind::ReduceScatter, {x},
            attrs({{"reduce_type", std::string("sum")},
                   {"scatter_dim", dim},
                   {"cluster_axis", cluster_axis},
                   {"cluster_size", cluster_size}}));
}

Value Builder::all_reduce(Value x, int64_t cluster_axis) {
  return op(OpKind::AllReduce, {x},
            attrs({{"reduce_type", std::string("sum")}, {"cluster_axis", cluster_axis}}));
}

} // namespace tilesat
