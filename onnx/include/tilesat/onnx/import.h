// Importing ONNX models (opsets 11 to 21; 1 to 10 are converted to 11 by the ONNX library's
// version converter first, in a child process so that a converter crash is an error; 18 to 21,
// newer than the library, are checked against its opset 17 except for the ops changed since)
// into tilesat graphs.
//
// The model is checked by the ONNX library's checker and shape inference, then converted node
// by node: initializers become weight arguments (their data is returned beside the graph),
// graph inputs without an initializer become input arguments, and shape-computing subgraphs
// (Shape, Gather, Concat, Unsqueeze, ... over values known at import time) are folded to
// constants. A Conv followed only by a BatchNormalization becomes one conv2d whose weights
// hold the folded normalization. Tensor data stored outside the model (external data) is read
// from the files it names beside the model, after ImportOptions::outputs has cut away what it
// does not need. A model with ops tilesat does not support is rejected with
// one error listing every unsupported op type and how often it occurs; a malformed file is a
// tilesat::Error naming the file, never a crash.
//
//   tilesat::onnx::ImportedModel m = tilesat::onnx::import_file("resnet18.onnx");
//   m.graph.num_ops();                                   // the ops of the model
//   std::vector<Tensor> args = tilesat::onnx::arguments(m, /*seed=*/1);
//   std::vector<Tensor> out = tilesat::evaluate(m.graph, args);
#pragma once

#include "tilesat/graph/graph.h"
#include "tilesat/graph/interpreter.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tilesat::onnx {

/// How symbolic dims are resolved.
///
///   ImportOptions o;
///   o.dim_values["batch"] = 1;   // every dim named "batch" becomes 1
struct ImportOptions {
  /// Extents for named (symbolic) dims of graph inputs (`tilesat --dim NAME=SIZE`). A named
  /// dim of an input given a value (static_inputs) takes that value's extent, for every input
  /// naming it. A symbolic dim with neither is an error naming the input and the dim, and so is
  /// an entry here that no graph input names.
  std::map<std::string, int64_t, std::less<>> dim_values;
  /// Values of graph inputs (by the model's name or the argument's) to specialize the model
  /// to. An integer or bool input becomes data known at import time, folded where an op needs
  /// it (Reshape's shape, Slice's starts, axes, Trilu's k, indices), and is no argument; a
  /// float input stays an argument whose value is also known where an op needs it at import
  /// (Resize's scales, Clip's bounds), so the model is only valid for that value there. A name
  /// that is no input of the model is an error. `tilesat eval` passes every input it is given.
  std::map<std::string, Tensor, std::less<>> static_inputs;
  /// Values of the main graph (node outputs, by the model's names) to import as the graph's
  /// results instead of the model's outputs, as onnx.utils.extract_model cuts a model: only
  /// the nodes they depend on are converted, and graph inputs nothing left reads are dropped.
  /// This is how the static part of a model whose tail has value-dependent shapes (a
  /// detector's NonZero and NonMaxSuppression) is planned. A name that is no value of the main
  /// graph is an error.
  ///
  ///   o.outputs = {"/Softmax_output_0", "/Clip_output_0"};   // scores and boxes
  std::vector<std::string> outputs;
};

/// An imported model: the graph, the data of its weight arguments, and where it came from.
///
///   ImportedModel m = import_file("model.onnx");
///   const Tensor& w = m.weights.at("fc.weight");   // the initializer's values
struct ImportedModel {
  /// One function named "main"; arguments are inputs (role Input) and initializers (role
  /// Weight), named as in the model (characters other than letters, digits and `_.$-` become
  /// `_`).
  Graph graph{"main"};
  /// The values of every weight argument, by argument name, of the argument's type.
  std::map<std::string, Tensor, std::less<>> weights;
  /// The version of the default ("ai.onnx") opset the model imports.
  int64_t opset = 0;
  /// The model's producer_name, e.g. "pytorch".
  std::string producer;
};

/// Reads and imports the model at `path`; throws tilesat::Error naming the file. Tensors the
/// model stores as external data (torch.onnx.export writes them beside a model over 2 GiB)
/// are read from their files in the model's directory.
ImportedModel import_file(const std::string& path, const ImportOptions& options = {});
/// Imports the serialized ModelProto in `bytes`; `name` is what diagnostics call it, and its
/// directory is where external data is read from.
ImportedModel import_bytes(std::string_view bytes, const std::string& name,
                           const ImportOptions& options = {});

/// One tensor per argument of `m.graph`, in argument order: each weight's data from the
/// model, each input drawn as by tilesat::random_arguments(graph, seed, init) (a
/// structure-only model's parameters are inputs: RandomInit::FanIn scales them).
std::vector<Tensor> arguments(const ImportedModel& m, uint64_t seed,
                              RandomInit init = RandomInit::Uniform);

} // namespace tilesat::onnx
