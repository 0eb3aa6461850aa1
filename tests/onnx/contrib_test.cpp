// The com.microsoft transformer ops (contrib.cpp): each against values written out by hand, an
// equivalent model of standard ops, or a plain-loop attention written here.
#include "test_util.h"

#include <cmath>
#include <random>

namespace tilesat::onnx::testing {
namespace {

using TP = ::onnx::TensorProto;

std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

TEST(Contrib, GeluFamily) {
  OnnxModel m;
  m.input("x", {3});
  m.initializer("bias", {3}, {0.5f, 0.5f, 0.5f});
  m.microsoft_node("Gelu", {"x"}, {"gelu"});
  m.microsoft_node("BiasGelu", {"x", "bias"}, {"bias_gelu"});
  m.microsoft_node("FastGelu", {"x"}, {"fast"});
  m.microsoft_node("QuickGelu", {"x"}, {"quick"});
  for (const char* o : {"gelu", "bias_gelu", "fast", "quick"}) m.output(o, std::vector<int64_t>{3});
  ImportedModel im = import(m);
  Tensor x = T({3}, {-1, 0, 0.5f});
  // Gelu(v) = v Phi(v); tanh form 0.5 v (1 + tanh(0.79788456 (v + 0.044715 v^3)));
  // QuickGelu(v) = v sigmoid(1.702 v).
  expect_near(run(im, {{"x", x}}, 0).data(), {-0.15865525f, 0, 0.34573123f}, 1e-6f);
  expect_near(run(im, {{"x", x}}, 1).data(), {-0.15426877f, 0.34573123f, 0.84134475f}, 1e-6f);
  expect_near(run(im, {{"x", x}}, 2).data(), {-0.15880801f, 0, 0.34571401f}, 1e-6f);
  expect_near(run(im, {{"x", x}}, 3).data(), {-0.15420423f, 0, 0.35038844f}, 1e-6f);
}

TEST(Contrib, FusedMatMulTransposesAndScales) {
  OnnxModel m;
  m.input("a", {1, 2});
  m.initializer("b", {3, 2}, {1, 2, 3, 4, 5, 6});
  ::onnx::NodeProto* n = m.microsoft_node("FusedMatMul", {"a", "b"}, {"y"});
  OnnxModel::attr(n, "transB", int64_t{1});
  OnnxModel::attr_f(n, "alpha", 2.0f);
  m.output("y", {1, 3});
  EXPECT_EQ(run(import(m), {{"a", T({1, 2}, {1, -1})}}).data(), (std::vector<float>{-2, -2, -2}));
}

TEST(Contrib, BiasAdd) {
  OnnxModel m;
  m.input("x", {1, 2});
  m.input("skip", {1, 2});
  m.initializer("bias", {2}, {10, 20});
  m.microsoft_node("BiasAdd", {"x", "bias", "skip"}, {"y"});
  m.output("y", {1, 2});
  EXPECT_EQ(run(import(m), {{"x", T({1, 2}, {1, 2})}, {"skip", T({1, 2}, {3, 4})}}).data(),
            (std::vector<float>{14, 26}));
}

// SkipLayerNormalization against Add, Add and LayerNormalization; output 3 is the sum.
TEST(Contrib, SkipLayerNormIsTheNormOfTheSum) {
  auto weights = [](OnnxModel& m) {
    m.initializer("gamma", {4}, {1, 2, 0.5f, -1});
    m.initializer("beta", {4}, {0, 1, 0, -1});
    m.initializer("bias", {4}, {0.1f, 0.2f, 0.3f, 0.4f});
  };
  OnnxModel fused;
  fused.input("x", {2, 3, 4});
  fused.input("skip", {2, 3, 4});
  weights(fused);
  ::onnx::NodeProto* n = fused.microsoft_node(
      "SkipLayerNormalization", {"x", "skip", "gamma", "beta", "bias"}, {"y", "", "", "sum"});
  OnnxModel::attr_f(n, "epsilon", 1e-5f);
  fused.output("y", {2, 3, 4});
  fused.output("sum", {2, 3, 4});
  OnnxModel plain;
  plain.input("x", {2, 3, 4});
  plain.input("skip", {2, 3, 4});
  weights(plain);
  plain.node("Add", {"x", "skip"}, {"s0"});
  plain.node("Add", {"s0", "bias"}, {"sum"});
  ::onnx::NodeProto* ln = plain.node("LayerNormalization", {"sum", "gamma", "beta"}, {"y"});
  OnnxModel::attr_f(ln, "epsilon", 1e-5f);
  plain.output("y");
  plain.output("sum");
  std::map<std::string, Tensor> in = {{"x", T({2, 3, 4}, random_values(24, 1))},
                                      {"skip", T({2, 3, 4}, random_values(24, 2))}};
  ImportedModel a = import(fused), b = import(plain);
  expect_near(run(a, in, 0).data(), run(b, in, 0).data(), 1e-6f);
  EXPECT_EQ(run(a, in, 1).data(), run(b, in, 1).data());
}

// SimplifiedLayerNormalization as exporters write it, in the ONNX domain.
TEST(Contrib, SimplifiedLayerNormsAreRmsNorms) {
  // x = [3, 4]: mean of squares 12.5, so y = x / sqrt(12.5 + eps) * scale.
  const std::vector<float> want = {3 / std::sqrt(12.5f) * 2, 4 / std::sqrt(12.5f) * -1};
  OnnxModel plain;
  plain.input("x", {1, 2});
  plain.initializer("scale", {2}, {2, -1});
  plain.node("SimplifiedLayerNormalization", {"x", "scale"}, {"y"});
  plain.output("y", {1, 2});
  expect_near(run(import(plain), {{"x", T({1, 2}, {3, 4})}}).data(), want, 1e-5f);

  OnnxModel skip;
  skip.input("x", {1, 2});
  skip.input("skip", {1, 2});
  skip.initializer("scale", {2}, {2, -1});
  skip.microsoft_node("SkipSimplifiedLayerNormalization", {"x", "skip", "scale"}, {"y"});
  skip.output("y", {1, 2});
  expect_near(run(import(skip), {{"x", T({1, 2}, {1, 1})}, {"skip", T({1, 2}, {2, 3})}}).data(),
              want, 1e-5f);
}

TEST(Contrib, SkipSimplifiedLayerNormRefusesItsBias) {
  OnnxModel m;
  m.input("x", {1, 2});
  m.input("skip", {1, 2});
  m.initializer("scale", {2}, {2, -1});
  m.initializer("bias", {2}, {0, 0});
  m.microsoft_node("SkipSimplifiedLayerNormalization", {"x", "skip", "scale", "bias"}, {"y"});
  m.output("y", {1, 2});
  EXPECT_NE(import_error(m).find("input 3 ('bias') is not read"), std::string::npos)
      << import_error(m);
}

// EmbedLayerNormalization against Gather, Gather, Add and LayerNormalization; mask_index is
// the count of each row's mask ones.
TEST(Contrib, EmbedLayerNormSumsTheEmbeddings) {
  auto tables = [](OnnxModel& m) {
    m.initializer("word", {5, 4}, random_values(20, 3));
    m.initializer("pos", {8, 4}, random_values(32, 4));
    m.initializer("seg", {2, 4}, random_values(8, 5));
    m.initializer("gamma", {4}, {1, 2, 3, 4});
    m.initializer("beta", {4}, {0, 0, 1, 1});
  };
  OnnxModel fused;
  fused.input("ids", {2, 3}, TP::INT32);
  fused.input("segments", {2, 3}, TP::INT32);
  fused.input("mask", {2, 3}, TP::INT32);
  tables(fused);
  fused.microsoft_node("EmbedLayerNormalization",
                       {"ids", "segments", "word", "pos", "seg", "gamma", "beta", "mask"},
                       {"y", "mask_index"});
  fused.output("y", {2, 3, 4});
  fused.output("mask_index", std::vector<int64_t>{2});
  fused.graph().mutable_output(1)->mutable_type()->mutable_tensor_type()->set_elem_type(TP::INT32);
  OnnxModel plain;
  plain.input("ids", {2, 3}, TP::INT32);
  plain.input("segments", {2, 3}, TP::INT32);
  tables(plain);
  plain.node("Gather", {"word", "ids"}, {"w"});
  plain.int_initializer("positions", {3}, {0, 1, 2});
  plain.node("Gather", {"pos", "positions"}, {"p"});
  plain.node("Gather", {"seg", "segments"}, {"s"});
  plain.node("Add", {"w", "p"}, {"wp"});
  plain.node("Add", {"wp", "s"}, {"sum"});
  ::onnx::NodeProto* ln = plain.node("LayerNormalization", {"sum", "gamma", "beta"}, {"y"});
  OnnxModel::attr_f(ln, "epsilon", 1e-12f);
  plain.output("y");
  std::map<std::string, Tensor> in = {{"ids", T({2, 3}, {4, 0, 2, 1, 1, 3}, DType::I32)},
                                      {"segments", T({2, 3}, {0, 0, 1, 1, 1, 0}, DType::I32)},
                                      {"mask", T({2, 3}, {1, 1, 0, 1, 1, 1}, DType::I32)}};
  ImportedModel a = import(fused), b = import(plain);
  expect_near(run(a, in, 0).data(), run(b, in, 0).data(), 1e-6f);
  EXPECT_EQ(run(a, in, 1).data(), (std::vector<float>{2, 3}));
}

// Multi-head attention with plain loops: q [S, D], k and v [T, D] (batch 1), `heads` heads,
// `mask[j]` 0 masking key j (-10000 added), `causal` masking keys after the query.
std::vector<float> attention_reference(const std::vector<float>& q, const std::vector<float>& k,
                                       const std::vector<float>& v, int64_t s, int64_t t, int64_t d,
                                       int64_t heads, const std::vector<float>& mask, bool causal) {
  int64_t h = d / heads;
  std::vector<float> out(static_cast<size_t>(s * d), 0.0f);
  for (int64_t n = 0; n < heads; ++n) {
    for (int64_t i = 0; i < s; ++i) {
      std::vector<double> score(static_cast<size_t>(t));
      double top = -1e30;
      for (int64_t j = 0; j < t; ++j) {
        double dot = 0;
        for (int64_t e = 0; e < h; ++e) dot += q[i * d + n * h + e] * k[j * d + n * h + e];
        double sc = dot / std::sqrt(static_cast<double>(h));
        if (!mask.empty() && mask[j] == 0) sc += -10000.0;
        if (causal && j > i) sc += -10000.0;
        score[j] = sc;
        top = std::max(top, sc);
      }
      double total = 0;
      for (double& sc : score) total += (sc = std::exp(sc - top));
      for (int64_t e = 0; e < h; ++e) {
        double acc = 0;
        for (int64_t j = 0; j < t; ++j) acc += score[j] / total * v[j * d + n * h + e];
        out[i * d + n * h + e] = static_cast<float>(acc);
      }
    }
  }
  return out;
}

// Attention: one [4, 12] weight for Q, K and V (and their bias), two heads, a 1-D mask_index
// of valid key counts, or causal.
TEST(Contrib, AttentionMatchesPlainLoops) {
  const int64_t s = 3, d = 4;
  std::vector<float> x = random_values(s * d, 6), w = random_values(d * 3 * d, 7),
                     bias = random_values(3 * d, 8);
  // The projections by hand: column c of [x w + bias].
  std::vector<float> q(s * d), k(s * d), v(s * d);
  for (int64_t i = 0; i < s; ++i)
    for (int64_t col = 0; col < 3 * d; ++col) {
      double acc = bias[col];
      for (int64_t r = 0; r < d; ++r) acc += x[i * d + r] * w[r * 3 * d + col];
      std::vector<float>& dst = col < d ? q : col < 2 * d ? k : v;
      dst[i * d + col % d] = static_cast<float>(acc);
    }
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "unidirectional" : "mask_index");
    OnnxModel m;
    m.input("x", {1, s, d});
    m.input("lengths", {1}, TP::INT32);
    m.initializer("w", {d, 3 * d}, w);
    m.initializer("bias", {3 * d}, bias);
    std::vector<std::string> inputs = {"x", "w", "bias"};
    if (!causal) inputs.push_back("lengths");
    ::onnx::NodeProto* n = m.microsoft_node("Attention", inputs, {"y"});
    OnnxModel::attr(n, "num_heads", int64_t{2});
    if (causal) OnnxModel::attr(n, "unidirectional", int64_t{1});
    m.output("y", {1, s, d});
    std::vector<float> mask = causal ? std::vector<float>{} : std::vector<float>{1, 1, 0};
    std::vector<float> want = attention_reference(q, k, v, s, s, d, 2, mask, causal);
    Tensor got = run(import(m), {{"x", T({1, s, d}, x)}, {"lengths", T({1}, {2}, DType::I32)}});
    expect_near(got.data(), want, 1e-5f);
  }
}

// MultiHeadAttention: separate query [1, 2, 4] and key/value [1, 3, 4], a [B, T] padding mask.
TEST(Contrib, MultiHeadAttentionMatchesPlainLoops) {
  std::vector<float> q = random_values(8, 9), k = random_values(12, 10), v = random_values(12, 11);
  OnnxModel m;
  m.input("q", {1, 2, 4});
  m.input("k", {1, 3, 4});
  m.input("v", {1, 3, 4});
  m.input("mask", {1, 3}, TP::INT32);
  ::onnx::NodeProto* n = m.microsoft_node("MultiHeadAttention", {"q", "k", "v", "", "mask"}, {"y"});
  OnnxModel::attr(n, "num_heads", int64_t{2});
  m.output("y", {1, 2, 4});
  Tensor got = run(import(m), {{"q", T({1, 2, 4}, q)},
                               {"k", T({1, 3, 4}, k)},
                               {"v", T({1, 3, 4}, v)},
                               {"mask", T({1, 3}, {1, 0, 1}, DType::I32)}});
  expect_near(got.data(), attention_reference(q, k, v, 2, 3, 4, 2, {1, 0, 1}, false), 1e-5f);
}

TEST(Contrib, AttentionErrorsNameWhatIsNotRead) {
  OnnxModel m;
  m.input("x", {1, 2, 4});
  m.input("past", {2, 1, 2, 1, 2});
  m.initializer("w", {4, 12}, random_values(48, 12));
  ::onnx::NodeProto* n = m.microsoft_node("Attention", {"x", "w", "", "", "past"}, {"y"});
  OnnxModel::attr(n, "num_heads", int64_t{2});
  m.output("y", {1, 2, 4});
  EXPECT_NE(import_error(m).find("input 4 ('past') is not read"), std::string::npos)
      << import_error(m);
  OnnxModel odd;
  odd.input("x", {1, 2, 4});
  odd.initializer("w", {4, 12}, random_values(48, 12));
  ::onnx::NodeProto* o = odd.microsoft_node("Attention", {"x", "w"}, {"y"});
  OnnxModel::attr(o, "num_heads", int64_t{3});
  odd.output("y", {1, 2, 4});
  EXPECT_NE(import_error(odd).find("Q width 4 is not divisible by num_heads 3"), std::string::npos)
      << import_error(odd);
}

// A uint8 initializer of raw bytes.
void byte_initializer(OnnxModel& m, const std::string& name, const std::vector<int64_t>& dims,
                      const std::vector<uint8_t>& bytes) {
  ::onnx::TensorProto* t = m.graph().add_initializer();
  t->set_name(name);
  t->set_data_type(TP::UINT8);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(std::string(bytes.begin(), bytes.end()));
}

// MatMulNBits: K = 32 in two blocks of 16, one column; nibbles low first.
TEST(Contrib, MatMulNBitsDequantizesBlocks) {
  std::vector<uint8_t> q(16);
  // Block 0: values 0..15 (bytes 0x10, 0x32, ...); block 1: all 9.
  for (int i = 0; i < 8; ++i) q[i] = static_cast<uint8_t>((2 * i) | ((2 * i + 1) << 4));
  for (int i = 8; i < 16; ++i) q[i] = 0x99;
  for (bool zero_points : {false, true}) {
    SCOPED_TRACE(zero_points ? "packed zero points 3 and 5" : "default zero point 8");
    OnnxModel m;
    m.input("a", {1, 32});
    byte_initializer(m, "B", {1, 2, 8}, q);
    m.initializer("scales", {2}, {0.5f, 2.0f});
    std::vector<std::string> inputs = {"a", "B", "scales"};
    if (zero_points) {
      byte_initializer(m, "zp", {1}, {0x53});
      inputs.push_back("zp");
    }
    ::onnx::NodeProto* n = m.microsoft_node("MatMulNBits", inputs, {"y"});
    OnnxModel::attr(n, "K", int64_t{32});
    OnnxModel::attr(n, "N", int64_t{1});
    OnnxModel::attr(n, "bits", int64_t{4});
    OnnxModel::attr(n, "block_size", int64_t{16});
    m.output("y", std::vector<int64_t>{1, 1});
    // a picks value 3 of block 0 and value 0 of block 1.
    std::vector<float> a(32, 0.0f);
    a[3] = 1;
    a[16] = 1;
    // (3 - 8) * 0.5 + (9 - 8) * 2 = -0.5; with zero points 3 and 5: 0 + 8 = 8.
    EXPECT_EQ(run(import(m), {{"a", T({1, 32}, a)}}).data(),
              (std::vector<float>{zero_points ? 8.0f : -0.5f}));
  }
}

// Rotate-half rotary embedding with plain loops on x [sequence, heads, head]: the first `rot`
// of each head's values, cos and sin rows [*, rot / 2] picked by `positions`.
std::vector<float> rotary_reference(std::vector<float> x, int64_t s, int64_t heads, int64_t head,
                                    int64_t rot, const std::vector<float>& cos,
                                    const std::vector<float>& sin,
                                    const std::vector<int64_t>& positions) {
  const std::vector<float> in = x;
  for (int64_t i = 0; i < s; ++i)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t j = 0; j < rot / 2; ++j) {
        int64_t p = positions[static_cast<size_t>(i)] * rot / 2 + j,
                at = (i * heads + h) * head + j;
        x[at] = in[at] * cos[p] - in[at + rot / 2] * sin[p];
        x[at + rot / 2] = in[at + rot / 2] * cos[p] + in[at] * sin[p];
      }
  return x;
}

// RotaryEmbedding on [batch, sequence, heads * head] with position ids, partial rotary (4 of 6).
TEST(Contrib, RotaryEmbeddingMatchesPlainLoops) {
  const int64_t s = 2, heads = 2, head = 6, rot = 4, rows = 5;
  std::vector<float> x = random_values(s * heads * head, 13);
  std::vector<float> cos = random_values(rows * rot / 2, 14),
                     sin = random_values(rows * rot / 2, 15);
  OnnxModel m;
  m.input("x", {1, s, heads * head});
  m.input("pos", {1, s}, TP::INT32);
  m.initializer("cos", {rows, rot / 2}, cos);
  m.initializer("sin", {rows, rot / 2}, sin);
  ::onnx::NodeProto* n = m.microsoft_node("RotaryEmbedding", {"x", "pos", "cos", "sin"}, {"y"});
  OnnxModel::attr(n, "num_heads", int64_t{heads});
  OnnxModel::attr(n, "rotary_embedding_dim", int64_t{rot});
  m.output("y", std::vector<int64_t>{1, s, heads * head});
  Tensor got =
      run(import(m), {{"x", T({1, s, heads * head}, x)}, {"pos", T({1, s}, {3, 1}, DType::I32)}});
  expect_near(got.data(), rotary_reference(x, s, heads, head, rot, cos, sin, {3, 1}), 1e-6f);
}

// The same on [batch, heads, sequence, head], the whole head rotated, positions counting from
// a static offset.
TEST(Contrib, RotaryEmbeddingFromAnOffset) {
  const int64_t s = 3, heads = 2, head = 4, rows = 6;
  std::vector<float> x = random_values(heads * s * head, 16);
  std::vector<float> cos = random_values(rows * head / 2, 17),
                     sin = random_values(rows * head / 2, 18);
  OnnxModel m;
  m.input("x", {1, heads, s, head});
  m.int_initializer("offset", {1}, {2});
  m.initializer("cos", {rows, head / 2}, cos);
  m.initializer("sin", {rows, head / 2}, sin);
  m.microsoft_node("RotaryEmbedding", {"x", "offset", "cos", "sin"}, {"y"});
  m.output("y", std::vector<int64_t>{1, heads, s, head});
  // The reference's [sequence, heads, head] order, and back.
  std::vector<float> seq_first(x.size()), want(x.size());
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < s; ++i)
      for (int64_t j = 0; j < head; ++j)
        seq_first[(i * heads + h) * head + j] = x[(h * s + i) * head + j];
  std::vector<float> r = rotary_reference(seq_first, s, heads, head, head, cos, sin, {2, 3, 4});
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < s; ++i)
      for (int64_t j = 0; j < head; ++j)
        want[(h * s + i) * head + j] = r[(i * heads + h) * head + j];
  expect_near(run(import(m), {{"x", T({1, heads, s, head}, x)}}).data(), want, 1e-6f);
}

// FusedConv: a 1x1 conv with bias, Z added, then Clip or LeakyRelu.
TEST(Contrib, FusedConvAppliesItsActivation) {
  for (const char* act : {"Clip", "LeakyRelu"}) {
    SCOPED_TRACE(act);
    OnnxModel m;
    m.input("x", {1, 1, 1, 3});
    m.input("z", {1, 1, 1, 3});
    m.initializer("w", {1, 1, 1, 1}, {2});
    m.initializer("b", {1}, {-1});
    ::onnx::NodeProto* n = m.microsoft_node("FusedConv", {"x", "w", "b", "z"}, {"y"});
    ::onnx::AttributeProto* a = n->add_attribute();
    a->set_name("activation");
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s(act);
    ::onnx::AttributeProto* p = n->add_attribute();
    p->set_name("activation_params");
    p->set_type(::onnx::AttributeProto::FLOATS);
    for (float v : std::string(act) == "Clip" ? std::vector<float>{0, 6} : std::vector<float>{0.5f})
      p->add_floats(v);
    m.output("y", std::vector<int64_t>{1, 1, 1, 3});
    // 2x - 1 + z for x = (-1, 1, 4), z = (0, 1, 2): -3, 2, 9.
    Tensor y =
        run(import(m), {{"x", T({1, 1, 1, 3}, {-1, 1, 4})}, {"z", T({1, 1, 1, 3}, {0, 1, 2})}});
    EXPECT_EQ(y.data(), std::string(act) == "Clip" ? (std::vector<float>{0, 2, 6})
                                                   : (std::vector<float>{-1.5f, 2, 9}));
  }
}

} // namespace
} // namespace tilesat::onnx::testing
