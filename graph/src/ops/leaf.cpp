// leaf.cpp: ops without operands: arguments, constants and filled tensors.
#include "ops/op_impl.h"

#include <fmt/format.h>

namespace tilesat::ops {

TensorType infer_argument(const InferArgs&) {
  fail("expected an op, got an argument (its type is given, not inferred)");
}

Tensor eval_argument(const EvalArgs&) {
  throw InternalError("eval_argument: arguments are supplied, not evaluated");
}

TensorType infer_constant(const InferArgs& in) {
  const auto& shape = in.attrs.get<std::vector<int64_t>>("shape");
  check_shape(shape, "'shape'");
  const auto& value = in.attrs.get<std::vector<double>>("value");
  int64_t numel = Shape(shape).numel();
  if (value.size() != 1 && static_cast<int64_t>(value.size()) != numel) {
    fail(fmt::format("expected 'value' to hold 1 or {} elements, got {}", numel, value.size()));
  }
  return TensorType{in.attrs.get<DType>("dtype"), Shape(shape), {}};
}

Tensor eval_constant(const EvalArgs& in) {
  const auto& value = in.attrs.get<std::vector<double>>("value");
  Tensor out(in.result);
  for (size_t i = 0; i < out.data().size(); ++i) {
    out.data()[i] = static_cast<float>(value.size() == 1 ? value[0] : value[i]);
  }
  return out;
}

TensorType infer_full(const InferArgs& in) {
  const auto& shape = in.attrs.get<std::vector<int64_t>>("shape");
  check_shape(shape, "'shape'");
  return TensorType{in.attrs.get<DType>("dtype"), Shape(shape), {}};
}

Tensor eval_full(const EvalArgs& in) {
  Tensor out(in.result);
  auto v = static_cast<float>(in.attrs.get<double>("fill_value"));
  for (float& x : out.data()) x = v;
  return out;
}

} // namespace tilesat::ops
