// converters.h: private to onnx/: the converter of every supported ONNX op type, by family,
// and small helpers they share.
#pragma once

#include "host_ops.h"
#include "importer.h"

#include <onnx/onnx_pb.h>
#include <optional>
#include <span>
#include <string>

namespace tilesat::onnx {

// elementwise.cpp
void convert_unary(NodeContext& c);
void convert_binary(NodeContext& c);
void convert_clip(NodeContext& c);
void convert_identity(NodeContext& c);
// matmul.cpp
void convert_matmul(NodeContext& c);
void convert_gemm(NodeContext& c);
// einsum.cpp
void convert_einsum(NodeContext& c);
// shape.cpp
void convert_constant(NodeContext& c);
void convert_constant_of_shape(NodeContext& c);
void convert_shape(NodeContext& c);
void convert_cast(NodeContext& c);
void convert_range(NodeContext& c);
// data_movement.cpp
void convert_reshape(NodeContext& c);
void convert_flatten(NodeContext& c);
void convert_squeeze(NodeContext& c);
void convert_unsqueeze(NodeContext& c);
void convert_transpose(NodeContext& c);
void convert_concat(NodeContext& c);
void convert_split(NodeContext& c);
void convert_slice(NodeContext& c);
void convert_gather(NodeContext& c);
void convert_expand(NodeContext& c);
// reduction.cpp
void convert_softmax(NodeContext& c);
void convert_reduce(NodeContext& c);
void convert_global_average_pool(NodeContext& c);
/// Input 0 as the softmax family (Softmax, LogSoftmax, Hardmax) reads it, and the axis: before
/// opset 13 the default axis is 1 and the input is seen as 2-D [dims before axis, dims from
/// axis on] (reshaped so, axis 1); from 13 on the default is -1 and the input is as it is.
std::pair<Value, int64_t> softmax_operand(NodeContext& c);
/// `y` (computed from softmax_operand's value) in input 0's shape: reshaped back when the
/// input was seen as 2-D.
Value shaped_as_input(NodeContext& c, Value y);
/// log(softmax(x)) over `axis` as x - max - log(sum(exp(x - max))), which does not overflow.
Value log_softmax(Builder& b, Value x, int64_t axis);
// recurrent.cpp
void convert_lstm(NodeContext& c);
void convert_gru(NodeContext& c);
void convert_rnn(NodeContext& c);
/// An activation function by the name ONNX's recurrent ops give it, with its parameters.
///
///   Activation a = *activation_named("HardSigmoid", {}, {});   // alpha 0.2, beta 0.5
///   Value y = apply_activation(b, a, x);
struct Activation {
  std::string name; // as the ONNX spec spells it ("Sigmoid", "LeakyRelu", ...)
  double alpha = 0, beta = 0;
};
/// The activation `name` (any letter case): Relu, Tanh, Sigmoid, Affine, LeakyRelu,
/// ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus. Those with an alpha (or
/// beta) take the front of `alphas` (`betas`), which is then dropped, else the spec's default;
/// nullopt for any other name.
std::optional<Activation> activation_named(std::string_view name, std::span<const float>& alphas,
                                           std::span<const float>& betas);
/// `a` applied to x with the graph's ops.
Value apply_activation(Builder& b, const Activation& a, Value x);
// contrib.cpp: com.microsoft transformer ops (ONNX Runtime's transformer optimizer)
void convert_contrib_gelu(NodeContext& c);
void convert_fused_matmul(NodeContext& c);
void convert_bias_add(NodeContext& c);
void convert_skip_layer_norm(NodeContext& c);
void convert_simplified_layer_norm(NodeContext& c);
void convert_embed_layer_norm(NodeContext& c);
void convert_contrib_attention(NodeContext& c);
void convert_multi_head_attention(NodeContext& c);
void convert_matmul_nbits(NodeContext& c);
void convert_contrib_rotary(NodeContext& c);
// conv.cpp
void convert_fused_conv(NodeContext& c);
// control_flow.cpp
void convert_if(NodeContext& c);
void convert_loop(NodeContext& c);
/// Scan: unrolled over its scan inputs' static length (at most 4096 steps), each step reading
/// their slices in either direction; scan outputs stacked along their axes.
void convert_scan(NodeContext& c);
// quantize.cpp
void convert_round(NodeContext& c);
void convert_quantize_linear(NodeContext& c);
void convert_dequantize_linear(NodeContext& c);
void convert_dynamic_quantize_linear(NodeContext& c);
/// The values an integer element type saturates to.
struct IntRange {
  double lo = 0, hi = 0;
};
/// The range of int8, uint8, int16, uint16 or int32; nullopt for any other element type.
std::optional<IntRange> range_of(int32_t elem_type);
/// x rounded half to even with the graph's ops (|x| < 2^31: it truncates through i32).
Value round_graph(Builder& b, Value x);
/// The last step of every quantizer: min(max(round_graph(v) + zero_point, r.lo), r.hi) in v's
/// dtype (no zero point: 0).
Value round_saturate(Builder& b, Value v, const Value* zero_point, IntRange r);
/// The dims in which quantization parameter `param` (input `param`: a scale or zero point) of
/// a tensor of shape x broadcasts against it: nullopt for one element (per tensor); for a 1-D
/// one with x[axis] elements (per axis; a negative `axis` counts from the end), x's rank with
/// x[axis] at `axis` and 1 elsewhere. Fails naming `what` otherwise.
std::optional<std::vector<int64_t>> per_axis_dims(NodeContext& c, size_t param, const Shape& x,
                                                  int64_t axis, std::string_view what);
/// Input i (a scale or zero point) as a graph value of `dtype` shaped `dims` (nullopt: a
/// scalar), as per_axis_dims gives them.
Value param_operand(NodeContext& c, size_t i, DType dtype,
                    const std::optional<std::vector<int64_t>>& dims);
/// The ONNX element type of input i (tilesat holds every integer type in i32): its data's, as
/// the model declares it, else as its producer sets it (Cast's 'to', a quantizer's zero point,
/// int32 from MatMulInteger and ConvInteger, input 0's through data movement); nullopt when
/// none of those tells.
std::optional<int32_t> elem_type_of(NodeContext& c, size_t i);
// qlinear.cpp: integer-quantized ops (ai.onnx and ONNX Runtime's com.microsoft QOperator ops)
// as dequantize -> float op -> quantize.
/// QLinearConv: the integer convolution (bias added), requantized per output channel.
void convert_qlinear_conv(NodeContext& c);
/// QLinearMatMul: the integer product, requantized per tensor, row of a or column of b.
void convert_qlinear_matmul(NodeContext& c);
/// MatMulInteger: the int32 product of the operands less their zero points.
void convert_matmul_integer(NodeContext& c);
/// ConvInteger: the int32 convolution of the operands less their zero points.
void convert_conv_integer(NodeContext& c);
/// com.microsoft QLinearAdd and QLinearMul.
void convert_qlinear_binary(NodeContext& c);
/// com.microsoft QLinearSigmoid and QLinearLeakyRelu.
void convert_qlinear_activation(NodeContext& c);
/// com.microsoft QLinearAveragePool and QLinearGlobalAveragePool (NCHW or channels last).
void convert_qlinear_pool(NodeContext& c);
/// com.microsoft QLinearConcat.
void convert_qlinear_concat(NodeContext& c);
/// com.microsoft QLinearSoftmax: the softmax of the real values, requantized.
void convert_qlinear_softmax(NodeContext& c);
/// com.microsoft QGemm: alpha a_scale b_scale (A' B' + C), requantized, or in f32 without
/// y_scale.
void convert_qgemm(NodeContext& c);
/// The converter of com.microsoft op `op_type`: only the contrib ops ONNX Runtime's QOperator
/// quantizer writes next to the standard ones (QLinearAdd, QLinearMul, QLinearSigmoid,
/// QLinearLeakyRelu, QLinearAveragePool, QLinearGlobalAveragePool, QLinearConcat,
/// QLinearSoftmax, QGemm); nullptr
/// for any other.
Converter find_microsoft_converter(std::string_view op_type);
/// A convolution or pooling window over n spatial dims (ONNX's attributes, auto_pad resolved).
struct ConvWindow {
  std::vector<int64_t> kernel, stride, dilation, pad_begin, pad_end;
  /// A 2-D window's pads as the graph's conv2d and pools take them: [top, left, bottom, right].
  std::vector<int64_t> padding_2d() const {
    return {pad_begin.at(0), pad_begin.at(1), pad_end.at(0), pad_end.at(1)};
  }
};
/// The window of a Conv-like node (its 'kernel_shape', 'strides', 'dilations', 'pads' and
/// 'auto_pad') over input shape x [N, C, spatial...] (1-, 2- or 3-D) with weight shape w [O,
/// C / group, kernel...]; fails on ranks or attributes that do not fit (conv.cpp).
ConvWindow conv_window(NodeContext& c, const Shape& x, const Shape& w);
/// The node's convolution over window `w` (1-, 2- or 3-D, 'group' from the node) of graph
/// values x and weight, plus bias [O] when given (conv.cpp).
Value conv_nd(NodeContext& c, Value x, Value weight, const Value* bias, const ConvWindow& w);
/// Kernel, strides, dilations and pads per spatial dim from the node's attributes, with
/// auto_pad resolved against the input's spatial extents `in` (conv.cpp).
ConvWindow window_of(NodeContext& c, const std::vector<int64_t>& in, std::vector<int64_t> kernel);
// unpool.cpp
/// MaxPool's Indices: for NCHW `x` and its max pool `y` over 2-D window `w`, the flat position
/// in x of each maximum (row-major, or column-major within each plane), as i32.
Value max_pool_indices(NodeContext& c, Value x, Value y, const ConvWindow& w, bool column_major);
void convert_max_unpool(NodeContext& c);
/// The node's MaxPool or AveragePool (1-, 2- or 3-D; its window, 'ceil_mode',
/// 'count_include_pad' and 'storage_order' attributes) of graph value x (conv.cpp).
Value pool_nd(NodeContext& c, Value x, bool is_max);
/// A 2-D MaxPool or AveragePool of NCHW `x` over window `w` (conv.cpp).
Value pool2d(Builder& b, Value x, const ConvWindow& w, bool is_max, bool ceil_mode,
             bool count_include_pad);
// volume.cpp: 3-D windows built from 2-D ones (the frames folded into the batch).
/// Conv over [N, C, D, H, W] with weight [O, C / groups, KD, KH, KW]: per depth tap a conv2d
/// of the frames it reads, summed.
Value conv3d_as_2d(Builder& b, Value x, Value weight, const Value* bias, const ConvWindow& w,
                   int64_t groups);
/// MaxPool or AveragePool over [N, C, D, H, W]: a 2-D pool of every frame, then the max or
/// mean over each depth window.
Value pool3d_as_2d(Builder& b, Value x, const ConvWindow& w, bool is_max, bool ceil_mode,
                   bool count_include_pad);
// spectral.cpp
void convert_dft(NodeContext& c);
void convert_stft(NodeContext& c);
void convert_window(NodeContext& c);
void convert_mel_weight_matrix(NodeContext& c);
// conv.cpp
void convert_conv(NodeContext& c);
void convert_batch_norm(NodeContext& c);
void convert_pool(NodeContext& c);
// select.cpp
void convert_compare(NodeContext& c);
void convert_where(NodeContext& c);
// composite.cpp
void convert_arg_extreme(NodeContext& c);
void convert_top_k(NodeContext& c);
void convert_hardmax(NodeContext& c);
void convert_log_softmax(NodeContext& c);
void convert_reduce_composite(NodeContext& c);
void convert_cumsum(NodeContext& c);
void convert_size(NodeContext& c);
void convert_cast_like(NodeContext& c);
void convert_variadic(NodeContext& c);
void convert_leaky_relu(NodeContext& c);
void convert_compare_or_equal(NodeContext& c);
void convert_logical(NodeContext& c);
void convert_math(NodeContext& c);
void convert_eye_like(NodeContext& c);
void convert_bit_shift(NodeContext& c);
void convert_mod_runtime(NodeContext& c);
// positions.cpp
void convert_scatter_elements(NodeContext& c);
void convert_scatter_nd_runtime(NodeContext& c);
void convert_gather_nd(NodeContext& c);
void convert_compress(NodeContext& c);
void convert_tile(NodeContext& c);
void convert_depth_space(NodeContext& c);
void convert_one_hot(NodeContext& c);
void convert_conv_transpose(NodeContext& c);
void convert_instance_norm(NodeContext& c);
/// GroupNormalization (opset 18: scale and bias per group; 21: per channel).
void convert_group_norm(NodeContext& c);
void convert_gather_elements(NodeContext& c);
// runtime_indices.cpp: the runtime-indices forms of GatherElements and ScatterElements, and
// ReverseSequence, a gather whose indices follow from runtime lengths.
void gather_elements_runtime(NodeContext& c);
void scatter_elements_runtime(NodeContext& c);
/// ReverseSequence: each batch entry's first sequence_lens steps reversed (lengths known at
/// import or not), as a one-hot gather along the time axis.
void convert_reverse_sequence(NodeContext& c);
// losses.cpp
void convert_nll_loss(NodeContext& c);
void convert_softmax_cross_entropy(NodeContext& c);
// resize.cpp
void convert_resize(NodeContext& c);
// grid_sample.cpp
/// GridSample over a 4-D X [N, C, H_in, W_in]: X times a dense sampling matrix
/// [N, H_in * W_in, H_out * W_out] (computed at import for a known grid, else from the graph's
/// ops); more than 2^28 elements in it is an error.
void convert_grid_sample(NodeContext& c);
// normalization.cpp
void convert_layer_norm(NodeContext& c);
void convert_lrn(NodeContext& c);
// padding_masks.cpp
void convert_pad(NodeContext& c);
/// `x` with `before` and `after` elements of `value` added around dim `axis` (both >= 0).
Value pad_constant(Builder& b, Value x, int64_t axis, int64_t before, int64_t after, double value);
/// min(max(alpha * x + beta, 0), 1).
Value hard_sigmoid(Builder& b, Value x, double alpha, double beta);
void convert_trilu(NodeContext& c);
void convert_hard_sigmoid(NodeContext& c);
void convert_mod(NodeContext& c);
void convert_not(NodeContext& c);
void convert_scatter_nd(NodeContext& c);

/// A host tensor of `elem_type` with the given dims and values.
HostTensor host(int32_t elem_type, std::vector<int64_t> dims, std::vector<double> values);
/// The dims of a graph or static value as a 1-D INT64 host tensor.
HostTensor shape_tensor(std::span<const int64_t> dims);
/// Input i as a graph value whose dtype is `like` when input i is static data (constants take
/// the dtype of the tensor they combine with; a one-element constant becomes a scalar when
/// `scalar_ok`).
Value operand_like(NodeContext& c, size_t i, DType like, bool scalar_ok);
/// Output 0 as binary op `kind` of inputs 0 and 1; a static operand takes the other's dtype
/// and becomes a scalar when that does not raise the result's rank.
void set_binary_output(NodeContext& c, OpKind kind);
/// The indices 0..n-1 along `axis` of a rank-`rank` tensor, as a constant of `dtype` with
/// extent 1 elsewhere.
Value iota(Builder& b, int64_t n, int64_t axis, int64_t rank, DType dtype);
/// `v` in f32 (typecast unless it is f32): the dtype that holds every index along any dim and
/// every 8- or 16-bit integer exactly (bf16's 8-bit mantissa stops at 256).
Value in_f32(Builder& b, Value v);
/// GELU's tanh approximation, 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) (Gelu of opset
/// 20 with approximate "tanh", com.microsoft FastGelu).
Value gelu_tanh(Builder& b, Value x);
/// The spatial dims (2 on) of an (N, C, spatial...) input of shape `s`; fails unless its rank
/// is at least 3.
std::vector<int64_t> spatial_dims(NodeContext& c, const Shape& s);
/// Input i as one value known at import (named `what` in errors); static_int rounds it toward
/// zero and clamps it to int64.
double static_scalar(NodeContext& c, size_t i, std::string_view what);
int64_t static_int(NodeContext& c, size_t i, std::string_view what);
/// Axes from the `axes` attribute (before opset `input_since`) or input 1 (from it on).
std::optional<std::vector<int64_t>> axes_of(NodeContext& c, int64_t input_since,
                                            size_t input_index);

} // namespace tilesat::onnx
