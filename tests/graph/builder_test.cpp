// Tests of builder.cpp: each method adds the right op with the attributes a user would write,
// and mistakes throw errors naming the op.
#include "tilesat/graph/builder.h"

#include <gtest/gtest.h>

namespace tilesat {
namespace {

using IntList = std::vector<int64_t>;

TEST(Builder, HeaderExample) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {32, 128});
  Value w = b.weight("w1", {256, 128}), bias = b.weight("b1", {256});
  b.output(b.relu(b.add(b.matmul(x, w, {.transpose_b = true}), bias)));
  EXPECT_TRUE(g.verify().empty());
  ASSERT_EQ(g.results().size(), 1u);
  EXPECT_EQ(g.node(g.results()[0].value).type, (TensorType{DType::F32, Shape{32, 256}}));
  EXPECT_EQ(g.node(w.id).role, ArgRole::Weight);
  EXPECT_EQ(g.node(x.id).role, ArgRole::Input);
  EXPECT_EQ(g.num_ops(), 3u);
}

TEST(Builder, WritesOnlyNonDefaultAttributes) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {4, 4});
  const Node& plain = g.node(b.matmul(x, x).id);
  EXPECT_EQ(plain.kind, OpKind::Matmul);
  EXPECT_TRUE(plain.attrs.empty());
  EXPECT_EQ(g.node(b.matmul(x, x, {.transpose_a = true}).id).attrs.get<bool>("transpose_a"), true);
  EXPECT_TRUE(g.node(b.add(x, x).id).attrs.empty());
  EXPECT_TRUE(g.node(b.sum(x).id).attrs.empty());
  const Node& s = g.node(b.sum(x, {.dims = {1}, .keep_dim = true}).id);
  EXPECT_EQ(s.attrs.get<IntList>("dim_arg"), IntList{1});
  EXPECT_TRUE(s.attrs.get<bool>("keep_dim"));
  EXPECT_FALSE(g.node(b.slice(x, {0, 0}, {2, 2}).id).attrs.has("step"));
  EXPECT_FALSE(g.node(b.broadcast(x, {2, 4, 4}).id).attrs.has("dims"));
}

TEST(Builder, OneMethodPerOp) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {2, 4});
  Value v = b.input("v", {4});
  auto kind = [&](Value r) { return g.node(r.id).kind; };
  auto type = [&](Value r) { return b.type(r).shape; };
  EXPECT_EQ(kind(b.constant({2}, {1, 2})), OpKind::Constant);
  EXPECT_EQ(kind(b.constant(Tensor(TensorType{DType::BF16, Shape{3}}))), OpKind::Constant);
  EXPECT_EQ(kind(b.full({2}, 1.0)), OpKind::Full);
  EXPECT_EQ(kind(b.scalar(0.5)), OpKind::Constant);
  EXPECT_EQ(b.type(b.scalar(0.5)), (TensorType{DType::F32, Shape{}}));
  EXPECT_EQ(kind(b.linear(x, x, {.transpose_b = true})), OpKind::Linear);
  EXPECT_EQ(kind(b.linear(x, x, v, {.transpose_a = true})), OpKind::Linear);
  EXPECT_EQ(type(b.linear(x, x, v, {.transpose_a = true})), (Shape{4, 4}));
  EXPECT_EQ(kind(b.subtract(x, v)), OpKind::Subtract);
  EXPECT_EQ(kind(b.multiply(x, v)), OpKind::Multiply);
  EXPECT_EQ(kind(b.divide(x, v)), OpKind::Divide);
  EXPECT_EQ(kind(b.maximum(x, v)), OpKind::Maximum);
  EXPECT_EQ(kind(b.minimum(x, v)), OpKind::Minimum);
  EXPECT_EQ(kind(b.add_relu(x, v, {.broadcast_dims = {1}})), OpKind::AddRelu);
  EXPECT_EQ(kind(b.gelu(x)), OpKind::Gelu);
  EXPECT_EQ(kind(b.exp(x)), OpKind::Exp);
  EXPECT_EQ(kind(b.log(x)), OpKind::Log);
  EXPECT_EQ(kind(b.neg(x)), OpKind::Neg);
  EXPECT_EQ(kind(b.abs(x)), OpKind::Abs);
  EXPECT_EQ(kind(b.sin(x)), OpKind::Sin);
  EXPECT_EQ(kind(b.cos(x)), OpKind::Cos);
  EXPECT_EQ(kind(b.tanh(x)), OpKind::Tanh);
  EXPECT_EQ(kind(b.sigmoid(x)), OpKind::Sigmoid);
  EXPECT_EQ(kind(b.silu(x)), OpKind::Silu);
  EXPECT_EQ(kind(b.sqrt(x)), OpKind::Sqrt);
  EXPECT_EQ(kind(b.rsqrt(x)), OpKind::Rsqrt);
  EXPECT_EQ(kind(b.reciprocal(x)), OpKind::Reciprocal);
  EXPECT_EQ(type(b.transpose(x, 0, 1)), (Shape{4, 2}));
  EXPECT_EQ(type(b.permute(x, {1, 0})), (Shape{4, 2}));
  EXPECT_EQ(type(b.broadcast(v, {3, 4})), (Shape{3, 4}));
  EXPECT_EQ(type(b.reshape(x, {8})), (Shape{8}));
  EXPECT_EQ(type(b.concat({x, x, x}, 0)), (Shape{6, 4}));
  std::vector<Value> parts = {x, x};
  EXPECT_EQ(type(b.concat(parts, 1)), (Shape{2, 8}));
  EXPECT_EQ(type(b.slice(x, {0, 1}, {2, 4}, {1, 2})), (Shape{2, 2}));
  EXPECT_EQ(b.type(b.typecast(x, DType::BF16)).dtype, DType::BF16);
  Value qkv = b.input("qkv", {1, 4, 12});
  EXPECT_EQ(type(b.split_heads(qkv, 2, 3, 2, true)), (Shape{1, 2, 2, 4}));
  const Node& heads = g.node(b.split_heads(qkv, 2).id);
  EXPECT_EQ(heads.kind, OpKind::SplitHeads);
  EXPECT_FALSE(heads.attrs.has("parts")); // defaults are not written
  EXPECT_EQ(type(b.concatenate_heads(b.split_heads(qkv, 2))), (Shape{1, 4, 12}));
  Value h = b.split_heads(qkv, 2);
  const Node& attn = g.node(b.scaled_dot_product_attention(h, h, h).id);
  EXPECT_EQ(attn.kind, OpKind::Attention);
  EXPECT_TRUE(attn.attrs.empty());
  Value m = b.input("m", {4, 4});
  const Node& masked = g.node(
      b.scaled_dot_product_attention(h, h, h, &m, {.mask_kind = "select", .mask_fill = -1e4}).id);
  EXPECT_EQ(masked.operands.size(), 4u);
  EXPECT_EQ(masked.attrs.get<std::string>("mask_kind"), "select");
  Value cs = b.input("cs", {4, 6});
  const Node& rope = g.node(b.rotary_embedding(h, cs, cs).id);
  EXPECT_EQ(rope.kind, OpKind::RotaryEmbedding);
  EXPECT_EQ(type(b.rotary_embedding(h, cs, cs)), (Shape{1, 2, 4, 6}));
  EXPECT_EQ(g.node(b.rms_norm(h, nullptr, -1, 1e-6).id).attrs.get<double>("epsilon"), 1e-6);
  EXPECT_EQ(type(b.mean(x, {.dims = {0}})), (Shape{4}));
  EXPECT_EQ(type(b.max(x, {.keep_dim = true})), (Shape{1, 1}));
  EXPECT_EQ(g.node(b.softmax(x, 0).id).attrs.get<int64_t>("dimension"), 0);
  Attrs a;
  a.set("dim0", int64_t{0});
  a.set("dim1", int64_t{1});
  EXPECT_EQ(kind(b.op(OpKind::Transpose, {x}, a)), OpKind::Transpose);
  EXPECT_TRUE(g.verify().empty());
}

TEST(Builder, ErrorsNameTheOp) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {32, 128});
  Value w = b.weight("w", {256, 10});
  try {
    b.matmul(x, w);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "error: 'ttir.matmul' %2: expected contracting dims to match, got 128 "
                           "and 256");
  }
  EXPECT_THROW(b.transpose(x, 0, 2), Error);
  EXPECT_THROW(b.reshape(x, {7}), Error);
  EXPECT_THROW(b.concat({}, 0), Error);
  EXPECT_EQ(g.num_nodes(), 2u); // failed ops add nothing
}

} // namespace
} // namespace tilesat
