// external_data.h: private to onnx/: reading the tensor data an ONNX model stores in files
// beside it.
#pragma once

#include <string>

namespace onnx {
class ModelProto;
}

namespace tilesat::onnx {

/// Reads every tensor `model` stores as external data (initializers and Constant values, in
/// subgraphs too) from its file under `dir` (the model's directory; "" is the working
/// directory) into the tensor's raw data. A location outside `dir`, a missing file or a byte
/// range past its end is an error naming `name` and the tensor.
///
///   load_external_data(model, "models/llama", "models/llama/model.onnx");
void load_external_data(::onnx::ModelProto& model, const std::string& dir, const std::string& name);

} // namespace tilesat::onnx
