// Tests of fused_body.cpp and the fused_eltwise op (ops/fused_eltwise.cpp): parsing, printing,
// inference and reference semantics equal to the unfused ops'.
#include "tilesat/graph/builder.h"
#include "tilesat/graph/fused_body.h"
#include "tilesat/graph/interpreter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilesat {
namespace {

std::string body_error(std::string_view text) {
  try {
    parse_fused_body(text);
  } catch (const Error& e) {
    return e.diagnostic().message;
  }
  return "no error";
}

TEST(FusedBody, ParsesAndPrintsCanonically) {
  FusedBody b = parse_fused_body(" (multiply (add (exp %0) (exp (neg %0)))   0.5 )");
  EXPECT_EQ(b.num_ops(), 5u);
  EXPECT_EQ(b.max_operand(), 0);
  EXPECT_EQ(print_fused_body(b), "(multiply (add (exp %0) (exp (neg %0))) 0.5)");
  EXPECT_EQ(print_fused_body(parse_fused_body("(add %1 -1e-07)")), "(add %1 -1e-07)");
}

TEST(FusedBody, RejectsWhatIsNotAnElementwiseTree) {
  EXPECT_EQ(body_error("(matmul %0 %1)"),
            "fused body: expected an elementwise unary or binary op, got 'matmul' at offset 7");
  EXPECT_EQ(body_error("(frob %0)"), "fused body: expected an op name, got 'frob' at offset 5");
  EXPECT_EQ(body_error("(exp %0 %1)"),
            "fused body: expected 1 argument for 'exp', got 2 at offset 11");
  EXPECT_EQ(body_error("(exp %x)"),
            "fused body: expected an operand reference '%N', got '%x' at offset 7");
  EXPECT_EQ(body_error("(exp %0) %1"), "fused body: expected end of body, got '%1' at offset 9");
  EXPECT_EQ(body_error("(typecast %0)"),
            "fused body: expected an elementwise unary or binary op, got 'typecast' at offset 9");
}

TEST(FusedEltwise, InfersTheBodysType) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {4, 8}, DType::BF16), bias = b.input("bias", {8}, DType::BF16);
  Value f = b.fused_eltwise(std::vector<Value>{x, bias}, "(relu (add %0 %1))");
  EXPECT_EQ(b.type(f), (TensorType{DType::BF16, Shape{4, 8}, {}}));
  EXPECT_THROW(b.fused_eltwise(std::vector<Value>{x}, "(add %0 %1)"), Error);
  EXPECT_THROW(b.fused_eltwise(std::vector<Value>{x}, "%0"), Error);
}

TEST(FusedEltwise, EvaluatesExactlyAsTheUnfusedOps) {
  Graph fused, plain;
  Builder f(fused), p(plain);
  Value fx = f.input("x", {3, 5}, DType::BF16);
  f.output(f.fused_eltwise(std::vector<Value>{fx}, "(multiply (add (exp %0) (exp (neg %0))) 0.5)"));
  Value px = p.input("x", {3, 5}, DType::BF16);
  p.output(p.multiply(p.add(p.exp(px), p.exp(p.neg(px))), p.scalar(0.5)));
  std::vector<Tensor> args = random_arguments(plain, 11);
  EXPECT_EQ(evaluate(fused, args)[0].data(), evaluate(plain, args)[0].data());
}

TEST(FusedEltwise, HandWrittenValues) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {3}), y = b.input("y", {3});
  b.output(b.fused_eltwise(std::vector<Value>{x, y}, "(relu (subtract %0 (multiply %1 2)))"));
  Tensor tx(TensorType{DType::F32, Shape{3}, {}}, {1, 2, 3});
  Tensor ty(TensorType{DType::F32, Shape{3}, {}}, {1, 0.5f, 2});
  std::vector<Tensor> args = {tx, ty};
  EXPECT_THAT(evaluate(g, args)[0].data(), ::testing::ElementsAre(0.0f, 1.0f, 0.0f));
}

} // namespace
} // namespace tilesat
