// elementwise.cpp: unary and binary elementwise ops, Clip, Identity; folded when every input
// is static.
#include "converters.h"

#include <cmath>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

namespace tilesat::onnx {

namespace {

struct UnaryOp {
  std::string_view onnx;
  OpKind kind;
  double (*fold)(double);
};

constexpr UnaryOp kUnary[] = {
    {"Relu", OpKind::Relu, [](double x) { return x > 0 ? x : 0.0; }},
    {"Sigmoid", OpKind::Sigmoid, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
    {"Tanh", OpKind::Tanh, [](double x) { return std::tanh(x); }},
    {"Exp", OpKind::Exp, [](double x) { return std::exp(x); }},
    {"Log", OpKind::Log, [](double x) { return std::log(x); }},
    {"Sqrt", OpKind::Sqrt, [](double x) { return std::sqrt(x); }},
    {"Erf", OpKind::Erf, [](double x) { return std::erf(x); }},
    {"Neg", OpKind::Neg, [](double x) { return -x; }},
    {"Abs", OpKind::Abs, [](double x) { return std::fabs(x); }},
    {"Reciprocal", OpKind::Reciprocal, [](double x) { return 1.0 / x; }},
    {"Sin", OpKind::Sin, [](double x) { return std::sin(x); }},
    {"Cos", OpKind::Cos, [](double x) { return std::cos(x); }},
};

struct BinaryOp {
  std::string_view onnx;
  OpKind kind;
  double (*fold)(double, double);
};

constexpr BinaryOp kBinary[] = {
    {"Add", OpKind::Add, [](double a, double b) { return a + b; }},
    {"Sub", OpKind::Subtract, [](double a, double b) { return a - b; }},
    {"Mul", OpKind::Multiply, [](double a, double b) { return a * b; }},
    {"Div", OpKind::Divide, [](double a, double b) { return a / b; }},
    {"Pow", OpKind::Pow, [](double a, double b) { return std::pow(a, b); }},
    {"Max", OpKind::Maximum, [](double a, double b) { return std::max(a, b); }},
    {"Min", OpKind::Minimum, [](double a, double b) { return std::min(a, b); }},
};

} // namespace

void convert_unary(NodeContext& c) {
  const std::string& type = c.node().op_type();
  const UnaryOp* op = nullptr;
  for (const UnaryOp& u : kUnary) {
    if (u.onnx == type) op = &u;
  }
  if (op == nullptr) c.fail("no unary mapping");
  if (c.input_static(0)) {
    const HostTensor& x = *c.input(0).data;
    c.set_static_output(0, host_unary(x, op->fold, x.elem_type));
    return;
  }
  c.set_output(0, c.builder().op(op->kind, {c.operand(0)}));
}

void convert_binary(NodeContext& c) {
  const std::string& type = c.node().op_type();
  const BinaryOp* op = nullptr;
  for (const BinaryOp& b : kBinary) {
    if (b.onnx == type) op = &b;
  }
  if (op == nullptr) c.fail("no binary mapping");
  // Max and Min are variadic in ONNX; tilesat supports their two-input form.
  if (c.num_inputs() != 2) {
    c.fail(fmt::format("expected 2 inputs, got {}", c.num_inputs()));
  }
  if (c.input_static(0) && c.input_static(1)) {
    const HostTensor& a = *c.input(0).data;
    const HostTensor& b = *c.input(1).data;
    auto f = op->fold;
    bool integer = a.is_integer() && b.is_integer();
    HostTensor r = host_binary(
        a, b,
        [f, integer, &type](double x, double y) {
          if (integer && type == "Div") {
            if (y == 0) throw Error("integer division by zero");
            return std::trunc(x / y);
          }
          return f(x, y);
        },
        a.elem_type);
    c.set_static_output(0, std::move(r));
    return;
  }
  set_binary_output(c, op->kind);
}

void set_binary_output(NodeContext& c, OpKind kind) {
  bool a_static = c.input_static(0);
  size_t other = a_static ? 1 : 0, fixed = a_static ? 0 : 1;
  Value x = c.operand(other);
  TensorType xt = c.builder().type(x);
  Value y =
      c.input_static(fixed)
          ? operand_like(c, fixed, xt.dtype,
                         static_cast<int64_t>(c.input(fixed).data.dims().size()) <= xt.shape.rank())
          : c.operand(fixed);
  Value lhs = a_static ? y : x, rhs = a_static ? x : y;
  c.set_output(0, c.builder().op(kind, {lhs, rhs}));
}

void convert_clip(NodeContext& c) {
  // Opset 11 on: bounds are optional inputs 1 and 2; bounds computed at run time are
  // one-element tensors applied with maximum and minimum.
  if ((c.has_input(1) && !c.input_static(1)) || (c.has_input(2) && !c.input_static(2))) {
    Builder& b = c.builder();
    Value x = c.operand(0);
    DType d = b.type(x).dtype;
    for (size_t i : {size_t{1}, size_t{2}}) {
      if (!c.has_input(i)) continue;
      if (c.input_shape(i).numel() != 1)
        c.fail(fmt::format("expected a one-element '{}', got {}", i == 1 ? "min" : "max",
                           c.input_shape(i).numel()));
      Value bound = b.reshape(operand_like(c, i, d, true), {});
      x = i == 1 ? b.maximum(x, bound) : b.minimum(x, bound);
    }
    c.set_output(0, x);
    return;
  }
  std::optional<double> lo, hi;
  if (c.has_input(1)) {
    const HostTensor& h = c.input_data(1, "min");
    if (h.numel() != 1) c.fail(fmt::format("expected a one-element 'min', got {}", h.numel()));
    lo = h.values[0];
  }
  if (c.has_input(2)) {
    const HostTensor& h = c.input_data(2, "max");
    if (h.numel() != 1) c.fail(fmt::format("expected a one-element 'max', got {}", h.numel()));
    hi = h.values[0];
  }
  if (c.input_static(0)) {
    HostTensor x = *c.input(0).data;
    for (double& v : x.values) {
      if (lo) v = std::max(v, *lo);
      if (hi) v = std::min(v, *hi);
    }
    c.set_static_output(0, std::move(x));
    return;
  }
  Builder& b = c.builder();
  Value x = c.operand(0);
  DType d = b.type(x).dtype;
  if (lo && *lo == 0.0) {
    x = b.relu(x);
  } else if (lo) {
    x = b.maximum(x, b.scalar(*lo, d));
  }
  if (hi) x = b.minimum(x, b.scalar(*hi, d));
  c.set_output(0, x);
}

void convert_identity(NodeContext& c) {
  // Dropout at inference, or with ratio 0 in any mode, is the identity; its mask output is
  // not supported.
  bool no_ratio = c.has_input(1) && c.input(1).data && c.input(1).data.numel() == 1 &&
                  c.input(1).data->values.at(0) == 0;
  if (c.node().op_type() == "Dropout" && c.has_input(2) && !no_ratio &&
      (!c.input_static(2) || c.input(2).data->values.at(0) != 0)) {
    c.fail("expected 'training_mode' to be false (inference) or 'ratio' 0, got a training "
           "dropout or runtime values");
  }
  c.forward(0, 0);
  // The mask of an identity dropout keeps every element.
  if (c.node().op_type() == "Dropout" && c.num_outputs() > 1 && c.wants_output(1)) {
    std::vector<int64_t> dims = c.input_shape(0).dims();
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    c.set_static_output(
        1, host(::onnx::TensorProto::BOOL, dims, std::vector<double>(static_cast<size_t>(n), 1.0)));
  }
}

} // namespace tilesat::onnx
