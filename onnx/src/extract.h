// extract.h: private to onnx/: cutting a model down to the part that computes chosen values
// (ImportOptions::outputs), and naming the ops whose output shapes depend on values.
#pragma once

#include "tilesat/onnx/import.h"

#include <string>
#include <vector>

namespace onnx {
class ModelProto;
class GraphProto;
} // namespace onnx

namespace tilesat::onnx {

/// Makes `options.outputs` the graph outputs of `model`'s main graph and keeps only what
/// computes them: the nodes they depend on (through subgraphs' references to outer values
/// too), the initializers those read, and the graph inputs those read or that
/// `options.static_inputs` names. Each output keeps the type the model declares for it (as an
/// output, input, initializer or value_info, with a shape); the names of those it declares
/// none for are returned: they have no type until the importer computes theirs. Does nothing
/// when `options.outputs` is empty; fails naming `name` when an output is no value of the
/// main graph.
///
///   ImportOptions o;
///   o.outputs = {"/Softmax_output_0"};     // the scores, before a detector's NonZero
///   select_outputs(model, o, "ssd.onnx");  // the NMS tail is gone; returns the scores' name
std::vector<std::string> select_outputs(::onnx::ModelProto& model, const ImportOptions& options,
                                        const std::string& name);

/// While alive, gives the `untyped` graph outputs of `model` a placeholder type (f32, rank 0):
/// ONNX's checker wants a type and shape on every graph output but reads neither.
///
///   { CheckerPlaceholders p(model, untyped); ::onnx::checker::check_model(model); }
class CheckerPlaceholders {
public:
  CheckerPlaceholders(::onnx::ModelProto& model, const std::vector<std::string>& untyped);
  ~CheckerPlaceholders();
  CheckerPlaceholders(const CheckerPlaceholders&) = delete;
  CheckerPlaceholders& operator=(const CheckerPlaceholders&) = delete;

private:
  ::onnx::ModelProto& model_;
  const std::vector<std::string>& untyped_;
};

/// The op types of `graph`'s nodes (not in subgraphs) whose output shapes depend on input
/// values (NonZero, NonMaxSuppression, Unique, ...), in order of first use, with the name of
/// the first node of each type (when it has one) and the values it reads, e.g. "NonZero (node
/// '/NonZero' reads '/Greater_output_0')".
std::vector<std::string> value_dependent_ops(const ::onnx::GraphProto& graph);

} // namespace tilesat::onnx
