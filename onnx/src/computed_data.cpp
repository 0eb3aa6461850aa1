// computed_data.cpp: values an exporter computed from constants with graph ops (float shape
// arithmetic), evaluated at import time when a converter needs their data.
#include "importer.h"
#include "tilesat/graph/interpreter.h"

#include <algorithm>
#include <onnx/onnx_pb.h>

namespace tilesat::onnx {

namespace {

// Bounds on what is evaluated at import: the ops computing the value and its elements.
constexpr size_t kMaxFoldedOps = 4096;
constexpr int64_t kMaxFoldedElements = int64_t{1} << 20;

} // namespace

const HostTensor* Importer::computed_data(const std::string& name) {
  OnnxValue& v = value(name);
  if (v.data) return &*v.data;
  if (!v.node) return nullptr;
  const Graph& g = model_.graph;
  if (g.node(*v.node).type.shape.numel() > kMaxFoldedElements) return nullptr;
  // The ops computing the value, producers first (ids grow from producers to users).
  std::vector<NodeId> cone;
  std::vector<bool> seen(g.num_nodes(), false);
  std::vector<NodeId> stack{*v.node};
  while (!stack.empty()) {
    NodeId id = stack.back();
    stack.pop_back();
    if (seen[id]) continue;
    seen[id] = true;
    const Node& n = g.node(id);
    if (n.kind == OpKind::Argument || cone.size() == kMaxFoldedOps) return nullptr;
    cone.push_back(id);
    for (NodeId o : n.operands) stack.push_back(o);
  }
  std::sort(cone.begin(), cone.end());
  Graph sub("fold");
  std::vector<NodeId> map(g.num_nodes());
  for (NodeId id : cone) {
    const Node& n = g.node(id);
    std::vector<NodeId> operands;
    for (NodeId o : n.operands) operands.push_back(map[o]);
    map[id] = copy_op(sub, n, std::move(operands));
  }
  sub.add_result(map[*v.node]);
  Tensor t = evaluate(sub, {}).at(0);
  const bool integer = t.dtype() == DType::I32;
  int32_t elem_type = integer ? ::onnx::TensorProto::INT64 : ::onnx::TensorProto::FLOAT;
  v.data = HostTensor{declared_elem_type(name).value_or(elem_type), t.shape().dims(),
                      std::vector<double>(t.data().begin(), t.data().end())};
  return &*v.data;
}

} // namespace tilesat::onnx
