// converters.cpp: the table of supported ONNX op types and helpers shared by converters.
#include "converters.h"

#include <fmt/format.h>
#include <numeric>
#include <onnx/onnx_pb.h>
#include <utility>

namespace tilesat::onnx {

namespace {

constexpr std::pair<std::string_view, Converter> kConverters[] = {
    // Elementwise.
    {"Relu", convert_unary},
    {"Sigmoid", convert_unary},
    {"Tanh", convert_unary},
    {"Exp", convert_unary},
    {"Log", convert_unary},
    {"Sqrt", convert_unary},
    {"Erf", convert_unary},
    {"Neg", convert_unary},
    {"Abs", convert_unary},
    {"Reciprocal", convert_unary},
    {"Sin", convert_unary},
    {"Cos", convert_unary},
    {"Add", convert_binary},
    {"Sub", convert_binary},
    {"Mul", convert_binary},
    {"Div", convert_binary},
    {"Pow", convert_binary},
    {"Max", convert_variadic},
    {"Min", convert_variadic},
    {"Sum", convert_variadic},
    {"Mean", convert_variadic},
    {"LeakyRelu", convert_leaky_relu},
    {"And", convert_logical},
    {"Or", convert_logical},
    {"Xor", convert_logical},
    {"Sinh", convert_math},
    {"Cosh", convert_math},
    {"Tan", convert_math},
    {"Atan", convert_math},
    {"Asin", convert_math},
    {"Acos", convert_math},
    {"Asinh", convert_math},
    {"Acosh", convert_math},
    {"Atanh", convert_math},
    {"Sign", convert_math},
    {"ThresholdedRelu", convert_math},
    {"Shrink", convert_math},
    {"IsInf", convert_math},
    {"IsNaN", convert_math},
    {"Floor", convert_math},
    {"Ceil", convert_math},
    {"Round", convert_round},
    {"MeanVarianceNormalization", convert_math},
    {"Elu", convert_math},
    {"Selu", convert_math},
    {"Celu", convert_math},
    {"Softplus", convert_math},
    {"Softsign", convert_math},
    {"GlobalMaxPool", convert_math},
    {"InstanceNormalization", convert_instance_norm},
    {"GroupNormalization", convert_group_norm},
    {"Mish", convert_math},
    {"Gelu", convert_math},
    {"EyeLike", convert_eye_like},
    {"PRelu", convert_leaky_relu},
    {"Clip", convert_clip},
    {"HardSigmoid", convert_hard_sigmoid},
    {"HardSwish", convert_hard_sigmoid},
    {"Mod", convert_mod_runtime},
    {"BitShift", convert_bit_shift},
    {"Not", convert_not},
    {"Identity", convert_identity},
    {"Dropout", convert_identity},
    // Comparisons and selection.
    {"Equal", convert_compare},
    {"Less", convert_compare},
    {"Greater", convert_compare},
    {"Where", convert_where},
    {"GreaterOrEqual", convert_compare_or_equal},
    {"LessOrEqual", convert_compare_or_equal},
    // Matrix products.
    {"MatMul", convert_matmul},
    {"Gemm", convert_gemm},
    {"Einsum", convert_einsum},
    // Shapes and constants.
    {"Constant", convert_constant},
    {"ConstantOfShape", convert_constant_of_shape},
    {"Shape", convert_shape},
    {"Cast", convert_cast},
    {"CastLike", convert_cast_like},
    {"Size", convert_size},
    {"Range", convert_range},
    // Data movement.
    {"Reshape", convert_reshape},
    {"Flatten", convert_flatten},
    {"Squeeze", convert_squeeze},
    {"Unsqueeze", convert_unsqueeze},
    {"Transpose", convert_transpose},
    {"Concat", convert_concat},
    {"Split", convert_split},
    {"Slice", convert_slice},
    {"Gather", convert_gather},
    {"GatherElements", convert_gather_elements},
    {"Expand", convert_expand},
    {"Pad", convert_pad},
    {"Resize", convert_resize},
    {"GridSample", convert_grid_sample},
    {"Trilu", convert_trilu},
    {"ScatterND", convert_scatter_nd_runtime},
    {"ScatterElements", convert_scatter_elements},
    {"Scatter", convert_scatter_elements},
    {"GatherND", convert_gather_nd},
    {"Compress", convert_compress},
    {"Tile", convert_tile},
    {"DepthToSpace", convert_depth_space},
    {"SpaceToDepth", convert_depth_space},
    {"OneHot", convert_one_hot},
    {"ReverseSequence", convert_reverse_sequence},
    // Reductions.
    {"Softmax", convert_softmax},
    {"ReduceMean", convert_reduce},
    {"ReduceSum", convert_reduce},
    {"ReduceMax", convert_reduce},
    {"ReduceMin", convert_reduce_composite},
    {"ReduceSumSquare", convert_reduce_composite},
    {"ReduceL1", convert_reduce_composite},
    {"ReduceL2", convert_reduce_composite},
    {"ReduceLogSum", convert_reduce_composite},
    {"ReduceLogSumExp", convert_reduce_composite},
    {"ReduceProd", convert_reduce_composite},
    {"ArgMax", convert_arg_extreme},
    {"ArgMin", convert_arg_extreme},
    {"TopK", convert_top_k},
    {"Hardmax", convert_hardmax},
    {"LogSoftmax", convert_log_softmax},
    {"CumSum", convert_cumsum},
    {"NegativeLogLikelihoodLoss", convert_nll_loss},
    {"SoftmaxCrossEntropyLoss", convert_softmax_cross_entropy},
    {"GlobalAveragePool", convert_global_average_pool},
    // Convolution, pooling and normalization.
    {"Conv", convert_conv},
    {"ConvTranspose", convert_conv_transpose},
    {"BatchNormalization", convert_batch_norm},
    {"MaxPool", convert_pool},
    {"AveragePool", convert_pool},
    {"MaxUnpool", convert_max_unpool},
    {"LayerNormalization", convert_layer_norm},
    {"LRN", convert_lrn},
    // Linear quantization, computed in float.
    {"QuantizeLinear", convert_quantize_linear},
    {"DequantizeLinear", convert_dequantize_linear},
    {"DynamicQuantizeLinear", convert_dynamic_quantize_linear},
    // Integer-quantized ops: dequantize -> float op -> quantize (qlinear.cpp).
    {"QLinearConv", convert_qlinear_conv},
    {"QLinearMatMul", convert_qlinear_matmul},
    {"MatMulInteger", convert_matmul_integer},
    {"ConvInteger", convert_conv_integer},
    // Signal processing: Fourier transforms as matmuls and convs, windows folded at import.
    {"DFT", convert_dft},
    {"STFT", convert_stft},
    {"HannWindow", convert_window},
    {"HammingWindow", convert_window},
    {"BlackmanWindow", convert_window},
    {"MelWeightMatrix", convert_mel_weight_matrix},
    // Control flow with conditions and trip counts known at import.
    {"If", convert_if},
    {"Loop", convert_loop},
    {"Scan", convert_scan},
    // Recurrences, unrolled over the sequence.
    {"LSTM", convert_lstm},
    {"GRU", convert_gru},
    {"RNN", convert_rnn},
};

// The com.microsoft ops ONNX Runtime's QOperator quantizer and transformer optimizer write next
// to the standard ones.
constexpr std::pair<std::string_view, Converter> kMicrosoftConverters[] = {
    {"QLinearAdd", convert_qlinear_binary},
    {"QLinearMul", convert_qlinear_binary},
    {"QLinearSigmoid", convert_qlinear_activation},
    {"QLinearLeakyRelu", convert_qlinear_activation},
    {"QLinearAveragePool", convert_qlinear_pool},
    {"QLinearGlobalAveragePool", convert_qlinear_pool},
    {"QLinearConcat", convert_qlinear_concat},
    {"QLinearSoftmax", convert_qlinear_softmax},
    {"QGemm", convert_qgemm},
    // What ONNX Runtime's transformer optimizer fuses BERT-, GPT- and T5-style models into.
    {"Gelu", convert_contrib_gelu},
    {"BiasGelu", convert_contrib_gelu},
    {"FastGelu", convert_contrib_gelu},
    {"QuickGelu", convert_contrib_gelu},
    {"FusedMatMul", convert_fused_matmul},
    {"BiasAdd", convert_bias_add},
    {"LayerNormalization", convert_layer_norm},
    {"SkipLayerNormalization", convert_skip_layer_norm},
    {"SkipSimplifiedLayerNormalization", convert_skip_layer_norm},
    {"SimplifiedLayerNormalization", convert_simplified_layer_norm},
    {"EmbedLayerNormalization", convert_embed_layer_norm},
    {"Attention", convert_contrib_attention},
    {"MultiHeadAttention", convert_multi_head_attention},
    {"MatMulNBits", convert_matmul_nbits},
    {"RotaryEmbedding", convert_contrib_rotary},
    {"FusedConv", convert_fused_conv},
};

} // namespace

Converter find_converter(std::string_view op_type) {
  for (const auto& [name, conv] : kConverters) {
    if (name == op_type) return conv;
  }
  return nullptr;
}

Converter find_microsoft_converter(std::string_view op_type) {
  for (const auto& [name, conv] : kMicrosoftConverters)
    if (name == op_type) return conv;
  return nullptr;
}

HostTensor host(int32_t elem_type, std::vector<int64_t> dims, std::vector<double> values) {
  return HostTensor{elem_type, std::move(dims), std::move(values)};
}

HostTensor shape_tensor(std::span<const int64_t> dims) {
  std::vector<double> v(dims.begin(), dims.end());
  return host(::onnx::TensorProto::INT64, {static_cast<int64_t>(dims.size())}, std::move(v));
}

Value operand_like(NodeContext& c, size_t i, DType like, bool scalar_ok) {
  if (!c.input_static(i)) return c.operand(i);
  const HostTensor& h = *c.input(i).data;
  if (scalar_ok && h.numel() == 1) {
    return c.builder().scalar(h.values[0], like);
  }
  return c.builder().constant(to_tensor(h, like));
}

double static_scalar(NodeContext& c, size_t i, std::string_view what) {
  const HostTensor& t = c.input_data(i, what);
  if (t.numel() != 1) c.fail(fmt::format("expected a one-element '{}', got {}", what, t.numel()));
  return t.values[0];
}

int64_t static_int(NodeContext& c, size_t i, std::string_view what) {
  static_scalar(c, i, what);
  return c.input_data(i, what).ints()[0];
}

Value iota(Builder& b, int64_t n, int64_t axis, int64_t rank, DType dtype) {
  std::vector<int64_t> dims(static_cast<size_t>(rank), 1);
  dims[static_cast<size_t>(axis)] = n;
  std::vector<double> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0.0);
  return b.constant(Shape(dims), std::move(v), dtype);
}

Value in_f32(Builder& b, Value v) {
  return b.type(v).dtype == DType::F32 ? v : b.typecast(v, DType::F32);
}

std::vector<int64_t> spatial_dims(NodeContext& c, const Shape& s) {
  if (s.rank() < 3)
    c.fail(fmt::format("expected an input of rank >= 3 (N, C, spatial...), got {}", s.rank()));
  std::vector<int64_t> dims;
  for (int64_t d = 2; d < s.rank(); ++d) dims.push_back(d);
  return dims;
}

std::optional<std::vector<int64_t>> axes_of(NodeContext& c, int64_t input_since,
                                            size_t input_index) {
  if (c.opset() < input_since) {
    if (!c.has_attr("axes")) return std::nullopt;
    return c.attr_ints("axes", {});
  }
  if (!c.has_input(input_index)) return std::nullopt;
  return c.input_data(input_index, "axes").ints();
}

} // namespace tilesat::onnx
