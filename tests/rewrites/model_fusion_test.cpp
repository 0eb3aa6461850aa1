// Tests of rules/model-fusion.rules. GELU and layer norm use erf and sqrt, which the Z3
// soundness check cannot encode exactly; REWRITE_TEST's comparison with the reference
// interpreter on random inputs (1e-5 relative) is their soundness evidence.
#include "rewrite_test_support.h"

namespace tilesat::rewrites {
namespace {

constexpr const char* kModelFusionRules = "model-fusion";

// x * (erf(x / s) + 1) * 0.5 as PyTorch's nn.GELU exports it, with sqrt(2) rounded to f32.
Value gelu_torch(Builder& b, Value x, double s = 1.4142135f, double half = 0.5) {
  Value e = b.erf(b.divide(x, b.scalar(s)));
  return b.multiply(b.multiply(x, b.add(e, b.scalar(1))), b.scalar(half));
}

REWRITE_TEST(
    ModelFusion, GeluFromErfForm, kModelFusionRules,
    [](Builder& b) {
      b.output(gelu_torch(b, b.input("x", {4, 8})));
    },
    "gelu")

// BERT-style: (x * 0.5) * (1 + erf(x / sqrt(2))).
REWRITE_TEST(
    ModelFusion, GeluScaledFirstOneFirst, kModelFusionRules,
    [](Builder& b) {
      Value x = b.input("x", {4, 8});
      Value p = b.add(b.scalar(1), b.erf(b.divide(x, b.scalar(1.4142135623730951))));
      b.output(b.multiply(b.multiply(x, b.scalar(0.5)), p));
    },
    "gelu")

REWRITE_TEST(
    ModelFusion, GeluWithReciprocalScale, kModelFusionRules,
    [](Builder& b) {
      Value x = b.input("x", {4, 8});
      Value e = b.erf(b.multiply(x, b.scalar(0.70710678)));
      b.output(b.multiply(b.multiply(x, b.add(e, b.scalar(1))), b.scalar(0.5)));
    },
    "gelu")

REWRITE_TEST(
    ModelFusion, GeluHalfFirst, kModelFusionRules,
    [](Builder& b) {
      Value x = b.input("x", {4, 8});
      Value e = b.erf(b.divide(x, b.scalar(1.4142135623730951)));
      b.output(b.multiply(b.scalar(0.5), b.multiply(x, b.add(e, b.scalar(1)))));
    },
    "gelu")

// GELU after a linear runs in the linear's kernel although the linear's result has two
// users in the erf form: both lead into the GELU the rules recognized.
REWRITE_TEST(
    ModelFusion, GeluOfLinearFusesIntoIt, "model-fusion,linear-fusion",
    [](Builder& b) {
      Value y = b.add(b.matmul(b.input("x", {4, 16}), b.weight("w", {16, 8})), b.weight("b", {8}));
      b.output(gelu_torch(b, y));
    },
    "linear")

// Negative: the linear's result is also a result of the graph, so it must be computed alone.
REWRITE_TEST(
    ModelFusion, GeluOfSharedLinearStaysApart, "model-fusion,linear-fusion",
    [](Builder& b) {
      Value y = b.add(b.matmul(b.input("x", {4, 16}), b.weight("w", {16, 8})), b.weight("b", {8}));
      b.output(y);
      b.output(gelu_torch(b, y));
    },
    "linear gelu")

// Negative: a different scale (x / 2) is not GELU.
REWRITE_TEST(
    ModelFusion, WrongScaleIsNotGelu, kModelFusionRules,
    [](Builder& b) {
      b.output(gelu_torch(b, b.input("x", {4, 8}), 2.0));
    },
    "constant divide erf constant add multiply constant multiply")

// Negative: erf of another tensor than the one multiplied.
REWRITE_TEST(
    ModelFusion, ErfOfOtherTensorIsNotGelu, kModelFusionRules,
    [](Builder& b) {
      Value x = b.input("x", {4, 8});
      Value y = b.input("y", {4, 8});
      Value e = b.erf(b.divide(y, b.scalar(1.4142135623730951)));
      b.output(b.multiply(b.multiply(x, b.add(e, b.scalar(1))), b.scalar(0.5)));
    },
    "constant divide erf constant add multiply constant multiply")

// The decomposition ONNX exporters write for LayerNorm before opset 17.
Value layer_norm_parts(Builder& b, Value x, bool square, std::vector<int64_t> dims = {-1}) {
  ReduceOptions o{dims, true};
  Value c = b.subtract(x, b.mean(x, o));
  Value sq = square ? b.multiply(c, c) : b.pow(c, b.scalar(2));
  return b.divide(c, b.sqrt(b.add(b.mean(sq, o), b.scalar(1e-5))));
}

REWRITE_TEST(
    ModelFusion, LayerNormFromPow, kModelFusionRules,
    [](Builder& b) {
      Value x = b.input("x", {2, 4, 8});
      b.output(b.add(b.multiply(layer_norm_parts(b, x, false), b.weight("g", {8})),
                     b.weight("bias", {8})));
    },
    "layer_norm")

REWRITE_TEST(
    ModelFusion, LayerNormFromSquareOverTwoDims, kModelFusionRules,
    [](Builder& b) {
      b.output(layer_norm_parts(b, b.input("x", {2, 4, 8}), true, {1, 2}));
    },
    "layer_norm")

// Negative: a mean over a leading dim is not a layer norm over trailing dims.
REWRITE_TEST(
    ModelFusion, LeadingDimMeanIsNotLayerNorm, kModelFusionRules,
    [](Builder& b) {
      b.output(layer_norm_parts(b, b.input("x", {2, 4, 8}), false, {0}));
    },
    "mean subtract constant pow mean constant add sqrt divide")

// Negative: a scale over the whole tensor shape does not broadcast to the normalized dims.
REWRITE_TEST(
    ModelFusion, FullShapeScaleStaysOutside, kModelFusionRules,
    [](Builder& b) {
      Value x = b.input("x", {2, 8});
      b.output(b.add(b.multiply(layer_norm_parts(b, x, false), b.weight("g", {2, 8})),
                     b.weight("bias", {8})));
    },
    "layer_norm multiply add")

// Llama's RMSNorm, x * rsqrt(mean(x^2) + eps) * weight, with rsqrt as exporters write it.
enum class Rsqrt { OneOverSqrt, Reciprocal, Rsqrt, Divide };
Value rms_norm_parts(Builder& b, Value x, Rsqrt form, bool square = false,
                     std::vector<int64_t> dims = {-1}) {
  Value sq = square ? b.multiply(x, x) : b.pow(x, b.scalar(2));
  Value ms = b.add(b.mean(sq, {dims, true}), b.scalar(1e-5));
  switch (form) {
  case Rsqrt::OneOverSqrt:
    return b.multiply(x, b.divide(b.scalar(1), b.sqrt(ms)));
  case Rsqrt::Reciprocal:
    return b.multiply(x, b.reciprocal(b.sqrt(ms)));
  case Rsqrt::Rsqrt:
    return b.multiply(x, b.rsqrt(ms));
  case Rsqrt::Divide:
    break;
  }
  return b.divide(x, b.sqrt(ms));
}

// The form the ONNX importer gives a Llama layer: 1 / sqrt, the weight after.
REWRITE_TEST(
    ModelFusion, RmsNormFromOneOverSqrt, kModelFusionRules,
    [](Builder& b) {
      Value x = b.input("x", {2, 4, 8});
      b.output(b.multiply(rms_norm_parts(b, x, Rsqrt::OneOverSqrt), b.weight("w", {8})));
    },
    "rms_norm")

// Hugging Face writes the weight first.
REWRITE_TEST(
    ModelFusion, RmsNormFromRsqrtWeightFirst, kModelFusionRules,
    [](Builder& b) {
      Value x = b.input("x", {2, 4, 8});
      b.output(b.multiply(b.weight("w", {8}), rms_norm_parts(b, x, Rsqrt::Rsqrt)));
    },
    "rms_norm")

REWRITE_TEST(
    ModelFusion, RmsNormFromReciprocalOverTwoDims, kModelFusionRules,
    [](Builder& b) {
      b.output(rms_norm_parts(b, b.input("x", {2, 4, 8}), Rsqrt::Reciprocal, false, {1, 2}));
    },
    "rms_norm")

REWRITE_TEST(
    ModelFusion, RmsNormFromDivideOfSquare, kModelFusionRules,
    [](Builder& b) {
      b.output(rms_norm_parts(b, b.input("x", {3, 5, 6}), Rsqrt::Divide));
    },
    "rms_norm")

REWRITE_TEST(
    ModelFusion, RmsNormFromSquareRsqrt, kModelFusionRules,
    [](Builder& b) {
      b.output(rms_norm_parts(b, b.input("x", {3, 6}), Rsqrt::Rsqrt, true));
    },
    "rms_norm")

REWRITE_TEST(
    ModelFusion, RmsNormFromSquareOneOverSqrt, kModelFusionRules,
    [](Builder& b) {
      b.output(rms_norm_parts(b, b.input("x", {4, 6}), Rsqrt::OneOverSqrt, true));
    },
    "rms_norm")

// Hugging Face's LlamaRMSNorm on bf16: the norm in f32, cast back, then the weight. The fused
// norm rounds once where the source rounds twice (after the cast and after the weight): equal
// within one bf16 step.
TEST(ModelFusion, RmsNormThroughF32Casts) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {2, 4, 8}, DType::BF16);
  Value wide = b.typecast(x, DType::F32);
  Value narrow = b.typecast(rms_norm_parts(b, wide, Rsqrt::Rsqrt), DType::BF16);
  b.output(b.multiply(b.weight("w", {8}, DType::BF16), narrow));
  Graph out = testing::optimize_with(g, kModelFusionRules);
  EXPECT_EQ(testing::op_list(out), "rms_norm");
  EXPECT_TRUE(testing::same_values(g, out, 1.0 / 128));
}

// Negative: a norm computed in bf16 on an f32 tensor rounds it first; the casts stay (the
// fused bf16 norm rounds once where the decomposition rounds at each step).
TEST(ModelFusion, RoundingCastStaysAroundRmsNorm) {
  Graph g;
  Builder b(g);
  Value narrow = b.typecast(b.input("x", {2, 4, 8}), DType::BF16);
  b.output(b.typecast(rms_norm_parts(b, narrow, Rsqrt::Rsqrt), DType::F32));
  Graph out = testing::optimize_with(g, kModelFusionRules);
  EXPECT_EQ(testing::op_list(out), "typecast rms_norm typecast");
  EXPECT_TRUE(testing::same_values(g, out, 1.0 / 128));
}

// Negative: a mean over a leading dim is not a norm over trailing dims.
REWRITE_TEST(
    ModelFusion, LeadingDimMeanIsNotRmsNorm, kModelFusionRules,
    [](Builder& b) {
      b.output(rms_norm_parts(b, b.input("x", {2, 4, 8}), Rsqrt::Rsqrt, false, {0}));
    },
    "constant pow mean constant add rsqrt multiply")

// Negative: a weight over the whole tensor shape does not broadcast to the normalized dims.
REWRITE_TEST(
    ModelFusion, FullShapeWeightStaysOutsideRmsNorm, kModelFusionRules,
    [](Builder& b) {
      Value x = b.input("x", {2, 8});
      b.output(b.multiply(rms_norm_parts(b, x, Rsqrt::Rsqrt), b.weight("w", {2, 8})));
    },
    "rms_norm multiply")

REWRITE_TEST(
    ModelFusion, ConvBiasChannelsFirst, kModelFusionRules,
    [](Builder& b) {
      Value c = b.conv2d(b.input("x", {1, 3, 6, 6}), b.weight("w", {4, 3, 3, 3}),
                         Conv2dOptions{{2, 2}, {1, 1, 1, 1}, {1, 1}, 1, ""});
      b.output(b.relu(b.add(c, b.weight("bias", {4, 1, 1}))));
    },
    "reshape conv2d")

REWRITE_TEST(
    ModelFusion, ActivationFoldsIntoConv, kModelFusionRules,
    [](Builder& b) {
      b.output(b.sigmoid(b.conv2d(b.input("x", {1, 3, 6, 6}), b.weight("w", {4, 3, 3, 3}))));
    },
    "conv2d")

// Negative: the convolution feeds the activation and another op.
REWRITE_TEST(
    ModelFusion, SharedConvKeepsActivation, kModelFusionRules,
    [](Builder& b) {
      Value c = b.conv2d(b.input("x", {1, 3, 6, 6}), b.weight("w", {4, 3, 3, 3}));
      b.output(b.add(b.relu(c), c));
    },
    "conv2d relu add")

REWRITE_TEST(
    ModelFusion, ConvBiasNchwFirstOperand, kModelFusionRules,
    [](Builder& b) {
      Value c = b.conv2d(b.input("x", {2, 4, 5, 5}), b.weight("w", {4, 2, 3, 3}),
                         Conv2dOptions{{1, 1}, {0, 0, 0, 0}, {1, 1}, 2, ""});
      b.output(b.add(b.weight("bias", {1, 4, 1, 1}), c));
    },
    "reshape conv2d")

// Negative: a bias varying along width is not a per-channel bias.
REWRITE_TEST(
    ModelFusion, WidthBiasStays, kModelFusionRules,
    [](Builder& b) {
      Value c = b.conv2d(b.input("x", {1, 3, 6, 6}), b.weight("w", {4, 3, 3, 3}));
      b.output(b.add(c, b.weight("bias", {4})));
    },
    "conv2d add")

// Negative: the convolution has a second user.
REWRITE_TEST(
    ModelFusion, SharedConvStays, kModelFusionRules,
    [](Builder& b) {
      Value c = b.conv2d(b.input("x", {1, 3, 6, 6}), b.weight("w", {4, 3, 3, 3}));
      b.output(b.multiply(c, b.add(c, b.weight("bias", {4, 1, 1}))));
    },
    "conv2d add multiply")

// An NHWC conv2d (tt-mlir's default layout) of a 1x6x6x3 input to 4 channels, and its bias
// of `bias_shape` added to it.
struct NhwcConv {
  Value conv, sum;
};
NhwcConv nhwc_conv_add(Builder& b, Shape bias_shape, std::vector<int64_t> stride = {1, 1}) {
  Value c = b.conv2d(b.input("x", {1, 6, 6, 3}), b.weight("w", {4, 3, 3, 3}),
                     Conv2dOptions{.stride = std::move(stride), .dims = ConvDims{}});
  return {c, b.add(c, b.weight("bias", std::move(bias_shape)))};
}

// The 1x1x1xC bias becomes the conv's bias operand as is; the fused conv keeps the layout (the
// reference comparison checks it) and the activation folds into it.
REWRITE_TEST(
    ModelFusion, ConvBiasNhwc, kModelFusionRules,
    [](Builder& b) {
      b.output(b.relu(nhwc_conv_add(b, {1, 1, 1, 4}, {2, 2}).sum));
    },
    "conv2d")

// Negative: in NHWC a [1, 1, C, 1] bias varies along width, not channels.
REWRITE_TEST(
    ModelFusion, NhwcWidthBiasStays, kModelFusionRules,
    [](Builder& b) {
      b.output(nhwc_conv_add(b, {1, 1, 4, 1}).sum);
    },
    "conv2d add")

// Negative: an NHWC conv with a second user keeps its bias add.
REWRITE_TEST(
    ModelFusion, SharedNhwcConvStays, kModelFusionRules,
    [](Builder& b) {
      NhwcConv c = nhwc_conv_add(b, {1, 1, 1, 4});
      b.output(b.multiply(c.conv, c.sum));
    },
    "conv2d add multiply")

} // namespace
} // namespace tilesat::rewrites
