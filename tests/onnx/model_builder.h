// model_builder.h: writes small ONNX models for tests with the ONNX protobuf API.
//
//   OnnxModel m;
//   m.input("x", {2, 3});
//   m.initializer("w", {3, 4}, {...});
//   m.node("MatMul", {"x", "w"}, {"y"});
//   m.output("y");
//   ImportedModel im = import_bytes(m.bytes(), "test.onnx");
#pragma once

#include <cstdint>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <string>
#include <vector>

namespace tilesat::onnx::testing {

class OnnxModel {
public:
  explicit OnnxModel(int64_t opset = 17) {
    model_.set_ir_version(8);
    model_.set_producer_name("tilesat-tests");
    ::onnx::OperatorSetIdProto* id = model_.add_opset_import();
    id->set_domain("");
    id->set_version(opset);
    model_.mutable_graph()->set_name("test");
  }

  ::onnx::ModelProto& proto() { return model_; }
  ::onnx::GraphProto& graph() { return *model_.mutable_graph(); }

  void input(const std::string& name, const std::vector<int64_t>& dims,
             int32_t elem_type = ::onnx::TensorProto::FLOAT) {
    ::onnx::ValueInfoProto* v = graph().add_input();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem_type);
    auto* s = t->mutable_shape();
    for (int64_t d : dims) s->add_dim()->set_dim_value(d);
  }

  void symbolic_input(const std::string& name, const std::string& dim_param, int64_t rest) {
    ::onnx::ValueInfoProto* v = graph().add_input();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(::onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_param(dim_param);
    t->mutable_shape()->add_dim()->set_dim_value(rest);
  }

  void output(const std::string& name, int32_t elem_type = ::onnx::TensorProto::FLOAT) {
    ::onnx::ValueInfoProto* v = graph().add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
  }

  static ::onnx::TensorProto tensor(const std::string& name, const std::vector<int64_t>& dims,
                                    const std::vector<float>& values) {
    ::onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(::onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t.add_dims(d);
    for (float v : values) t.add_float_data(v);
    return t;
  }

  static ::onnx::TensorProto int_tensor(const std::string& name, const std::vector<int64_t>& dims,
                                        const std::vector<int64_t>& values) {
    ::onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(::onnx::TensorProto::INT64);
    for (int64_t d : dims) t.add_dims(d);
    for (int64_t v : values) t.add_int64_data(v);
    return t;
  }

  void initializer(const std::string& name, const std::vector<int64_t>& dims,
                   const std::vector<float>& values) {
    *graph().add_initializer() = tensor(name, dims, values);
  }

  void int_initializer(const std::string& name, const std::vector<int64_t>& dims,
                       const std::vector<int64_t>& values) {
    *graph().add_initializer() = int_tensor(name, dims, values);
  }

  /// A Constant node holding int64 values.
  void int_constant(const std::string& name, const std::vector<int64_t>& dims,
                    const std::vector<int64_t>& values) {
    ::onnx::NodeProto* n = node("Constant", {}, {name});
    ::onnx::AttributeProto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(::onnx::AttributeProto::TENSOR);
    *a->mutable_t() = int_tensor("", dims, values);
  }

  /// A Constant node holding float values.
  void constant(const std::string& name, const std::vector<int64_t>& dims,
                const std::vector<float>& values) {
    ::onnx::NodeProto* n = node("Constant", {}, {name});
    ::onnx::AttributeProto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(::onnx::AttributeProto::TENSOR);
    *a->mutable_t() = tensor("", dims, values);
  }

  ::onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs) {
    ::onnx::NodeProto* n = graph().add_node();
    n->set_op_type(op);
    n->set_name(op + "_" + std::to_string(graph().node_size() - 1));
    for (const std::string& i : inputs) n->add_input(i);
    for (const std::string& o : outputs) n->add_output(o);
    return n;
  }

  /// A com.microsoft node (the model then imports that domain, version 1).
  ::onnx::NodeProto* microsoft_node(const std::string& op, const std::vector<std::string>& inputs,
                                    const std::vector<std::string>& outputs) {
    bool imported = false;
    for (const ::onnx::OperatorSetIdProto& id : model_.opset_import())
      imported = imported || id.domain() == "com.microsoft";
    if (!imported) {
      ::onnx::OperatorSetIdProto* id = model_.add_opset_import();
      id->set_domain("com.microsoft");
      id->set_version(1);
    }
    ::onnx::NodeProto* n = node(op, inputs, outputs);
    n->set_domain("com.microsoft");
    return n;
  }
  static void attr(::onnx::NodeProto* n, const std::string& name, int64_t v) {
    ::onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void attr_f(::onnx::NodeProto* n, const std::string& name, float v) {
    ::onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void attr(::onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    ::onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void attr_s(::onnx::NodeProto* n, const std::string& name, const std::string& v) {
    ::onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s(v);
  }

  /// Output `name` with a declared shape (the checker wants one on every output).
  void output(const std::string& name, const std::vector<int64_t>& dims) {
    output(name);
    auto* s = graph()
                  .mutable_output(graph().output_size() - 1)
                  ->mutable_type()
                  ->mutable_tensor_type()
                  ->mutable_shape();
    for (int64_t d : dims) s->add_dim()->set_dim_value(d);
  }

  /// The serialized model; outputs declared without a shape get the one ONNX shape inference
  /// finds, as an exporter would write it.
  std::string bytes() const {
    ::onnx::ModelProto m = model_;
    bool shapes_missing = false;
    for (const ::onnx::ValueInfoProto& o : m.graph().output()) {
      shapes_missing = shapes_missing || !o.type().tensor_type().has_shape();
    }
    try {
      ::onnx::ShapeInferenceOptions propagate(false, 0, /*data_prop_val=*/true);
      if (shapes_missing) {
        ::onnx::shape_inference::InferShapes(m, ::onnx::OpSchemaRegistry::Instance(), propagate);
      }
    } catch (const std::exception&) {
      // Models that are wrong on purpose keep their outputs as written.
    }
    return m.SerializeAsString();
  }

private:
  ::onnx::ModelProto model_;
};

} // namespace tilesat::onnx::testing
