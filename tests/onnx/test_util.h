// test_util.h: importing a test model and evaluating it on given inputs.
#pragma once

#include "model_builder.h"
#include "tilesat/graph/interpreter.h"
#include "tilesat/onnx/import.h"

#include <gtest/gtest.h>
#include <map>

namespace tilesat::onnx::testing {

inline Tensor T(Shape s, std::vector<float> v, DType d = DType::F32) {
  return Tensor(TensorType{d, std::move(s)}, std::move(v));
}

/// Evaluates `m` with its weights and the named inputs; returns result 0.
inline Tensor run(const ImportedModel& m, const std::map<std::string, Tensor>& inputs,
                  size_t result = 0) {
  std::vector<Tensor> args;
  for (NodeId a : m.graph.arguments()) {
    const Node& n = m.graph.node(a);
    if (n.role == ArgRole::Weight) {
      args.push_back(m.weights.at(n.name));
    } else {
      args.push_back(inputs.at(n.name));
    }
  }
  return evaluate(m.graph, args).at(result);
}

inline ImportedModel import(const OnnxModel& m, const ImportOptions& options = {}) {
  return import_bytes(m.bytes(), "test.onnx", options);
}

/// The message of the error importing `m` with `options`, or "no error".
inline std::string import_error(const OnnxModel& m, const ImportOptions& options = {}) {
  try {
    import(m, options);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

/// Number of ops of `kind` reachable from the results.
inline size_t count_ops(const Graph& g, OpKind kind) {
  size_t n = 0;
  for (NodeId id : g.topological_order()) n += g.node(id).kind == kind ? 1 : 0;
  return n;
}

} // namespace tilesat::onnx::testing
