// importer.h: private to onnx/: the state of one import and the interface every op converter
// uses: the values known so far (graph values and host data), the node being converted, its
// attributes and inputs, and the builder that adds graph ops.
#pragma once

#include "host_tensor.h"
#include "tilesat/graph/builder.h"
#include "tilesat/onnx/import.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace onnx {
class NodeProto;
class AttributeProto;
class GraphProto;
} // namespace onnx

namespace tilesat::onnx {

/// What the importer knows about one ONNX value.
struct OnnxValue {
  /// The graph value, once it has one (weights and static data get one on first use).
  std::optional<NodeId> node;
  /// The data, when known at import time (constants, initializers, folded shape math).
  HostData data;
  /// Data that is part of the program rather than a parameter: folded into consumers, and
  /// materialized as a `constant` op when a graph op needs it. Initializers of float type are
  /// weights, not static.
  bool is_static = false;
  /// For weights: the argument name to create on first use.
  std::string weight_name;
};

class Importer;

/// The view of one node a converter works with.
class NodeContext {
public:
  NodeContext(Importer& im, const ::onnx::NodeProto& node) : im_(im), node_(node) {}

  const ::onnx::NodeProto& node() const { return node_; }
  Builder& builder();
  int64_t opset() const;

  // Inputs (an empty name is an omitted optional input).
  size_t num_inputs() const;
  bool has_input(size_t i) const;
  const OnnxValue& input(size_t i) const;
  /// True when input i is static data (so the op can be folded).
  bool input_static(size_t i) const;
  /// The graph value of input i, materializing constants and weights.
  Value operand(size_t i);
  /// The type input i has (or will have) in the graph.
  TensorType input_type(size_t i) const;
  Shape input_shape(size_t i) const { return input_type(i).shape; }
  /// The data of input i; fails ("expected input i ('what') to be known at import time")
  /// when it is a runtime value.
  const HostTensor& input_data(size_t i, std::string_view what) const;

  // Attributes (defaults as the ONNX operator spec states them).
  bool has_attr(std::string_view name) const;
  int64_t attr_int(std::string_view name, int64_t fallback) const;
  double attr_float(std::string_view name, double fallback) const;
  std::string attr_string(std::string_view name, std::string fallback) const;
  std::vector<int64_t> attr_ints(std::string_view name, std::vector<int64_t> fallback) const;
  const ::onnx::AttributeProto* attr(std::string_view name) const;

  // Outputs.
  size_t num_outputs() const;
  bool wants_output(size_t i) const;
  void set_output(size_t i, Value v);
  void set_static_output(size_t i, HostTensor data);
  /// Output `i` as data that is a weight (computed at import from weights, such as an int8
  /// initializer dequantized): an argument on first use, its data visible to later folds.
  void set_weight_output(size_t i, HostTensor data);
  /// Makes output `i` the same ONNX value as input `j` (Identity, folded ops).
  void forward(size_t i, size_t j);

  /// Throws tilesat::Error with `message` (the importer adds the node and file).
  [[noreturn]] void fail(std::string message) const;

  Importer& importer() { return im_; }

private:
  Importer& im_;
  const ::onnx::NodeProto& node_;
};

/// Throws tilesat::Error "<file>: <message>" (the file is part of the message, so every
/// caller prints it).
[[noreturn]] void fail_in(const std::string& file, std::string message);

/// One op type's converter.
using Converter = void (*)(NodeContext&);

/// The converter for `op_type` of the default domain, or nullptr when unsupported.
Converter find_converter(std::string_view op_type);
/// Throws one tilesat::Error listing every op type of `graph` without a converter, with its
/// count: "name: error: unsupported ONNX ops: Det (2), Round (1)".
void check_supported(const ::onnx::GraphProto& graph, const std::string& name);
/// The op types of `graph` without a converter, each with its count ("Det (2)").
std::vector<std::string> unsupported_ops(const ::onnx::GraphProto& graph);

class Importer {
public:
  Importer(std::string name, const ImportOptions& options);
  /// The value ImportOptions::static_inputs gives graph input `raw` (by its name in the
  /// model or as an argument name), or null.
  const Tensor* static_input(const std::string& raw) const;

  /// Imports `graph`; the data of its float initializers, once decoded, is cleared from it
  /// (the import keeps its own copy), so a large model is not held twice.
  ImportedModel run(::onnx::GraphProto& graph, int64_t opset, std::string producer);

  Builder& builder() { return builder_; }
  int64_t opset() const { return opset_; }
  const std::string& name() const { return name_; }
  OnnxValue& value(const std::string& name);
  const OnnxValue& value(const std::string& name) const;
  bool has_value(const std::string& name) const { return values_.count(name) != 0; }
  void define(const std::string& name, OnnxValue v);
  /// The graph value of `v` (creating its weight argument or constant op on first use).
  Value materialize(const std::string& name);
  /// The data of `name` when its graph value is computed from constants alone (no argument
  /// upstream), evaluated once with the reference interpreter and kept on the value; null
  /// otherwise. This is how a converter gets at import time what an exporter computed in
  /// floats from constants (torchvision's detection transform derives Pad's pads from a
  /// ReduceMax, Div and Ceil of the image size).
  const HostTensor* computed_data(const std::string& name);
  /// The graph type `v` has or will have; throws for element types tilesat lacks.
  TensorType type_of(const std::string& name) const;
  /// Number of nodes reading each value, plus one per graph output naming it.
  size_t use_count(const std::string& name) const;
  /// The node producing each value (nullptr for inputs and initializers).
  const ::onnx::NodeProto* producer_of(const std::string& name) const;
  /// The one node reading `name` when it has exactly one use and is not a graph output.
  const ::onnx::NodeProto* sole_consumer(const std::string& name) const;
  /// The ONNX element type of `name` as the model (after ONNX shape inference) declares it,
  /// or nullopt when it is not declared.
  std::optional<int32_t> declared_elem_type(const std::string& name) const;
  /// Records a weight argument added by a converter (BatchNormalization folding).
  Value add_weight(std::string name_hint, Tensor data);
  /// Converts the nodes of a subgraph (the branch an If takes) in this graph's scope and
  /// returns the names of its outputs; an error names the branch (`what`) and the node.
  std::vector<std::string> convert_branch(const ::onnx::GraphProto& graph, std::string_view what);
  /// Marks a node as already converted (it was absorbed by an earlier converter).
  void absorb(const ::onnx::NodeProto* node) { absorbed_.push_back(node); }

private:
  std::string unique_arg_name(std::string_view raw);
  void add_inputs(::onnx::GraphProto& graph);
  void convert(const ::onnx::NodeProto& node, size_t index);
  void convert_node(const ::onnx::NodeProto& node, size_t index);
  void count_uses(const ::onnx::GraphProto& graph);

  std::string name_;
  const ImportOptions& options_;
  ImportedModel model_;
  Builder builder_;
  int64_t opset_ = 0;
  std::map<std::string, OnnxValue, std::less<>> values_;
  std::map<std::string, size_t, std::less<>> uses_;
  std::map<std::string, const ::onnx::NodeProto*, std::less<>> producers_;
  std::map<std::string, const ::onnx::NodeProto*, std::less<>> last_consumer_;
  std::map<std::string, int, std::less<>> arg_names_;
  std::map<std::string, int32_t, std::less<>> declared_types_;
  std::vector<const ::onnx::NodeProto*> absorbed_;
};

} // namespace tilesat::onnx
