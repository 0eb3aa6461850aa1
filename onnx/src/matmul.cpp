// matmul.cpp: MatMul (NumPy batching) and Gemm (alpha * A' B' + beta * C).
#include "converters.h"

#include <fmt/format.h>

namespace tilesat::onnx {

void convert_matmul(NodeContext& c) {
  Builder& b = c.builder();
  Value a = c.operand(0);
  Value w = operand_like(c, 1, b.type(a).dtype, false);
  c.set_output(0, b.matmul(a, w));
}

void convert_gemm(NodeContext& c) {
  Builder& b = c.builder();
  MatmulOptions o;
  o.transpose_a = c.attr_int("transA", 0) != 0;
  o.transpose_b = c.attr_int("transB", 0) != 0;
  double alpha = c.attr_float("alpha", 1.0), beta = c.attr_float("beta", 1.0);
  Value a = c.operand(0);
  DType d = b.type(a).dtype;
  Value w = operand_like(c, 1, d, false);
  if (b.type(a).shape.rank() != 2 || b.type(w).shape.rank() != 2) {
    c.fail(fmt::format("expected rank-2 A and B, got {} and {}", b.type(a).str(), b.type(w).str()));
  }
  bool has_c = c.has_input(2) && beta != 0.0;
  if (alpha == 1.0 && beta == 1.0 && has_c) {
    c.set_output(0, b.linear(a, w, operand_like(c, 2, d, false), o));
    return;
  }
  Value y = b.matmul(a, w, o);
  if (alpha != 1.0) y = b.multiply(y, b.scalar(alpha, d));
  if (has_c) {
    Value bias = operand_like(c, 2, d, false);
    if (beta != 1.0) bias = b.multiply(bias, b.scalar(beta, d));
    y = b.add(y, bias);
  }
  c.set_output(0, y);
}

} // namespace tilesat::onnx
