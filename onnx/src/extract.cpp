// extract.cpp: the part of a model that computes chosen values (ImportOptions::outputs), as
// onnx.utils.extract_model cuts it in Python: a detector's backbone and heads without its
// NonZero / NonMaxSuppression tail, or a model's first layers for debugging.
#include "extract.h"

#include "importer.h"

#include <algorithm>
#include <fmt/format.h>
#include <google/protobuf/repeated_field.h>
#include <onnx/onnx_pb.h>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace tilesat::onnx {

namespace {

// The values `node` reads: its inputs and, in its subgraphs (If's branches, Loop's and Scan's
// bodies), every name a node reads or a subgraph returns; names the subgraph defines itself
// are no node's outputs in the outer graph and so are ignored there.
void reads(const ::onnx::NodeProto& node, std::vector<std::string>& out) {
  for (const std::string& in : node.input())
    if (!in.empty()) out.push_back(in);
  for (const ::onnx::AttributeProto& a : node.attribute()) {
    std::vector<const ::onnx::GraphProto*> graphs;
    if (a.has_g()) graphs.push_back(&a.g());
    for (const ::onnx::GraphProto& g : a.graphs()) graphs.push_back(&g);
    for (const ::onnx::GraphProto* g : graphs) {
      for (const ::onnx::NodeProto& n : g->node()) reads(n, out);
      for (const ::onnx::ValueInfoProto& o : g->output()) out.push_back(o.name());
    }
  }
}

// The type `graph` declares for `value` (as a graph output, input or value_info, with a
// shape), or its initializer's; none when it declares none.
std::optional<::onnx::ValueInfoProto> declared_type(const ::onnx::GraphProto& graph,
                                                    const std::string& value) {
  for (const auto* infos : {&graph.output(), &graph.input(), &graph.value_info()})
    for (const ::onnx::ValueInfoProto& v : *infos)
      if (v.name() == value && v.type().has_tensor_type() &&
          v.type().tensor_type().elem_type() != 0 && v.type().tensor_type().has_shape())
        return v;
  for (const ::onnx::TensorProto& t : graph.initializer()) {
    if (t.name() != value) continue;
    ::onnx::ValueInfoProto v;
    v.set_name(value);
    auto* tt = v.mutable_type()->mutable_tensor_type();
    tt->set_elem_type(t.data_type());
    auto* shape = tt->mutable_shape();
    for (int64_t d : t.dims()) shape->add_dim()->set_dim_value(d);
    return v;
  }
  return std::nullopt;
}

bool value_dependent(const ::onnx::NodeProto& n) {
  static const std::set<std::string, std::less<>> kOps = {"NonZero", "NonMaxSuppression", "Unique"};
  return (n.domain().empty() || n.domain() == "ai.onnx") && kOps.contains(n.op_type());
}

} // namespace

std::vector<std::string> value_dependent_ops(const ::onnx::GraphProto& graph) {
  std::vector<std::string> found;
  std::set<std::string, std::less<>> seen;
  for (const ::onnx::NodeProto& n : graph.node()) {
    if (!value_dependent(n) || !seen.insert(n.op_type()).second) continue;
    std::vector<std::string> ins;
    for (const std::string& in : n.input())
      if (!in.empty()) ins.push_back(fmt::format("'{}'", in));
    std::string who = n.name().empty() ? "the first" : fmt::format("node '{}'", n.name());
    found.push_back(fmt::format("{} ({} reads {})", n.op_type(), who, fmt::join(ins, ", ")));
  }
  return found;
}

std::vector<std::string> select_outputs(::onnx::ModelProto& model, const ImportOptions& options,
                                        const std::string& name) {
  if (options.outputs.empty()) return {};
  ::onnx::GraphProto& graph = *model.mutable_graph();
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < graph.node_size(); ++i)
    for (const std::string& o : graph.node(i).output())
      if (!o.empty()) producer.emplace(o, i);
  std::unordered_set<std::string> sources;
  for (const ::onnx::ValueInfoProto& v : graph.input()) sources.insert(v.name());
  for (const ::onnx::TensorProto& t : graph.initializer()) sources.insert(t.name());

  std::vector<std::string> wanted;
  for (const std::string& o : options.outputs) {
    if (std::find(wanted.begin(), wanted.end(), o) != wanted.end()) continue;
    if (!producer.contains(o) && !sources.contains(o))
      fail_in(name, fmt::format("expected each selected output to be a value of the main graph "
                                "(a node's output, an input or an initializer), got '{}'",
                                o));
    wanted.push_back(o);
  }

  // The nodes the outputs depend on, and the values those read.
  std::vector<bool> keep(static_cast<size_t>(graph.node_size()), false);
  std::unordered_set<std::string> used;
  std::vector<std::string> stack(wanted.begin(), wanted.end());
  while (!stack.empty()) {
    std::string v = std::move(stack.back());
    stack.pop_back();
    if (!used.insert(v).second) continue;
    auto it = producer.find(v);
    if (it == producer.end() || keep[static_cast<size_t>(it->second)]) continue;
    keep[static_cast<size_t>(it->second)] = true;
    reads(graph.node(it->second), stack);
  }

  // Each output's type as the model declares it; the importer finds the others'.
  std::vector<std::optional<::onnx::ValueInfoProto>> types;
  for (const std::string& o : wanted) types.push_back(declared_type(graph, o));

  google::protobuf::RepeatedPtrField<::onnx::NodeProto> nodes;
  for (int i = 0; i < graph.node_size(); ++i)
    if (keep[static_cast<size_t>(i)]) nodes.Add()->Swap(graph.mutable_node(i));
  graph.mutable_node()->Swap(&nodes);
  google::protobuf::RepeatedPtrField<::onnx::TensorProto> inits;
  for (::onnx::TensorProto& t : *graph.mutable_initializer())
    if (used.contains(t.name())) inits.Add()->Swap(&t);
  graph.mutable_initializer()->Swap(&inits);
  google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto> inputs;
  for (::onnx::ValueInfoProto& v : *graph.mutable_input())
    if (used.contains(v.name()) || options.static_inputs.contains(v.name())) inputs.Add()->Swap(&v);
  graph.mutable_input()->Swap(&inputs);

  graph.clear_output();
  std::vector<std::string> untyped;
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (types[i]) {
      *graph.add_output() = *types[i];
    } else {
      graph.add_output()->set_name(wanted[i]);
      untyped.push_back(wanted[i]);
    }
  }
  return untyped;
}

CheckerPlaceholders::CheckerPlaceholders(::onnx::ModelProto& model,
                                         const std::vector<std::string>& untyped)
    : model_(model), untyped_(untyped) {
  for (::onnx::ValueInfoProto& o : *model_.mutable_graph()->mutable_output()) {
    if (std::find(untyped_.begin(), untyped_.end(), o.name()) == untyped_.end()) continue;
    auto* t = o.mutable_type()->mutable_tensor_type();
    t->set_elem_type(::onnx::TensorProto::FLOAT);
    t->mutable_shape();
  }
}

CheckerPlaceholders::~CheckerPlaceholders() {
  for (::onnx::ValueInfoProto& o : *model_.mutable_graph()->mutable_output())
    if (std::find(untyped_.begin(), untyped_.end(), o.name()) != untyped_.end()) o.clear_type();
}

} // namespace tilesat::onnx
