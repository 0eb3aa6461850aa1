// Tests of interpreter.cpp: every op's reference semantics against values computed by hand,
// rounding to bf16/i32, argument checking, random arguments, and the seed MLP and cosh.
#include "op_test_support.h"
#include "tilesat/graph/builder.h"
#include "tilesat/graph/interpreter.h"

#include <cmath>
#include <functional>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilesat {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::Pointwise;

using op_testing::T;

// Evaluates the one-result graph `body` builds over arguments shaped like `args`.
Tensor run(std::vector<Tensor> args,
           const std::function<Value(Builder&, std::vector<Value>)>& body) {
  Graph g;
  Builder b(g);
  std::vector<Value> vs;
  for (size_t i = 0; i < args.size(); ++i) {
    vs.push_back(
        b.input(std::string("a").append(std::to_string(i)), args[i].shape(), args[i].dtype()));
  }
  b.output(body(b, vs));
  std::vector<Tensor> out = evaluate(g, args);
  EXPECT_EQ(out.size(), 1u);
  return out.at(0);
}

Tensor run1(Tensor x, const std::function<Value(Builder&, Value)>& body) {
  return run({std::move(x)}, [&](Builder& b, std::vector<Value> v) { return body(b, v[0]); });
}

Tensor run2(Tensor x, Tensor y, const std::function<Value(Builder&, Value, Value)>& body) {
  return run({std::move(x), std::move(y)},
             [&](Builder& b, std::vector<Value> v) { return body(b, v[0], v[1]); });
}

TEST(Interpreter, HeaderExample) {
  Graph g;
  Builder b(g);
  b.output(b.relu(b.input("x", {2, 2})));
  std::vector<Tensor> args = random_arguments(g, /*seed=*/1);
  std::vector<Tensor> out = evaluate(g, args);
  ASSERT_EQ(out.size(), g.results().size());
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(out[0][i], std::max(args[0][i], 0.0f));
}

TEST(Interpreter, Leaves) {
  Tensor c = run({}, [](Builder& b, auto) { return b.constant({2, 2}, {1, 2, 3, 4}); });
  EXPECT_EQ(c.shape(), (Shape{2, 2}));
  EXPECT_THAT(c.data(), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(run({}, [](Builder& b, auto) { return b.constant({3}, {7}); }).data(),
              ElementsAre(7, 7, 7));
  EXPECT_THAT(run({}, [](Builder& b, auto) { return b.constant({1}, {0.1}, DType::BF16); }).data(),
              ElementsAre(0.10009765625f));
  EXPECT_THAT(run({},
                  [](Builder& b, auto) {
                    return b.full({2, 3}, 1.5);
                  })
                  .data(),
              ElementsAre(1.5, 1.5, 1.5, 1.5, 1.5, 1.5));
  EXPECT_THAT(run({}, [](Builder& b, auto) { return b.full({2}, -2.7, DType::I32); }).data(),
              ElementsAre(-2, -2));
  Tensor s = run({}, [](Builder& b, auto) { return b.scalar(0.5); });
  EXPECT_EQ(s.shape(), Shape{});
  EXPECT_THAT(s.data(), ElementsAre(0.5));
}

TEST(Interpreter, Matmul) {
  Tensor a = T({2, 2}, {1, 2, 3, 4}), b = T({2, 2}, {5, 6, 7, 8});
  EXPECT_THAT(run2(a, b, [](Builder& g, Value x, Value y) { return g.matmul(x, y); }).data(),
              ElementsAre(19, 22, 43, 50));
  EXPECT_THAT(
      run2(a, b, [](Builder& g, Value x, Value y) { return g.matmul(x, y, {.transpose_b = true}); })
          .data(),
      ElementsAre(17, 23, 39, 53));
  EXPECT_THAT(
      run2(a, b, [](Builder& g, Value x, Value y) { return g.matmul(x, y, {.transpose_a = true}); })
          .data(),
      ElementsAre(26, 30, 38, 44));
  EXPECT_THAT(run2(a, b,
                   [](Builder& g, Value x, Value y) {
                     return g.matmul(x, y, {.transpose_a = true, .transpose_b = true});
                   })
                  .data(),
              ElementsAre(23, 31, 34, 46)); // a^T b^T = (b a)^T
  // Rectangular, transposed b.
  EXPECT_THAT(
      run2(T({2, 3}, {1, 2, 3, 4, 5, 6}), T({2, 3}, {1, 0, 1, 0, 1, 0}),
           [](Builder& g, Value x, Value y) { return g.matmul(x, y, {.transpose_b = true}); })
          .data(),
      ElementsAre(4, 2, 10, 5));
  // Batched with a broadcast batch dim, and vectors.
  Tensor batched = run2(T({2, 1, 2}, {1, 2, 3, 4}), T({2, 1}, {1, 1}),
                        [](Builder& g, Value x, Value y) { return g.matmul(x, y); });
  EXPECT_EQ(batched.shape(), (Shape{2, 1, 1}));
  EXPECT_THAT(batched.data(), ElementsAre(3, 7));
  Tensor per_batch = run2(T({2, 2, 2}, {1, 2, 3, 4, 1, 0, 0, 1}), T({1, 2, 1}, {1, 10}),
                          [](Builder& g, Value x, Value y) { return g.matmul(x, y); });
  EXPECT_EQ(per_batch.shape(), (Shape{2, 2, 1}));
  EXPECT_THAT(per_batch.data(), ElementsAre(21, 43, 1, 10));
  EXPECT_THAT(
      run2(T({2}, {1, 2}), b, [](Builder& g, Value x, Value y) { return g.matmul(x, y); }).data(),
      ElementsAre(19, 22));
  EXPECT_THAT(
      run2(a, T({2}, {1, 1}), [](Builder& g, Value x, Value y) { return g.matmul(x, y); }).data(),
      ElementsAre(3, 7));
}

TEST(Interpreter, Linear) {
  Tensor out = run({T({2, 2}, {1, 2, 3, 4}), T({2, 2}, {5, 6, 7, 8}), T({2}, {10, 20})},
                   [](Builder& g, std::vector<Value> v) {
                     return g.linear(v[0], v[1], v[2], {.transpose_b = true});
                   });
  EXPECT_THAT(out.data(), ElementsAre(27, 43, 49, 73));
  EXPECT_THAT(run2(T({2, 2}, {1, 2, 3, 4}), T({2, 2}, {5, 6, 7, 8}),
                   [](Builder& g, Value x, Value y) { return g.linear(x, y); })
                  .data(),
              ElementsAre(19, 22, 43, 50));
}

TEST(Interpreter, LinearActivation) {
  // [[1, -2], [3, 4]] @ I + [-10, 1] = [[-9, -1], [-7, 5]], then relu.
  Tensor out = run({T({2, 2}, {1, -2, 3, 4}), T({2, 2}, {1, 0, 0, 1}), T({2}, {-10, 1})},
                   [](Builder& g, std::vector<Value> v) {
                     Attrs a;
                     a.set("activation", std::string("relu"));
                     return g.op(OpKind::Linear, {v[0], v[1], v[2]}, a);
                   });
  EXPECT_THAT(out.data(), ElementsAre(0, 0, 0, 5));
}

TEST(Interpreter, ElementwiseBinary) {
  auto bin = [](OpKind k, std::vector<float> x, std::vector<float> y) {
    auto n = static_cast<int64_t>(x.size());
    return run2(T({n}, std::move(x)), T({n}, std::move(y)),
                [k](Builder& b, Value p, Value q) {
                  return b.op(k, {p, q});
                })
        .data();
  };
  EXPECT_THAT(bin(OpKind::Add, {1, 2}, {10, 20}), ElementsAre(11, 22));
  EXPECT_THAT(bin(OpKind::Subtract, {5, 3}, {1, 4}), ElementsAre(4, -1));
  EXPECT_THAT(bin(OpKind::Multiply, {2, 3}, {4, 5}), ElementsAre(8, 15));
  EXPECT_THAT(bin(OpKind::Divide, {1, 3}, {2, 4}), ElementsAre(0.5, 0.75));
  EXPECT_THAT(bin(OpKind::Maximum, {1, 5}, {3, 2}), ElementsAre(3, 5));
  EXPECT_THAT(bin(OpKind::Minimum, {1, 5}, {3, 2}), ElementsAre(1, 2));
  EXPECT_THAT(bin(OpKind::AddRelu, {1, -5}, {1, 1}), ElementsAre(2, 0));
}

TEST(Interpreter, Broadcasting) {
  Tensor m = T({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_THAT(
      run2(m, T({3}, {10, 20, 30}), [](Builder& b, Value x, Value y) { return b.add(x, y); })
          .data(),
      ElementsAre(11, 22, 33, 14, 25, 36));
  // Seed 000's folded bias add: broadcast_dims = [1].
  EXPECT_THAT(
      run2(m, T({3}, {10, 20, 30}),
           [](Builder& b, Value x, Value y) { return b.add(x, y, {.broadcast_dims = {1}}); })
          .data(),
      ElementsAre(11, 22, 33, 14, 25, 36));
  EXPECT_THAT(
      run2(m, T({2}, {100, 200}),
           [](Builder& b, Value x, Value y) { return b.add(x, y, {.broadcast_dims = {0}}); })
          .data(),
      ElementsAre(101, 102, 103, 204, 205, 206));
  EXPECT_THAT(
      run2(T({2}, {100, 200}), m,
           [](Builder& b, Value x, Value y) { return b.subtract(x, y, {.broadcast_dims = {0}}); })
          .data(),
      ElementsAre(99, 98, 97, 196, 195, 194));
  EXPECT_THAT(run2(T({2, 1}, {1, 2}), T({1, 3}, {10, 20, 30}),
                   [](Builder& b, Value x, Value y) { return b.add(x, y); })
                  .data(),
              ElementsAre(11, 21, 31, 12, 22, 32));
  // A scalar operand; the result keeps the tensor's dtype (bf16) and is rounded.
  Tensor s = run1(T({3}, {1.5, 3, 1.0f + 1.0f / 64}, DType::BF16),
                  [](Builder& b, Value x) { return b.multiply(x, b.scalar(0.5)); });
  EXPECT_EQ(s.dtype(), DType::BF16);
  EXPECT_THAT(s.data(), ElementsAre(0.75, 1.5, 0.5f + 1.0f / 128));
}

TEST(Interpreter, ElementwiseUnary) {
  auto un = [](OpKind k, std::vector<float> x) {
    auto n = static_cast<int64_t>(x.size());
    return run1(T({n}, std::move(x)), [k](Builder& b, Value v) { return b.op(k, {v}); }).data();
  };
  const float e = 2.71828182845904523536f, pi = 3.14159265358979323846f;
  EXPECT_THAT(un(OpKind::Relu, {-1, 0, 2}), ElementsAre(0, 0, 2));
  EXPECT_THAT(un(OpKind::Gelu, {0, 1, -1, 3}),
              Pointwise(FloatNear(1e-6f), {0.0f, 0.8413447461f, -0.1586552539f, 2.9959502101f}));
  EXPECT_THAT(un(OpKind::Exp, {0, 1}), Pointwise(FloatNear(1e-6f), {1.0f, e}));
  EXPECT_THAT(un(OpKind::Log, {1, e}), Pointwise(FloatNear(1e-6f), {0.0f, 1.0f}));
  EXPECT_THAT(un(OpKind::Neg, {1, -2}), ElementsAre(-1, 2));
  EXPECT_THAT(un(OpKind::Abs, {-3, 2}), ElementsAre(3, 2));
  EXPECT_THAT(un(OpKind::Sin, {0, pi / 2}), Pointwise(FloatNear(1e-6f), {0.0f, 1.0f}));
  EXPECT_THAT(un(OpKind::Cos, {0, pi}), Pointwise(FloatNear(1e-6f), {1.0f, -1.0f}));
  EXPECT_THAT(un(OpKind::Tanh, {0, 1}), Pointwise(FloatNear(1e-6f), {0.0f, 0.7615941560f}));
  EXPECT_THAT(un(OpKind::Sigmoid, {0, 2}), Pointwise(FloatNear(1e-6f), {0.5f, 0.8807970780f}));
  // silu(x) = x * sigmoid(x): silu(2) = 2 * 0.8807970780, silu(-1) = -1 * 0.2689414214.
  EXPECT_THAT(un(OpKind::Silu, {0, 2, -1}),
              Pointwise(FloatNear(1e-6f), {0.0f, 1.7615941560f, -0.2689414214f}));
  EXPECT_THAT(un(OpKind::Sqrt, {4, 9}), ElementsAre(2, 3));
  EXPECT_THAT(un(OpKind::Rsqrt, {4, 0.25}), ElementsAre(0.5, 2));
  EXPECT_THAT(un(OpKind::Reciprocal, {2, -4}), ElementsAre(0.5, -0.25));
}

TEST(Interpreter, HeadMoves) {
  // x [1, 2, 4]: rows 0..3 and 4..7; two parts of one head of 2: part 1 is columns 2 and 3.
  Tensor x = T({1, 2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  Tensor q = run1(x, [](Builder& b, Value v) { return b.split_heads(v, 1, 2, 1); });
  EXPECT_EQ(q.shape(), (Shape{1, 1, 2, 2}));
  EXPECT_THAT(q.data(), ElementsAre(2, 3, 6, 7));
  Tensor k = run1(x, [](Builder& b, Value v) { return b.split_heads(v, 1, 2, 1, true); });
  EXPECT_THAT(k.data(), ElementsAre(2, 6, 3, 7)); // [head_dim, seq]
  // Two heads of 2: head h is columns 2h and 2h + 1.
  Tensor h = run1(x, [](Builder& b, Value v) { return b.split_heads(v, 2); });
  EXPECT_EQ(h.shape(), (Shape{1, 2, 2, 2}));
  EXPECT_THAT(h.data(), ElementsAre(0, 1, 4, 5, 2, 3, 6, 7));
  // [1, 2 heads, 2 seq, 1] -> [1, 2 seq, 2]: row s holds (head 0, head 1) at s.
  Tensor c = run1(T({1, 2, 2, 1}, {0, 1, 2, 3}),
                  [](Builder& b, Value v) { return b.concatenate_heads(v); });
  EXPECT_EQ(c.shape(), (Shape{1, 2, 2}));
  EXPECT_THAT(c.data(), ElementsAre(0, 2, 1, 3));
  EXPECT_THAT(run1(h, [](Builder& b, Value v) { return b.concatenate_heads(v); }).data(),
              ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
}

TEST(Interpreter, ScaledDotProductAttention) {
  // One head of dim 1, two queries (1 and 0) over two keys (0 and ln 3) with values 4 and 8:
  // query 0 weighs the keys 1/4 and 3/4 (7), query 1 equally (6).
  Tensor q = T({1, 1, 2, 1}, {1, 0}), k = T({1, 1, 2, 1}, {0, 1.0986123f}),
         v = T({1, 1, 2, 1}, {4, 8});
  auto attend = [&](const std::function<Value(Builder&, Value, Value, Value)>& body) {
    return run({q, k, v},
               [&](Builder& b, std::vector<Value> a) { return body(b, a[0], a[1], a[2]); });
  };
  Tensor plain = attend([](Builder& b, Value q, Value k, Value v) {
    return b.scaled_dot_product_attention(q, k, v);
  });
  EXPECT_EQ(plain.shape(), (Shape{1, 1, 2, 1}));
  EXPECT_NEAR(plain.data()[0], 7, 1e-5);
  EXPECT_NEAR(plain.data()[1], 6, 1e-5);
  // Causal: query 0 sees key 0 only.
  Tensor causal = attend([](Builder& b, Value q, Value k, Value v) {
    return b.scaled_dot_product_attention(q, k, v, nullptr, {.is_causal = true});
  });
  EXPECT_NEAR(causal.data()[0], 4, 1e-5);
  EXPECT_NEAR(causal.data()[1], 6, 1e-5);
  // A select mask dropping key 1 for query 1 only; scale 0.5 halves query 0's score of ln 3.
  Tensor selected = attend([](Builder& b, Value q, Value k, Value v) {
    Value m = b.constant({2, 2}, {1, 1, 1, 0});
    return b.scaled_dot_product_attention(q, k, v, &m,
                                          {.scale = 0.5, .mask_kind = "select", .mask_fill = -1e9});
  });
  EXPECT_NEAR(selected.data()[0], (4 + 8 * std::sqrt(3.0)) / (1 + std::sqrt(3.0)), 1e-5);
  EXPECT_NEAR(selected.data()[1], 4, 1e-5);
  // An additive mask of -ln 3 on key 1 evens query 0's weights.
  Tensor added = attend([](Builder& b, Value q, Value k, Value v) {
    Value m = b.constant({2}, {0, -1.0986123});
    return b.scaled_dot_product_attention(q, k, v, &m);
  });
  EXPECT_NEAR(added.data()[0], 6, 1e-5);
}

TEST(Interpreter, RotaryEmbedding) {
  // One position of head_dim 4: rotate_half([1, 2, 3, 4]) = [-3, -4, 1, 2]; cos and sin
  // broadcast over the two heads.
  Tensor x = T({2, 1, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor cos = T({1, 4}, {1, 0, 0.5f, 2}), sin = T({1, 4}, {0, 1, 2, -1});
  Tensor y = run({x, cos, sin}, [](Builder& b, std::vector<Value> a) {
    return b.rotary_embedding(a[0], a[1], a[2]);
  });
  EXPECT_EQ(y.shape(), (Shape{2, 1, 4}));
  // [1*1 + -3*0, 2*0 + -4*1, 3*0.5 + 1*2, 4*2 + 2*-1] and the same for [5, 6, 7, 8].
  EXPECT_THAT(y.data(), ElementsAre(1, -4, 3.5f, 6, 5, -8, 13.5f, 10));
}

TEST(Interpreter, DataMovement) {
  Tensor m = T({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor t = run1(m, [](Builder& b, Value x) { return b.transpose(x, 1, 0); });
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_THAT(t.data(), ElementsAre(1, 4, 2, 5, 3, 6));
  EXPECT_THAT(run1(m, [](Builder& b, Value x) { return b.transpose(x, -1, -2); }).data(),
              ElementsAre(1, 4, 2, 5, 3, 6));
  // out[i][j][k] = in[j][k][i] for in of shape 2x1x3 holding 0..5.
  Tensor p = run1(T({2, 1, 3}, {0, 1, 2, 3, 4, 5}), [](Builder& b, Value x) {
    return b.permute(x, {2, 0, 1});
  });
  EXPECT_EQ(p.shape(), (Shape{3, 2, 1}));
  EXPECT_THAT(p.data(), ElementsAre(0, 3, 1, 4, 2, 5));
  EXPECT_THAT(run1(T({3}, {1, 2, 3}),
                   [](Builder& b, Value x) {
                     return b.broadcast(x, {2, 3});
                   })
                  .data(),
              ElementsAre(1, 2, 3, 1, 2, 3));
  EXPECT_THAT(run1(T({2}, {1, 2}),
                   [](Builder& b, Value x) {
                     return b.broadcast(x, {2, 3}, {0});
                   })
                  .data(),
              ElementsAre(1, 1, 1, 2, 2, 2));
  Tensor r = run1(m, [](Builder& b, Value x) { return b.reshape(x, {3, -1}); });
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_THAT(r.data(), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(run2(T({1, 2}, {1, 2}), T({1, 2}, {3, 4}),
                   [](Builder& b, Value x, Value y) {
                     return b.concat({x, y}, 0);
                   })
                  .data(),
              ElementsAre(1, 2, 3, 4));
  Tensor c = run2(T({2, 1}, {1, 2}), T({2, 2}, {3, 4, 5, 6}), [](Builder& b, Value x, Value y) {
    return b.concat({x, y}, 1);
  });
  EXPECT_EQ(c.shape(), (Shape{2, 3}));
  EXPECT_THAT(c.data(), ElementsAre(1, 3, 4, 2, 5, 6));
  Tensor grid = T({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  Tensor s = run1(grid, [](Builder& b, Value x) { return b.slice(x, {1, 0}, {3, 4}, {1, 2}); });
  EXPECT_EQ(s.shape(), (Shape{2, 2}));
  EXPECT_THAT(s.data(), ElementsAre(4, 6, 8, 10));
  EXPECT_THAT(run1(grid,
                   [](Builder& b, Value x) {
                     return b.slice(x, {-1, 1}, {3, 3});
                   })
                  .data(),
              ElementsAre(9, 10));
  Tensor i = run1(T({3}, {1.7f, -2.5f, 0.1f}),
                  [](Builder& b, Value x) { return b.typecast(x, DType::I32); });
  EXPECT_EQ(i.dtype(), DType::I32);
  EXPECT_THAT(i.data(), ElementsAre(1, -2, 0));
  EXPECT_THAT(
      run1(T({1}, {0.1f}), [](Builder& b, Value x) { return b.typecast(x, DType::BF16); }).data(),
      ElementsAre(0.10009765625f));
}

TEST(Interpreter, Reductions) {
  Tensor m = T({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor all = run1(m, [](Builder& b, Value x) { return b.sum(x); });
  EXPECT_EQ(all.shape(), Shape{});
  EXPECT_THAT(all.data(), ElementsAre(21));
  EXPECT_THAT(run1(m, [](Builder& b, Value x) { return b.sum(x, {.dims = {1}}); }).data(),
              ElementsAre(6, 15));
  Tensor kept =
      run1(m, [](Builder& b, Value x) { return b.sum(x, {.dims = {0}, .keep_dim = true}); });
  EXPECT_EQ(kept.shape(), (Shape{1, 3}));
  EXPECT_THAT(kept.data(), ElementsAre(5, 7, 9));
  EXPECT_THAT(run1(m, [](Builder& b, Value x) { return b.mean(x, {.dims = {-1}}); }).data(),
              ElementsAre(2, 5));
  EXPECT_THAT(run1(m, [](Builder& b, Value x) { return b.mean(x); }).data(), ElementsAre(3.5));
  EXPECT_THAT(run1(m, [](Builder& b, Value x) { return b.max(x, {.dims = {0}}); }).data(),
              ElementsAre(4, 5, 6));
  EXPECT_THAT(run1(T({2}, {-1, -5}), [](Builder& b, Value x) { return b.max(x); }).data(),
              ElementsAre(-1));
  Tensor three = run1(T({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), [](Builder& b, Value x) {
    return b.sum(x, {.dims = {0, 2}});
  });
  EXPECT_THAT(three.data(), ElementsAre(1 + 2 + 5 + 6, 3 + 4 + 7 + 8));
  // i32 mean truncates.
  EXPECT_THAT(
      run1(T({2}, {1, 2}, DType::I32), [](Builder& b, Value x) { return b.mean(x); }).data(),
      ElementsAre(1));
}

TEST(Interpreter, Softmax) {
  const float ln3 = 1.09861228866810969f;
  EXPECT_THAT(run1(T({2}, {0, ln3}), [](Builder& b, Value x) { return b.softmax(x); }).data(),
              Pointwise(FloatNear(1e-6f), {0.25f, 0.75f}));
  EXPECT_THAT(
      run1(T({2, 2}, {0, 0, ln3, 0}), [](Builder& b, Value x) { return b.softmax(x, 0); }).data(),
      Pointwise(FloatNear(1e-6f), {0.25f, 0.5f, 0.75f, 0.5f}));
  // Large inputs do not overflow.
  EXPECT_THAT(run1(T({2}, {1000, 1000}), [](Builder& b, Value x) { return b.softmax(x); }).data(),
              ElementsAre(0.5, 0.5));
}

TEST(Interpreter, RoundsEveryBf16AndI32Value) {
  // 1 + 2^-8 lies halfway between two bf16 values: it rounds to the even one, 1.
  Tensor sum = run2(T({1}, {1}, DType::BF16), T({1}, {0.00390625f}, DType::BF16),
                    [](Builder& b, Value x, Value y) { return b.add(x, y); });
  EXPECT_THAT(sum.data(), ElementsAre(1.0f));
  // The same sum in f32 is exact.
  EXPECT_THAT(run2(T({1}, {1}), T({1}, {0.00390625f}),
                   [](Builder& b, Value x, Value y) { return b.add(x, y); })
                  .data(),
              ElementsAre(1.00390625f));
  EXPECT_THAT(run2(T({2}, {7, -7}, DType::I32), T({2}, {2, 2}, DType::I32),
                   [](Builder& b, Value x, Value y) { return b.divide(x, y); })
                  .data(),
              ElementsAre(3, -3));
}

TEST(Interpreter, ChecksArguments) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {2});
  Value y = b.input("y", {2});
  b.output(b.add(x, y));
  std::vector<Tensor> one = {T({2}, {1, 2})};
  try {
    (void)evaluate(g, one);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "error: expected 2 arguments for @main, got 1");
  }
  std::vector<Tensor> bad = {T({2}, {1, 2}), T({3}, {1, 2, 3})};
  try {
    (void)evaluate(g, bad);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "error: argument 1 (%y): expected tensor<2xf32>, got tensor<3xf32>");
  }
  std::vector<Tensor> wrong_dtype = {T({2}, {1, 2}), T({2}, {1, 2}, DType::BF16)};
  EXPECT_THROW((void)evaluate(g, wrong_dtype), Error);
  // A graph that does not verify is not evaluated.
  Graph broken;
  NodeId a = broken.add_argument("a", TensorType{DType::F32, Shape{2}});
  broken.add_result(broken.add_op_typed(OpKind::Neg, {a}, {}, TensorType{DType::F32, Shape{3}}));
  std::vector<Tensor> args = {T({2}, {1, 2})};
  EXPECT_THROW((void)evaluate(broken, args), Error);
}

TEST(Interpreter, MultipleResultsAndSharedValues) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {2});
  Value n = b.neg(x);
  b.output(b.multiply(n, n), "sq");
  b.output(n, "neg");
  std::vector<Tensor> args = {T({2}, {3, -2})};
  std::vector<Tensor> out = evaluate(g, args);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out[0].data(), ElementsAre(9, 4));
  EXPECT_THAT(out[1].data(), ElementsAre(-3, 2));
}

TEST(RandomArguments, DeterministicInRangeAndRounded) {
  Graph g;
  Builder b(g);
  b.input("f", {64, 64});
  b.input("h", {64}, DType::BF16);
  b.input("i", {100}, DType::I32);
  std::vector<Tensor> r1 = random_arguments(g, 7), r2 = random_arguments(g, 7);
  std::vector<Tensor> r3 = random_arguments(g, 8);
  ASSERT_EQ(r1.size(), 3u);
  EXPECT_EQ(r1[0].data(), r2[0].data());
  EXPECT_EQ(r1[2].data(), r2[2].data());
  EXPECT_NE(r1[0].data(), r3[0].data());
  EXPECT_EQ(r1[0].shape(), (Shape{64, 64}));
  float lo = 1, hi = -1;
  for (float v : r1[0].data()) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_GE(lo, -1.0f);
  EXPECT_LT(hi, 1.0f);
  EXPECT_LT(lo, -0.9f); // spread over the range
  EXPECT_GT(hi, 0.9f);
  for (float v : r1[1].data()) EXPECT_EQ(v, round_to_bf16(v));
  for (float v : r1[2].data()) {
    EXPECT_EQ(v, std::trunc(v));
    EXPECT_GE(v, -8.0f);
    EXPECT_LE(v, 8.0f);
  }
}

// Skipped arguments (their values come from elsewhere) are left empty; the others get the
// values they get without skipping.
TEST(RandomArguments, SkippedArgumentsKeepTheOthersValues) {
  Graph g;
  Builder b(g);
  b.input("a", {16});
  b.input("w", {8, 8});
  b.input("c", {3}, DType::I32);
  std::vector<Tensor> all = random_arguments(g, 5);
  std::vector<Tensor> some = random_arguments(g, 5, RandomInit::Uniform, {false, true, false});
  EXPECT_EQ(some[0].data(), all[0].data());
  EXPECT_EQ(some[1].numel(), 0);
  EXPECT_EQ(some[2].data(), all[2].data());
}

// The weight of every contraction, seen through data movement; activations, biases and
// unused arguments have no fan-in.
TEST(RandomArguments, FanInOfContractionWeights) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {1, 8, 6, 6});
  Value cw = b.weight("cw", {4, 2, 3, 3}); // grouped conv: 2 channels x 3 x 3 each
  Value h = b.conv2d(x, cw, Conv2dOptions{{1, 1}, {0, 0, 0, 0}, {1, 1}, 4, ""});
  Value flat = b.reshape(h, {4, 16});  // [4, 16]
  Value w1 = b.weight("w1", {32, 16}); // transposed, then the rhs: K = 16
  Value y = b.matmul(flat, b.transpose(w1, 0, 1));
  Value w2 = b.weight("w2", {10, 32}); // linear with transpose_b: K = 32
  Value bias = b.weight("bias", {10});
  MatmulOptions tb;
  tb.transpose_b = true;
  Value z = b.linear(y, w2, bias, tb);
  Value lhs = b.input("lhs", {3, 4}); // the lhs of a matmul is not a weight
  b.output(b.matmul(lhs, z));
  b.input("unused", {5});
  EXPECT_THAT(argument_fan_in(g), ElementsAre(0, 18, 16, 32, 0, 0, 0));
}

// ONNX's LSTM and GRU hold every gate's weights in one [1, gates x H, I] tensor; the importer
// slices a gate's rows and reshapes them into the matmul's rhs, so the slice passes the weight.
TEST(RandomArguments, FanInThroughSlicesOfPackedWeights) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {2, 8});
  Value w = b.weight("w", {1, 24, 8}); // three gates of 8 rows, K = 8
  Value gate = b.reshape(b.slice(w, {0, 8, 0}, {1, 16, 8}), {8, 8});
  MatmulOptions tb;
  tb.transpose_b = true;
  b.output(b.matmul(x, gate, tb));
  EXPECT_THAT(argument_fan_in(g), ElementsAre(0, 8));
}

TEST(RandomArguments, FanInScalesWeightsOnly) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {64, 300});
  Value w = b.weight("w", {300, 64});
  b.output(b.matmul(x, w));
  std::vector<Tensor> plain = random_arguments(g, 3);
  std::vector<Tensor> scaled = random_arguments(g, 3, RandomInit::FanIn);
  EXPECT_EQ(plain[0].data(), scaled[0].data());
  double sum_sq = 0;
  for (int64_t i = 0; i < plain[1].numel(); ++i) {
    EXPECT_FLOAT_EQ(scaled[1][i], static_cast<float>(plain[1][i] * std::sqrt(3.0 / 300)));
    sum_sq += double(scaled[1][i]) * scaled[1][i];
  }
  // Variance 1 / fan-in, within sampling error over 19200 values.
  EXPECT_NEAR(sum_sq / static_cast<double>(plain[1].numel()) * 300, 1.0, 0.05);
}

// A structure-only model's batch norm reads its running variance at run time, under
// sqrt(var + eps): drawn in [-1, 1) most of the outputs would be NaN.
TEST(RandomArguments, VariancesUnderARootArePositive) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {4, 8});
  Value mean = b.input("mean", {8});
  Value var = b.input("var", {1, 8});
  Value eps = b.scalar(1e-5, DType::F32);
  Value norm = b.divide(b.subtract(x, mean), b.sqrt(b.add(b.reshape(var, {8}), eps)));
  b.output(norm);
  EXPECT_THAT(argument_under_root(g), ElementsAre(false, false, true));
  std::vector<Tensor> plain = random_arguments(g, 5);
  std::vector<Tensor> drawn = random_arguments(g, 5, RandomInit::FanIn);
  EXPECT_EQ(plain[1].data(), drawn[1].data());
  for (int64_t i = 0; i < drawn[2].numel(); ++i) {
    EXPECT_FLOAT_EQ(drawn[2][i], static_cast<float>(1.0 + 0.5 * plain[2][i]));
    EXPECT_GE(drawn[2][i], 0.5f);
  }
  const std::vector<Tensor> out = evaluate(g, drawn);
  for (float v : out[0].data()) EXPECT_FALSE(std::isnan(v));
}

// relu(x @ w1^T + b1) @ w2^T + b2, written as plain loops.
std::vector<float> mlp_by_hand(const Tensor& x, const Tensor& w1, const Tensor& b1,
                               const Tensor& w2, const Tensor& b2) {
  const int64_t n = 32, in = 128, hidden = 256, out = 10;
  std::vector<float> h(n * hidden), y(n * out);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < hidden; ++j) {
      double acc = b1[j];
      for (int64_t k = 0; k < in; ++k) acc += double{x[i * in + k]} * w1[j * in + k];
      h[i * hidden + j] = std::max(static_cast<float>(acc), 0.0f);
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < out; ++j) {
      double acc = b2[j];
      for (int64_t k = 0; k < hidden; ++k) acc += double{h[i * hidden + k]} * w2[j * hidden + k];
      y[i * out + j] = static_cast<float>(acc);
    }
  }
  return y;
}

TEST(Interpreter, SeedMlpMatchesHandWrittenLoops) {
  Graph g("simple_mlp");
  Builder b(g);
  Value x = b.input("x", {32, 128});
  Value w1 = b.weight("w1", {256, 128});
  Value b1 = b.weight("b1", {256});
  Value w2 = b.weight("w2", {10, 256});
  Value b2 = b.weight("b2", {10});
  Value h = b.relu(b.add(b.matmul(x, w1, {.transpose_b = true}), b1));
  b.output(b.add(b.matmul(h, w2, {.transpose_b = true}), b2));
  std::vector<Tensor> args = random_arguments(g, 2024);
  std::vector<Tensor> out = evaluate(g, args);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{32, 10}));
  std::vector<float> want = mlp_by_hand(args[0], args[1], args[2], args[3], args[4]);
  EXPECT_THAT(out[0].data(), Pointwise(FloatNear(1e-4f), want));
  // Not all zeros: the check above has something to compare.
  EXPECT_GT(std::abs(want[0]) + std::abs(want[1]) + std::abs(want[2]), 0.01f);
}

TEST(Interpreter, SeedMlpInitialAndOptimizedTtirAgree) {
  // Seed 000 §3.3 (ops %0 to %8) and §3.4 (ops %0 to %3) compute the same function.
  Graph initial, optimized;
  auto args_of = [](Builder& b) {
    return std::vector<Value>{b.input("arg0", {32, 128}), b.weight("arg1", {256, 128}),
                              b.weight("arg2", {256}), b.weight("arg3", {10, 256}),
                              b.weight("arg4", {10})};
  };
  {
    Builder b(initial);
    std::vector<Value> a = args_of(b);
    Value v1 = b.matmul(a[0], b.transpose(a[1], 1, 0));
    Value v4 = b.relu(b.add(v1, b.broadcast(a[2], {32, 256}, {1})));
    Value v6 = b.matmul(v4, b.transpose(a[3], 1, 0));
    b.output(b.add(v6, b.broadcast(a[4], {32, 10}, {1})));
  }
  {
    Builder b(optimized);
    std::vector<Value> a = args_of(b);
    Value v1 =
        b.add_relu(b.matmul(a[0], a[1], {.transpose_b = true}), a[2], {.broadcast_dims = {1}});
    b.output(b.add(b.matmul(v1, a[3], {.transpose_b = true}), a[4], {.broadcast_dims = {1}}));
  }
  EXPECT_EQ(initial.num_ops(), 9u);
  EXPECT_EQ(optimized.num_ops(), 4u);
  std::vector<Tensor> args = random_arguments(initial, 5);
  EXPECT_THAT(evaluate(initial, args)[0].data(),
              Pointwise(FloatNear(1e-5f), evaluate(optimized, args)[0].data()));
}

TEST(Interpreter, SeedCoshInBf16) {
  // Seed 001: cosh(x) = (exp(x) + exp(-x)) * 0.5 on bf16, rounding after every op.
  Graph g("cosh");
  Builder b(g);
  Value x = b.input("arg0", {32, 32}, DType::BF16);
  b.output(b.multiply(b.add(b.exp(x), b.exp(b.neg(x))), b.scalar(0.5)));
  std::vector<Tensor> args = random_arguments(g, 11);
  Tensor out = evaluate(g, args)[0];
  EXPECT_EQ(out.dtype(), DType::BF16);
  for (int64_t i = 0; i < out.numel(); ++i) {
    float v = args[0][i];
    float want = round_to_bf16(
        round_to_bf16(round_to_bf16(std::exp(v)) + round_to_bf16(std::exp(round_to_bf16(-v)))) *
        0.5f);
    ASSERT_EQ(out[i], want) << "element " << i;
    EXPECT_NEAR(out[i], std::cosh(v), 0.01f);
  }
}

} // namespace
} // namespace tilesat
