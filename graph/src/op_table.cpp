// op_table.cpp: the op registry. One entry per op kind declares its operands, attributes
// with defaults, traits, summary, shape inference and reference semantics; the inference and
// semantics live in ops/<family>.cpp.
#include "ops/op_impl.h"
#include "tilesat/graph/op.h"

#include <array>
#include <fmt/format.h>

namespace tilesat {

namespace {

using enum OpTrait;
using IntList = std::vector<int64_t>;
using FloatList = std::vector<double>;

constexpr uint32_t bits(OpTrait t) {
  return static_cast<uint32_t>(t);
}

AttrSpec required(std::string_view name, AttrKind kind, std::string_view doc) {
  return AttrSpec{name, kind, std::nullopt, doc};
}
AttrSpec defaulted(std::string_view name, AttrKind kind, AttrValue def, std::string_view doc) {
  return AttrSpec{name, kind, std::move(def), doc};
}

std::vector<AttrSpec> matmul_attrs() {
  return {
      defaulted("transpose_a", AttrKind::Bool, false, "use the transpose of a's last two dims"),
      defaulted("transpose_b", AttrKind::Bool, false, "use the transpose of b's last two dims")};
}
std::vector<AttrSpec> linear_attrs() {
  std::vector<AttrSpec> a = matmul_attrs();
  a.push_back(defaulted("activation", AttrKind::String, std::string(),
                        "an elementwise unary op applied to the result (\"relu\", "
                        "\"sigmoid\", ...); empty: none"));
  return a;
}
std::vector<AttrSpec> binary_attrs() {
  return {defaulted("broadcast_dims", AttrKind::IntList, IntList{},
                    "for the lower-rank operand, the result dim each of its dims maps to; "
                    "empty: NumPy right alignment")};
}
std::vector<AttrSpec> reduce_attrs() {
  return {defaulted("dim_arg", AttrKind::IntList, IntList{}, "dims to reduce; empty: all dims"),
          defaulted("keep_dim", AttrKind::Bool, false, "keep reduced dims as extent 1")};
}

// The attributes of layer_norm and rms_norm; `epsilon_doc` says what epsilon is added to.
std::vector<AttrSpec> norm_attrs(std::string_view epsilon_doc) {
  return {defaulted("axis", AttrKind::Int, int64_t{-1},
                    "the first normalized dim; dims from it to the last are normalized together"),
          defaulted("epsilon", AttrKind::Float, 1e-5, epsilon_doc)};
}

// An int list that may be written as one integer (the same value in every position).
AttrSpec scalar_or_list(std::string_view name, IntList def, std::string_view doc) {
  AttrSpec s = defaulted(name, AttrKind::IntList, std::move(def), doc);
  s.scalar_ok = true;
  return s;
}
std::vector<AttrSpec> window_attrs() {
  return {scalar_or_list("stride", IntList{1, 1},
                         "[height, width] step of the window, or one step for both"),
          scalar_or_list("padding", IntList{0, 0, 0, 0},
                         "implicit padding [top, left, bottom, right], [height, width] (the "
                         "same before and after) or one value for all four sides"),
          scalar_or_list("dilation", IntList{1, 1},
                         "[height, width] spacing of the kernel taps, or one spacing for both")};
}
// ttnn's flattened NHWC activations: [1, 1, batch * height * width, channels].
void add_flat_image_attrs(std::vector<AttrSpec>& a) {
  a.push_back(defaulted("batch_size", AttrKind::Int, int64_t{0},
                        "with input_height and input_width: the input is flattened NHWC, "
                        "[1, 1, batch_size * input_height * input_width, channels], and so is "
                        "the result; 0: a 4-D input"));
  a.push_back(defaulted("input_height", AttrKind::Int, int64_t{0},
                        "the image height of a flattened NHWC input; 0: a 4-D input"));
  a.push_back(defaulted("input_width", AttrKind::Int, int64_t{0},
                        "the image width of a flattened NHWC input; 0: a 4-D input"));
}
std::vector<AttrSpec> pool_attrs() {
  std::vector<AttrSpec> a = window_attrs();
  a.insert(a.begin(), required("kernel_size", AttrKind::IntList, "[height, width] of the window"));
  a.push_back(defaulted("ceil_mode", AttrKind::Bool, false,
                        "round the output extent up (a last partial window is kept)"));
  add_flat_image_attrs(a);
  return a;
}

// The attributes the collectives share (tt-mlir's names).
AttrSpec cluster_axis() {
  return required("cluster_axis", AttrKind::Int,
                  "the mesh axis whose chips form a group: 0, the chips of one column; 1, of "
                  "one row");
}
AttrSpec cluster_size() {
  return required("cluster_size", AttrKind::Int,
                  "chips in the group (the mesh's extent along cluster_axis); the TTIR parser "
                  "takes it from the result type");
}
AttrSpec reduce_type() {
  AttrSpec s = defaulted("reduce_type", AttrKind::String, std::string("sum"),
                         "how the group's tensors combine: sum (tt-mlir's "
                         "#ttcore.reduce_type<sum>)");
  s.kept = true; // tt-mlir requires it
  return s;
}

std::string_view name_of(OpKind kind) {
  static constexpr std::array<std::string_view, kNumOpKinds> names = {
#define TILESAT_OP(Enum, name) name,
#include "tilesat/graph/ops.def"
  };
  return names[static_cast<size_t>(kind)];
}

struct Entry {
  OpKind kind;
  int min_operands, max_operands;
  uint32_t traits;
  std::vector<AttrSpec> attrs;
  std::string_view summary;
  TensorType (*infer)(const InferArgs&);
  Tensor (*eval)(const EvalArgs&);
};

std::vector<Entry> entries() {
  constexpr uint32_t kLeaf = bits(Leaf), kData = bits(DataMovement), kReduce = bits(Reduction);
  constexpr uint32_t kUnary = bits(ElementwiseUnary), kBinary = bits(ElementwiseBinary);
  constexpr uint32_t kMesh = bits(MultiChip);
  constexpr uint32_t kMonoid = bits(ElementwiseBinary | Commutative | Associative);
  using namespace ops;
  return {
      {OpKind::Argument,
       0,
       0,
       kLeaf,
       {},
       "a graph input or weight; its type is given",
       infer_argument,
       eval_argument},
      {OpKind::Constant,
       0,
       0,
       kLeaf,
       {required("value", AttrKind::FloatList, "1 element (a splat) or one per element"),
        required("shape", AttrKind::IntList, "the result shape"),
        required("dtype", AttrKind::DType, "the result dtype")},
       "a tensor of literal values",
       infer_constant,
       eval_constant},
      {OpKind::Full,
       0,
       0,
       kLeaf,
       {required("shape", AttrKind::IntList, "the result shape"),
        required("fill_value", AttrKind::Float, "the value of every element"),
        defaulted("dtype", AttrKind::DType, DType::F32, "the result dtype")},
       "a tensor with every element equal to fill_value",
       infer_full,
       eval_full},
      {OpKind::Matmul, 2, 2, 0, matmul_attrs(),
       "matrix product over the last two dims, batch dims broadcast as NumPy matmul", infer_matmul,
       eval_matmul},
      {OpKind::Linear, 2, 3, bits(Fused), linear_attrs(),
       "matmul(a, b) plus an optional bias (third operand) broadcast to the product, then an "
       "optional elementwise activation",
       infer_linear, eval_linear},
      {OpKind::Add, 2, 2, kMonoid, binary_attrs(), "a + b", infer_binary, eval_add},
      {OpKind::Subtract, 2, 2, kBinary, binary_attrs(), "a - b", infer_binary, eval_subtract},
      {OpKind::Multiply, 2, 2, kMonoid, binary_attrs(), "a * b", infer_binary, eval_multiply},
      {OpKind::Divide, 2, 2, kBinary, binary_attrs(), "a / b", infer_binary, eval_divide},
      {OpKind::Maximum, 2, 2, kMonoid, binary_attrs(), "max(a, b)", infer_binary, eval_maximum},
      {OpKind::Minimum, 2, 2, kMonoid, binary_attrs(), "min(a, b)", infer_binary, eval_minimum},
      {OpKind::Pow, 2, 2, kBinary, binary_attrs(), "a ^ b", infer_binary, eval_pow},
      {OpKind::Equal, 2, 2, bits(ElementwiseBinary | Commutative), binary_attrs(),
       "1 where a == b, else 0 (in the operand dtype)", infer_binary, eval_equal},
      {OpKind::Less, 2, 2, kBinary, binary_attrs(), "1 where a < b, else 0 (in the operand dtype)",
       infer_binary, eval_less},
      {OpKind::Greater, 2, 2, kBinary, binary_attrs(),
       "1 where a > b, else 0 (in the operand dtype)", infer_binary, eval_greater},
      {OpKind::Where,
       3,
       3,
       0,
       {},
       "a where cond (operand 0, any dtype) is nonzero, else b; the three operands broadcast as "
       "NumPy does, a and b share the result dtype",
       infer_where,
       eval_where},
      {OpKind::Relu, 1, 1, kUnary | bits(Idempotent), {}, "max(x, 0)", infer_unary, eval_relu},
      {OpKind::Gelu, 1, 1, kUnary, {}, "x * Phi(x), the exact erf form", infer_unary, eval_gelu},
      {OpKind::Exp, 1, 1, kUnary, {}, "e^x", infer_unary, eval_exp},
      {OpKind::Log, 1, 1, kUnary, {}, "natural logarithm", infer_unary, eval_log},
      {OpKind::Neg, 1, 1, kUnary | bits(Involution), {}, "-x", infer_unary, eval_neg},
      {OpKind::Abs, 1, 1, kUnary | bits(Idempotent), {}, "|x|", infer_unary, eval_abs},
      {OpKind::Sin, 1, 1, kUnary, {}, "sin(x)", infer_unary, eval_sin},
      {OpKind::Cos, 1, 1, kUnary, {}, "cos(x)", infer_unary, eval_cos},
      {OpKind::Tanh, 1, 1, kUnary, {}, "tanh(x)", infer_unary, eval_tanh},
      {OpKind::Sigmoid, 1, 1, kUnary, {}, "1 / (1 + e^-x)", infer_unary, eval_sigmoid},
      {OpKind::Silu, 1, 1, kUnary, {}, "x * sigmoid(x) (swish)", infer_unary, eval_silu},
      {OpKind::Sqrt, 1, 1, kUnary, {}, "square root", infer_unary, eval_sqrt},
      {OpKind::Rsqrt, 1, 1, kUnary, {}, "1 / sqrt(x)", infer_unary, eval_rsqrt},
      // Not an involution in floating point: 1 / (1 / x) can differ from x in the last bit.
      {OpKind::Reciprocal, 1, 1, kUnary, {}, "1 / x", infer_unary, eval_reciprocal},
      {OpKind::Erf, 1, 1, kUnary, {}, "the error function", infer_unary, eval_erf},
      {OpKind::Transpose,
       1,
       1,
       kData,
       {required("dim0", AttrKind::Int, "first dim to swap (negative counts from the end)"),
        required("dim1", AttrKind::Int, "second dim to swap (negative counts from the end)")},
       "swaps two dims",
       infer_transpose,
       eval_transpose},
      {OpKind::Permute,
       1,
       1,
       kData,
       {required("permutation", AttrKind::IntList, "result dim i is operand dim permutation[i]")},
       "reorders dims",
       infer_permute,
       eval_permute},
      {OpKind::Broadcast,
       1,
       1,
       kData,
       {required("shape", AttrKind::IntList, "the result shape"),
        defaulted("dims", AttrKind::IntList, IntList{},
                  "operand dim i maps to result dim dims[i]; empty: NumPy right alignment")},
       "repeats extent-1 and missing dims up to shape",
       infer_broadcast,
       eval_broadcast},
      {OpKind::Reshape,
       1,
       1,
       kData,
       {required("shape", AttrKind::IntList, "the result shape; one extent may be -1")},
       "same elements in row-major order, new shape",
       infer_reshape,
       eval_reshape},
      {OpKind::Concat,
       1,
       -1,
       kData,
       {required("dim", AttrKind::Int, "the dim to join along")},
       "joins operands along dim",
       infer_concat,
       eval_concat},
      {OpKind::Slice,
       1,
       1,
       kData,
       {required("begins", AttrKind::IntList, "first index per dim (negative counts from end)"),
        required("ends", AttrKind::IntList, "one past the last index per dim"),
        defaulted("step", AttrKind::IntList, IntList{}, "positive stride per dim; empty: all 1")},
       "a strided window of the operand",
       infer_slice,
       eval_slice},
      {OpKind::Typecast,
       1,
       1,
       kUnary,
       {required("dtype", AttrKind::DType, "the result dtype")},
       "converts elements to dtype (to i32: truncation toward zero)",
       infer_typecast,
       eval_typecast},
      {OpKind::Take,
       2,
       2,
       kData,
       {defaulted("dim", AttrKind::Int, int64_t{0}, "the dim of the data operand indexed")},
       "picks slices of data (operand 0) along dim by i32 indices (operand 1; negative counts "
       "from the end); result shape: data dims before dim, indices dims, data dims after dim",
       infer_take,
       eval_take},
      {OpKind::Sum, 1, 1, kReduce, reduce_attrs(), "sum over dims", infer_reduce, eval_sum},
      {OpKind::Mean, 1, 1, kReduce, reduce_attrs(), "mean over dims", infer_reduce, eval_mean},
      {OpKind::Max, 1, 1, kReduce, reduce_attrs(), "maximum over dims", infer_reduce, eval_max},
      {OpKind::Softmax,
       1,
       1,
       0,
       {defaulted("dimension", AttrKind::Int, int64_t{-1}, "the dim normalized over")},
       "exp(x) / sum(exp(x)) along dimension",
       infer_softmax,
       eval_softmax},
      {OpKind::LayerNorm, 1, 3, 0, norm_attrs("added to the variance"),
       "(x - mean) / sqrt(variance + epsilon) over dims [axis, rank), times an optional scale "
       "(operand 1) plus an optional bias (operand 2), both broadcast over those dims",
       infer_layer_norm, eval_layer_norm},
      {OpKind::RmsNorm, 1, 2, 0, norm_attrs("added to the mean square"),
       "x / sqrt(mean(x^2) + epsilon) over dims [axis, rank), times an optional weight "
       "(operand 1) broadcast over those dims (ttnn's rms_norm)",
       infer_rms_norm, eval_rms_norm},
      {OpKind::Conv2d, 2, 3, 0,
       [] {
         std::vector<AttrSpec> a = window_attrs();
         a.push_back(defaulted("groups", AttrKind::Int, int64_t{1},
                               "channel groups; each output channel sees in_channels / groups "
                               "input channels"));
         a.back().kept = true;
         a.push_back(defaulted("activation", AttrKind::String, std::string(),
                               "an elementwise unary op applied to the result (\"relu\", "
                               "\"sigmoid\", ...); empty: none"));
         a.push_back(defaulted("batch_dim", AttrKind::Int, int64_t{0},
                               "the batch dim of the input and the result"));
         a.push_back(defaulted("height_dim", AttrKind::Int, int64_t{1},
                               "the height dim of the input and the result"));
         a.push_back(defaulted("width_dim", AttrKind::Int, int64_t{2},
                               "the width dim of the input and the result"));
         a.push_back(defaulted("channel_dim", AttrKind::Int, int64_t{3},
                               "the channel dim of the input and the result"));
         add_flat_image_attrs(a);
         return a;
       }(),
       "2-D cross-correlation of an input (NHWC unless the dim attributes say otherwise, e.g. "
       "channel_dim = 1, height_dim = 2, width_dim = 3 for NCHW) with an OIHW weight (O out "
       "channels, I in channels per group) plus an optional bias of O elements (shaped [O], "
       "1x1x1xO, or O at the channel dim and 1 elsewhere), then an optional elementwise "
       "activation; with batch_size, input_height and input_width the input and result are "
       "flattened NHWC ([1, 1, N*H*W, C], as ttnn keeps activations)",
       infer_conv2d, eval_conv2d},
      {OpKind::MaxPool2d, 1, 1, 0, pool_attrs(),
       "maximum over each window of an NCHW input (padding never wins), or of a flattened NHWC "
       "one (batch_size, input_height, input_width)",
       infer_pool2d, eval_max_pool2d},
      {OpKind::AvgPool2d, 1, 1, 0,
       [] {
         std::vector<AttrSpec> a = pool_attrs();
         a.push_back(defaulted("count_include_pad", AttrKind::Bool, false,
                               "divide by the window size including padded positions"));
         return a;
       }(),
       "mean over each window of an NCHW input, or of a flattened NHWC one (batch_size, "
       "input_height, input_width)",
       infer_pool2d, eval_avg_pool2d},
      {OpKind::AddRelu, 2, 2, kBinary | bits(Commutative) | bits(Fused), binary_attrs(),
       "relu(a + b)", infer_binary, eval_add_relu},
      {OpKind::FusedEltwise,
       1,
       -1,
       bits(Fused),
       {required("body", AttrKind::String,
                 "the fused op tree as an s-expression over operands %0, %1, ... and f32 "
                 "literals, e.g. \"(multiply (add (exp %0) (exp (neg %0))) 0.5)\"")},
       "one elementwise kernel evaluating body; each inner result is rounded to its dtype, "
       "exactly as the unfused ops would round it",
       infer_fused_eltwise,
       eval_fused_eltwise},
      {OpKind::SplitHeads,
       1,
       1,
       kData,
       {required("num_heads", AttrKind::Int, "the number of heads"),
        defaulted("parts", AttrKind::Int, int64_t{1},
                  "equal parts of the last dim (3: a fused Q/K/V projection)"),
        defaulted("part", AttrKind::Int, int64_t{0}, "the part split into heads"),
        defaulted("transpose", AttrKind::Bool, false,
                  "heads as [batch, heads, head_dim, seq] (a key for Q @ K^T)")},
       "[batch, seq, parts * heads * head_dim] -> part `part` as [batch, heads, seq, head_dim] "
       "(ttnn's split_query_key_value_and_split_heads, one result per part)",
       infer_split_heads,
       eval_split_heads},
      {OpKind::ConcatenateHeads,
       1,
       1,
       kData,
       {},
       "[batch, heads, seq, head_dim] -> [batch, seq, heads * head_dim] (ttnn's "
       "concatenate_heads)",
       infer_concatenate_heads,
       eval_concatenate_heads},
      {OpKind::Attention,
       3,
       4,
       0,
       {defaulted("scale", AttrKind::Float, 0.0, "multiplies q k^T; 0: 1 / sqrt(head_dim)"),
        defaulted("is_causal", AttrKind::Bool, false,
                  "query position i attends to key positions <= i only"),
        defaulted("mask_kind", AttrKind::String, std::string("add"),
                  "how the mask (operand 3) applies: \"add\" adds it to the scaled scores, "
                  "\"select\" keeps a score where the mask is nonzero and takes mask_fill "
                  "elsewhere"),
        defaulted("mask_fill", AttrKind::Float, 0.0, "the score where a select mask is 0")},
       "softmax(q k^T * scale + mask) v over query [batch, heads, seq, head_dim], key and value "
       "[batch, kv_heads, kv_seq, head_dim] (heads a multiple of kv_heads: grouped queries), an "
       "optional mask broadcast to the scores [batch, heads, seq, kv_seq] (ttnn's "
       "transformer.scaled_dot_product_attention)",
       infer_attention,
       eval_attention},
      {OpKind::RotaryEmbedding,
       3,
       3,
       0,
       {},
       "x * cos + rotate_half(x) * sin over x [..., seq, head_dim] (head_dim even), cos and sin "
       "broadcast to x, where rotate_half(x) = concat(-x[..., head_dim/2:], x[..., :head_dim/2]) "
       "(ttnn's experimental.rotary_embedding, the rotate-half convention)",
       infer_rotary_embedding,
       eval_rotary_embedding},
      {OpKind::MeshShard,
       1,
       1,
       kMesh,
       {required("shard_type", AttrKind::String,
                 "replicate (every chip holds the whole tensor) or devices (each holds a block)"),
        required("shard_direction", AttrKind::String,
                 "full_to_shard (a host tensor to each chip's shard) or shard_to_full (the "
                 "chips' shards back to one tensor)"),
        required("shard_shape", AttrKind::IntList, "pieces per tensor dim (replicate: [1])"),
        required("shard_dims", AttrKind::IntList,
                 "per mesh axis, the tensor dim split over its chips, or -1 (replicate: [-1])")},
       "moves a tensor between the host and the chips of a mesh: each chip's shard of a full "
       "tensor, or the full tensor from the chips' shards",
       infer_mesh_shard,
       eval_mesh_shard},
      {OpKind::AllGather,
       1,
       1,
       kMesh,
       {required("all_gather_dim", AttrKind::Int, "the dim the chips' tensors are joined along"),
        cluster_axis(), cluster_size()},
       "every chip of the group gets the group's tensors joined along all_gather_dim, in chip "
       "order",
       infer_all_gather,
       eval_all_gather},
      {OpKind::ReduceScatter,
       1,
       1,
       kMesh,
       {reduce_type(),
        required("scatter_dim", AttrKind::Int, "the dim the reduced tensor is split along"),
        cluster_axis(), cluster_size()},
       "the group's tensors reduced elementwise, split along scatter_dim; chip k of the group "
       "keeps piece k",
       infer_reduce_scatter,
       eval_reduce_scatter},
      {OpKind::AllReduce,
       1,
       1,
       kMesh,
       {reduce_type(), cluster_axis()},
       "every chip of the group gets the elementwise reduction of the group's tensors",
       infer_all_reduce,
       eval_all_reduce},
  };
}

const std::vector<OpInfo>& table() {
  static const std::vector<OpInfo> infos = [] {
    std::vector<OpInfo> out(static_cast<size_t>(kNumOpKinds));
    std::vector<bool> seen(out.size(), false);
    for (Entry& e : entries()) {
      auto i = static_cast<size_t>(e.kind);
      if (seen[i])
        throw InternalError(fmt::format("op table: '{}' declared twice", name_of(e.kind)));
      seen[i] = true;
      out[i] = OpInfo{e.kind,         name_of(e.kind), e.min_operands,
                      e.max_operands, e.traits,        std::move(e.attrs),
                      e.summary,      e.infer,         e.eval};
    }
    for (size_t i = 0; i < seen.size(); ++i) {
      if (!seen[i]) {
        throw InternalError(fmt::format("op table: '{}' has no entry", name_of(OpKind(i))));
      }
    }
    return out;
  }();
  return infos;
}

const std::array<OpKind, kNumOpKinds> kAllKinds = {
#define TILESAT_OP(Enum, name) OpKind::Enum,
#include "tilesat/graph/ops.def"
};

// The value converted to `kind` when that loses nothing, else nullopt.
std::optional<AttrValue> coerce(const AttrValue& v, const AttrSpec& spec) {
  AttrKind kind = spec.kind;
  if (attr_kind(v) == kind) return v;
  if (spec.scalar_ok && attr_kind(v) == AttrKind::Int) return v;
  if (kind == AttrKind::Float) {
    if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  }
  if (kind == AttrKind::FloatList) {
    if (const auto* l = std::get_if<IntList>(&v)) return FloatList(l->begin(), l->end());
  }
  if (kind == AttrKind::IntList) {
    if (const auto* l = std::get_if<FloatList>(&v); l != nullptr && l->empty()) return IntList{};
  }
  return std::nullopt;
}

} // namespace

const AttrSpec* OpInfo::attr_spec(std::string_view attr) const {
  for (const AttrSpec& s : attrs) {
    if (s.name == attr) return &s;
  }
  return nullptr;
}

const OpInfo& op_info(OpKind kind) {
  auto i = static_cast<size_t>(kind);
  if (i >= table().size()) throw InternalError(fmt::format("op_info: invalid OpKind {}", i));
  return table()[i];
}

std::optional<OpKind> op_by_name(std::string_view name) {
  for (const OpInfo& info : table()) {
    if (info.name == name) return info.kind;
  }
  return std::nullopt;
}

std::string_view op_name(OpKind kind) {
  return op_info(kind).name;
}

std::span<const OpKind> all_op_kinds() {
  return kAllKinds;
}

Attrs complete_attrs(OpKind kind, const Attrs& attrs) {
  try {
    return ops::with_defaults(op_info(kind), attrs);
  } catch (const Error& e) {
    throw Error(fmt::format("'ttir.{}': {}", op_name(kind), e.diagnostic().message));
  }
}

namespace ops {

Attrs with_defaults(const OpInfo& info, const Attrs& attrs) {
  Attrs out = attrs;
  for (const AttrSpec& spec : info.attrs) {
    const AttrValue* v = attrs.find(spec.name);
    if (v == nullptr) {
      if (!spec.default_value) {
        fail(fmt::format("expected attribute '{}' ({}), got none", spec.name,
                         attr_kind_name(spec.kind)));
      }
      out.set(std::string(spec.name), *spec.default_value);
      continue;
    }
    std::optional<AttrValue> c = coerce(*v, spec);
    if (!c) {
      fail(fmt::format("expected attribute '{}' to be {}, got {} {}", spec.name,
                       attr_kind_name(spec.kind), attr_kind_name(attr_kind(*v)),
                       attr_value_str(*v)));
    }
    out.set(std::string(spec.name), std::move(*c));
  }
  return out;
}

void check_operand_count(const OpInfo& info, size_t n) {
  auto count = static_cast<int>(n);
  if (count >= info.min_operands && (info.max_operands < 0 || count <= info.max_operands)) return;
  auto plural = [](int k) { return k == 1 ? "operand" : "operands"; };
  if (info.max_operands < 0) {
    fail(fmt::format("expected at least {} {}, got {}", info.min_operands,
                     plural(info.min_operands), n));
  }
  if (info.min_operands == info.max_operands) {
    fail(fmt::format("expected {} {}, got {}", info.min_operands, plural(info.min_operands), n));
  }
  fail(fmt::format("expected {} to {} operands, got {}", info.min_operands, info.max_operands, n));
}

} // namespace ops

} // namespace tilesat
