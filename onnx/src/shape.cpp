// shape.cpp: ops whose results are known at import time (Constant, ConstantOfShape, Shape,
// Range) and Cast.
#include "converters.h"

#include <cmath>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>

namespace tilesat::onnx {

namespace {

using TP = ::onnx::TensorProto;

} // namespace

void convert_constant(NodeContext& c) {
  const ::onnx::AttributeProto* a = nullptr;
  for (const ::onnx::AttributeProto& attr : c.node().attribute()) {
    if (a != nullptr) c.fail("expected exactly one value attribute, got several");
    a = &attr;
  }
  if (a == nullptr) c.fail("expected a value attribute, got none");
  const std::string& n = a->name();
  if (n == "value") {
    c.set_static_output(0, decode(a->t(), "attribute 'value'"));
  } else if (n == "value_float") {
    c.set_static_output(0, host(TP::FLOAT, {}, {a->f()}));
  } else if (n == "value_floats") {
    std::vector<double> v(a->floats().begin(), a->floats().end());
    auto size = static_cast<int64_t>(v.size());
    c.set_static_output(0, host(TP::FLOAT, {size}, std::move(v)));
  } else if (n == "value_int") {
    c.set_static_output(0, host(TP::INT64, {}, {static_cast<double>(a->i())}));
  } else if (n == "value_ints") {
    std::vector<double> v(a->ints().begin(), a->ints().end());
    auto size = static_cast<int64_t>(v.size());
    c.set_static_output(0, host(TP::INT64, {size}, std::move(v)));
  } else {
    c.fail(fmt::format("unsupported value attribute '{}'", n));
  }
}

void convert_constant_of_shape(NodeContext& c) {
  std::vector<int64_t> dims = c.input_data(0, "shape").ints();
  HostTensor fill = host(TP::FLOAT, {}, {0.0});
  if (const ::onnx::AttributeProto* a = c.attr("value")) fill = decode(a->t(), "attribute 'value'");
  if (fill.numel() != 1) c.fail("expected a one-element 'value'");
  for (int64_t d : dims) {
    if (d < 0) c.fail(fmt::format("expected non-negative dims, got {}", d));
  }
  HostTensor shape = host(fill.elem_type, dims, {});
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d != 0 && n > kMaxHostElements / d) c.fail("expected a smaller folded tensor");
    n *= d;
  }
  shape.values.assign(static_cast<size_t>(n), fill.values[0]);
  c.set_static_output(0, std::move(shape));
}

void convert_shape(NodeContext& c) {
  std::vector<int64_t> dims = c.input_shape(0).dims();
  auto rank = static_cast<int64_t>(dims.size());
  // Opset 15 added start and end (clamped to [0, rank]).
  int64_t start = c.attr_int("start", 0), end = c.attr_int("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  std::vector<int64_t> part(dims.begin() + start, dims.begin() + end);
  c.set_static_output(0, shape_tensor(part));
}

void convert_cast(NodeContext& c) {
  auto to = static_cast<int32_t>(c.attr_int("to", 0));
  if (c.input_static(0)) {
    HostTensor x = *c.input(0).data;
    x.elem_type = to;
    if (x.is_integer()) {
      for (double& v : x.values) v = to == TP::BOOL ? (v != 0 ? 1 : 0) : std::trunc(v);
    }
    c.set_static_output(0, std::move(x));
    return;
  }
  std::optional<DType> d = dtype_of(to);
  if (!d) c.fail(fmt::format("unsupported target type {}", elem_type_name(to)));
  Value x = c.operand(0);
  if (to == TP::BOOL) {
    // Nonzero is true: 1 - (x == 0), held in i32 as every bool is.
    Builder& b = c.builder();
    DType xd = b.type(x).dtype;
    Value one = b.scalar(1, xd);
    Value y = b.subtract(one, b.equal(x, b.scalar(0, xd)));
    c.set_output(0, xd == DType::I32 ? y : b.typecast(y, DType::I32));
    return;
  }
  if (c.builder().type(x).dtype == *d) {
    c.set_output(0, x);
    return;
  }
  c.set_output(0, c.builder().typecast(x, *d));
}

void convert_range(NodeContext& c) {
  const HostTensor& start = c.input_data(0, "start");
  const HostTensor& limit = c.input_data(1, "limit");
  const HostTensor& delta = c.input_data(2, "delta");
  if (start.numel() != 1 || limit.numel() != 1 || delta.numel() != 1) {
    c.fail("expected scalar start, limit and delta");
  }
  double s = start.values[0], l = limit.values[0], d = delta.values[0];
  if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d)) {
    c.fail("expected a finite non-zero delta and finite bounds");
  }
  double n = std::max(std::ceil((l - s) / d), 0.0);
  if (n > static_cast<double>(kMaxHostElements)) c.fail("expected a smaller range");
  HostTensor out = host(start.elem_type, {static_cast<int64_t>(n)}, {});
  for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) {
    out.values.push_back(s + static_cast<double>(i) * d);
  }
  c.set_static_output(0, std::move(out));
}

} // namespace tilesat::onnx
