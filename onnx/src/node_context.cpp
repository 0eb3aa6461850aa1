// node_context.cpp: what a converter sees of its node: inputs, attributes and outputs.
#include "importer.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>
#include <string>

namespace tilesat::onnx {

Builder& NodeContext::builder() {
  return im_.builder();
}

int64_t NodeContext::opset() const {
  return im_.opset();
}

size_t NodeContext::num_inputs() const {
  return static_cast<size_t>(node_.input_size());
}

bool NodeContext::has_input(size_t i) const {
  return i < num_inputs() && !node_.input(static_cast<int>(i)).empty();
}

const OnnxValue& NodeContext::input(size_t i) const {
  if (!has_input(i)) fail(fmt::format("expected input {}, got none", i));
  return im_.value(node_.input(static_cast<int>(i)));
}

bool NodeContext::input_static(size_t i) const {
  const OnnxValue& v = input(i);
  return v.is_static && v.data.has_value();
}

Value NodeContext::operand(size_t i) {
  input(i);
  return im_.materialize(node_.input(static_cast<int>(i)));
}

TensorType NodeContext::input_type(size_t i) const {
  input(i);
  return im_.type_of(node_.input(static_cast<int>(i)));
}

const HostTensor& NodeContext::input_data(size_t i, std::string_view what) const {
  const OnnxValue& v = input(i);
  if (!v.data && im_.computed_data(node_.input(static_cast<int>(i))) == nullptr) {
    fail(fmt::format("expected input {} ('{}') to be known at import time, got a runtime value", i,
                     what));
  }
  return *v.data;
}

const ::onnx::AttributeProto* NodeContext::attr(std::string_view name) const {
  for (const ::onnx::AttributeProto& a : node_.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

bool NodeContext::has_attr(std::string_view name) const {
  return attr(name) != nullptr;
}

int64_t NodeContext::attr_int(std::string_view name, int64_t fallback) const {
  const ::onnx::AttributeProto* a = attr(name);
  if (a == nullptr) return fallback;
  if (a->type() != ::onnx::AttributeProto::INT) {
    fail(fmt::format("expected attribute '{}' to be an int", name));
  }
  return a->i();
}

double NodeContext::attr_float(std::string_view name, double fallback) const {
  const ::onnx::AttributeProto* a = attr(name);
  if (a == nullptr) return fallback;
  if (a->type() != ::onnx::AttributeProto::FLOAT) {
    fail(fmt::format("expected attribute '{}' to be a float", name));
  }
  // The shortest decimal that reads back as the same float: 1e-05, not 9.99999974737875e-06.
  return std::stod(fmt::format("{}", a->f()));
}

std::string NodeContext::attr_string(std::string_view name, std::string fallback) const {
  const ::onnx::AttributeProto* a = attr(name);
  if (a == nullptr) return fallback;
  if (a->type() != ::onnx::AttributeProto::STRING) {
    fail(fmt::format("expected attribute '{}' to be a string", name));
  }
  return a->s();
}

std::vector<int64_t> NodeContext::attr_ints(std::string_view name,
                                            std::vector<int64_t> fallback) const {
  const ::onnx::AttributeProto* a = attr(name);
  if (a == nullptr) return fallback;
  if (a->type() != ::onnx::AttributeProto::INTS) {
    fail(fmt::format("expected attribute '{}' to be a list of ints", name));
  }
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

size_t NodeContext::num_outputs() const {
  return static_cast<size_t>(node_.output_size());
}

bool NodeContext::wants_output(size_t i) const {
  return i < num_outputs() && !node_.output(static_cast<int>(i)).empty();
}

void NodeContext::set_output(size_t i, Value v) {
  if (!wants_output(i)) return;
  OnnxValue out;
  out.node = v.id;
  im_.define(node_.output(static_cast<int>(i)), std::move(out));
}

void NodeContext::set_static_output(size_t i, HostTensor data) {
  if (!wants_output(i)) return;
  OnnxValue out;
  out.data = std::move(data);
  out.is_static = true;
  im_.define(node_.output(static_cast<int>(i)), std::move(out));
}

void NodeContext::set_weight_output(size_t i, HostTensor data) {
  if (!wants_output(i)) return;
  OnnxValue out;
  if (exact_in_f32(data.elem_type)) {
    // Kept as the f32 values the weight will have.
    int32_t elem_type = data.elem_type;
    Tensor values = to_tensor(data, *dtype_of(elem_type));
    data = HostTensor();
    out.data = HostData::compact(elem_type, std::move(values));
  } else {
    out.data = std::move(data);
  }
  out.weight_name = node_.output(static_cast<int>(i));
  im_.define(node_.output(static_cast<int>(i)), std::move(out));
}

void NodeContext::forward(size_t i, size_t j) {
  if (!wants_output(i)) return;
  // A weight gets its one argument before it is shared.
  if (!input(j).weight_name.empty()) im_.materialize(node_.input(static_cast<int>(j)));
  OnnxValue v = input(j);
  im_.define(node_.output(static_cast<int>(i)), std::move(v));
}

void NodeContext::fail(std::string message) const {
  throw Error(std::move(message));
}

} // namespace tilesat::onnx
