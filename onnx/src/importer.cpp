// importer.cpp: one import: graph inputs and initializers become arguments, every node goes
// through its converter in order, and the graph outputs become results.
#include "importer.h"

#include "converters.h"
#include "extract.h"
#include "tilesat/graph/interpreter.h"

#include <algorithm>
#include <fmt/format.h>
#include <onnx/onnx_pb.h>
#include <set>

namespace tilesat::onnx {

namespace {

// The converter of a node: ai.onnx ops by their type; of other domains only the com.microsoft
// ops of ONNX Runtime's QOperator form and transformer optimizer (find_microsoft_converter);
// nullptr when unsupported.
Converter converter_of(const ::onnx::NodeProto& n) {
  if (n.domain().empty() || n.domain() == "ai.onnx") return find_converter(n.op_type());
  if (n.domain() == "com.microsoft") return find_microsoft_converter(n.op_type());
  return nullptr;
}

bool id_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '$' || c == '-';
}

} // namespace

void fail_in(const std::string& file, std::string message) {
  throw Error(fmt::format("{}: {}", file, message));
}

Importer::Importer(std::string name, const ImportOptions& options)
    : name_(std::move(name)), options_(options), builder_(model_.graph) {}

const Tensor* Importer::static_input(const std::string& raw) const {
  auto it = options_.static_inputs.find(raw);
  if (it == options_.static_inputs.end()) {
    std::string s;
    for (char c : raw) s.push_back(id_char(c) ? c : '_');
    it = options_.static_inputs.find(s);
  }
  return it == options_.static_inputs.end() ? nullptr : &it->second;
}

std::string Importer::unique_arg_name(std::string_view raw) {
  std::string s;
  for (char c : raw) s.push_back(id_char(c) ? c : '_');
  if (s.empty() || (s[0] >= '0' && s[0] <= '9') || s[0] == '-') s.insert(s.begin(), '_');
  int& n = arg_names_[s];
  std::string out = n == 0 ? s : fmt::format("{}_{}", s, n);
  ++n;
  while (n > 1 && arg_names_.count(out) != 0) out = fmt::format("{}_{}", s, n++);
  if (out != s) arg_names_[out] = 1;
  return out;
}

OnnxValue& Importer::value(const std::string& name) {
  auto it = values_.find(name);
  if (it == values_.end()) throw Error(fmt::format("expected a value named '{}', got none", name));
  return it->second;
}

const OnnxValue& Importer::value(const std::string& name) const {
  return const_cast<Importer*>(this)->value(name);
}

void Importer::define(const std::string& name, OnnxValue v) {
  values_[name] = std::move(v);
}

size_t Importer::use_count(const std::string& name) const {
  auto it = uses_.find(name);
  return it == uses_.end() ? 0 : it->second;
}

const ::onnx::NodeProto* Importer::sole_consumer(const std::string& name) const {
  if (use_count(name) != 1) return nullptr;
  auto it = last_consumer_.find(name);
  return it == last_consumer_.end() ? nullptr : it->second;
}

const ::onnx::NodeProto* Importer::producer_of(const std::string& name) const {
  auto it = producers_.find(name);
  return it == producers_.end() ? nullptr : it->second;
}

TensorType Importer::type_of(const std::string& name) const {
  const OnnxValue& v = value(name);
  if (v.node) return model_.graph.node(*v.node).type;
  std::optional<DType> d = dtype_of(v.data.elem_type());
  if (!d) {
    throw Error(fmt::format("value '{}' has element type {}, which tilesat cannot compute with",
                            name, elem_type_name(v.data.elem_type())));
  }
  return TensorType{*d, Shape(v.data.dims()), {}};
}

void Importer::count_uses(const ::onnx::GraphProto& graph) {
  // A subgraph's nodes (an If's branches) read the outer values too: counted as uses, so no
  // converter takes a value read there as used once.
  for (const ::onnx::NodeProto& n : graph.node()) {
    for (const std::string& in : n.input()) {
      ++uses_[in];
      last_consumer_[in] = &n;
    }
    for (const std::string& out : n.output()) producers_[out] = &n;
    for (const ::onnx::AttributeProto& a : n.attribute()) {
      if (a.has_g()) count_uses(a.g());
      for (const ::onnx::GraphProto& g : a.graphs()) count_uses(g);
    }
  }
  for (const ::onnx::ValueInfoProto& out : graph.output()) ++uses_[out.name()];
}

std::optional<int32_t> Importer::declared_elem_type(const std::string& name) const {
  auto it = declared_types_.find(name);
  if (it == declared_types_.end()) return std::nullopt;
  return it->second;
}

Value Importer::add_weight(std::string name_hint, Tensor data) {
  std::string arg = unique_arg_name(name_hint);
  Value v{model_.graph.add_argument(arg, data.type(), ArgRole::Weight)};
  model_.weights.emplace(arg, std::move(data));
  return v;
}

Value Importer::materialize(const std::string& name) {
  OnnxValue& v = value(name);
  if (v.node) return Value{*v.node};
  TensorType t = type_of(name);
  if (!v.weight_name.empty()) {
    const Tensor* compact = v.data.compact_values();
    if (compact == nullptr || compact->dtype() != t.dtype) {
      Value w = add_weight(v.weight_name, to_tensor(v.data, t.dtype));
      v.node = w.id;
      return w;
    }
    // The values move into the model's weights: held once, and still readable through v.
    std::string arg = unique_arg_name(v.weight_name);
    Value w{model_.graph.add_argument(arg, t, ArgRole::Weight)};
    v.data.move_compact_to(model_.weights[arg]);
    v.node = w.id;
    return w;
  }
  Value c = builder_.constant(to_tensor(v.data, t.dtype));
  v.node = c.id;
  return c;
}

void Importer::add_inputs(::onnx::GraphProto& graph) {
  for (const auto& [name, value] : options_.static_inputs) {
    bool found = false;
    for (const ::onnx::ValueInfoProto& in : graph.input())
      found = found || static_input(in.name()) == &value;
    if (!found)
      throw Error(
          fmt::format("a value is given for input '{}', which the model does not have", name));
  }
  for (int i = 0; i < graph.initializer_size(); ++i) {
    const ::onnx::TensorProto& t = graph.initializer(i);
    OnnxValue v;
    v.data = decode_data(t, fmt::format("initializer '{}'", t.name()));
    // Integer initializers hold indices and shapes: program data, not parameters.
    v.is_static = v.data.is_integer();
    if (!v.is_static) {
      v.weight_name = t.name();
      ::onnx::TensorProto& data = *graph.mutable_initializer(i);
      // Swapped with empty ones: clear() would keep the capacity.
      std::string().swap(*data.mutable_raw_data());
      data.clear_raw_data();
      google::protobuf::RepeatedField<float>().Swap(data.mutable_float_data());
      google::protobuf::RepeatedField<double>().Swap(data.mutable_double_data());
    }
    define(t.name(), std::move(v));
  }
  // Named dims: given, or taken from the value given for an input that names them.
  std::map<std::string, int64_t, std::less<>> dim_sizes = options_.dim_values;
  std::map<std::string, std::string, std::less<>> dim_source;
  for (const auto& [param, size] : dim_sizes) dim_source[param] = "in dim_values (tilesat --dim)";
  std::set<std::string, std::less<>> dims_named;
  for (const ::onnx::ValueInfoProto& in : graph.input()) {
    if (has_value(in.name()) || !in.type().tensor_type().has_shape()) continue;
    const ::onnx::TensorShapeProto& shape = in.type().tensor_type().shape();
    const Tensor* known = static_input(in.name());
    for (int d = 0; d < shape.dim_size(); ++d) {
      if (!shape.dim(d).has_dim_param() || shape.dim(d).dim_param().empty()) continue;
      const std::string& param = shape.dim(d).dim_param();
      dims_named.insert(param);
      if (known == nullptr || d >= known->shape().rank()) continue;
      int64_t got = known->shape().dims()[static_cast<size_t>(d)];
      auto [it, added] = dim_sizes.emplace(param, got);
      if (added) {
        dim_source[param] = fmt::format("in the value given for input '{}'", in.name());
      } else if (it->second != got) {
        throw Error(fmt::format("graph input '{}': dim {} ('{}') is {} in the value given for "
                                "it, but {} {}",
                                in.name(), d, param, got, it->second, dim_source[param]));
      }
    }
  }
  for (const auto& [param, size] : options_.dim_values) {
    if (!dims_named.count(param))
      throw Error(fmt::format("a size is given for dim '{}', which no graph input names", param));
  }
  for (const ::onnx::ValueInfoProto& in : graph.input()) {
    // Before IR version 4 initializers were listed as inputs too.
    if (has_value(in.name())) continue;
    std::string what = fmt::format("graph input '{}'", in.name());
    if (!in.type().has_tensor_type()) throw Error(fmt::format("{}: expected a tensor", what));
    const ::onnx::TypeProto_Tensor& tt = in.type().tensor_type();
    std::optional<DType> dtype = dtype_of(tt.elem_type());
    if (!dtype) {
      throw Error(
          fmt::format("{}: unsupported element type {}", what, elem_type_name(tt.elem_type())));
    }
    if (!tt.has_shape()) throw Error(fmt::format("{}: expected a shape, got none", what));
    // Integer and bool inputs (shapes, axes, indices) with a given value become data; float
    // ones stay arguments whose value is also known where an op needs it (Resize's scales).
    const Tensor* known = static_input(in.name());
    std::optional<HostTensor> known_data;
    if (known != nullptr) {
      const std::vector<int64_t>& got = known->shape().dims();
      bool fits = static_cast<int>(got.size()) == tt.shape().dim_size();
      for (int d = 0; fits && d < tt.shape().dim_size(); ++d)
        fits = !tt.shape().dim(d).has_dim_value() || tt.shape().dim(d).dim_value() == got[d];
      if (!fits)
        throw Error(fmt::format("{}: the value given for it has shape {}, which the model's does "
                                "not allow",
                                what, known->shape().str()));
      known_data = HostTensor{tt.elem_type(), got,
                              std::vector<double>(known->data().begin(), known->data().end())};
    }
    if (known_data && *dtype == DType::I32) {
      OnnxValue v;
      v.data = std::move(known_data);
      v.is_static = true;
      define(in.name(), std::move(v));
      continue;
    }
    std::vector<int64_t> dims;
    for (int d = 0; d < tt.shape().dim_size(); ++d) {
      const ::onnx::TensorShapeProto_Dimension& dim = tt.shape().dim(d);
      if (dim.has_dim_value()) {
        dims.push_back(dim.dim_value());
        continue;
      }
      if (!dim.has_dim_param() || dim.dim_param().empty()) {
        throw Error(fmt::format("{}: dim {} has neither a size nor a name; export the model with "
                                "a static or a named dim",
                                what, d));
      }
      auto it = dim_sizes.find(dim.dim_param());
      if (it == dim_sizes.end()) {
        throw Error(fmt::format("{}: dim {} is symbolic ('{}'); give its size (tilesat --dim "
                                "{}=SIZE, or ImportOptions::dim_values)",
                                what, d, dim.dim_param(), dim.dim_param()));
      }
      dims.push_back(it->second);
    }
    if (!Shape::checked_numel(dims)) {
      throw Error(fmt::format("{}: expected dims in [0, 2^40] with at most 2^40 elements, got [{}]",
                              what, fmt::join(dims, ", ")));
    }
    OnnxValue v;
    v.node = model_.graph.add_argument(unique_arg_name(in.name()),
                                       TensorType{*dtype, Shape(dims), {}}, ArgRole::Input);
    v.data = std::move(known_data);
    define(in.name(), std::move(v));
  }
}

void Importer::convert_node(const ::onnx::NodeProto& node, size_t index) {
  if (std::find(absorbed_.begin(), absorbed_.end(), &node) != absorbed_.end()) return;
  NodeContext ctx(*this, node);
  try {
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      if (ctx.has_input(i) && !has_value(node.input(static_cast<int>(i)))) {
        ctx.fail(fmt::format("input {} ('{}') is not defined before this node", i,
                             node.input(static_cast<int>(i))));
      }
    }
    converter_of(node)(ctx);
    for (size_t i = 0; i < ctx.num_outputs(); ++i) {
      if (ctx.wants_output(i) && !has_value(node.output(static_cast<int>(i)))) {
        ctx.fail(
            fmt::format("output {} ('{}') is not supported", i, node.output(static_cast<int>(i))));
      }
    }
  } catch (const Error& e) {
    throw Error(fmt::format("node {} '{}' ({}): {}", index, node.name(), node.op_type(),
                            e.diagnostic().message));
  }
}

void Importer::convert(const ::onnx::NodeProto& node, size_t index) {
  size_t absorbed_before = absorbed_.size();
  try {
    convert_node(node, index);
  } catch (const Error& e) {
    fail_in(name_, e.diagnostic().message);
  }
  // What the converter decoded from f32 data (a weight it folded) is not kept as doubles.
  auto drop_decoded = [&](const ::onnx::NodeProto& n) {
    for (const std::string& in : n.input())
      if (has_value(in)) value(in).data.drop_decoded();
  };
  drop_decoded(node);
  for (size_t k = absorbed_before; k < absorbed_.size(); ++k) drop_decoded(*absorbed_[k]);
}

std::vector<std::string> Importer::convert_branch(const ::onnx::GraphProto& graph,
                                                  std::string_view what) {
  try {
    std::vector<std::string> missing = unsupported_ops(graph);
    if (!missing.empty())
      throw Error(fmt::format("unsupported ONNX ops: {}", fmt::join(missing, ", ")));
    for (const ::onnx::TensorProto& t : graph.initializer()) {
      OnnxValue v;
      v.data = decode_data(t, fmt::format("initializer '{}'", t.name()));
      v.is_static = v.data.is_integer();
      if (!v.is_static) v.weight_name = t.name();
      define(t.name(), std::move(v));
    }
    for (int i = 0; i < graph.node_size(); ++i) convert_node(graph.node(i), static_cast<size_t>(i));
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", what, e.diagnostic().message));
  }
  std::vector<std::string> outs;
  for (const ::onnx::ValueInfoProto& o : graph.output()) outs.push_back(o.name());
  return outs;
}

ImportedModel Importer::run(::onnx::GraphProto& graph, int64_t opset, std::string producer) {
  opset_ = opset;
  model_.opset = opset;
  model_.producer = std::move(producer);
  check_supported(graph, name_);
  count_uses(graph);
  for (const auto* infos : {&graph.input(), &graph.value_info(), &graph.output()})
    for (const ::onnx::ValueInfoProto& v : *infos)
      if (v.type().has_tensor_type() && v.type().tensor_type().elem_type() != 0)
        declared_types_[v.name()] = v.type().tensor_type().elem_type();
  try {
    add_inputs(graph);
  } catch (const Error& e) {
    fail_in(name_, e.diagnostic().message);
  }
  for (int i = 0; i < graph.node_size(); ++i) convert(graph.node(i), static_cast<size_t>(i));
  for (const ::onnx::ValueInfoProto& out : graph.output()) {
    if (!has_value(out.name())) {
      fail_in(name_, fmt::format("graph output '{}' is not produced by any node", out.name()));
    }
    try {
      builder_.output(materialize(out.name()), out.name());
    } catch (const Error& e) {
      fail_in(name_, fmt::format("graph output '{}': {}", out.name(), e.diagnostic().message));
    }
  }
  if (model_.graph.results().empty()) {
    fail_in(name_, "expected at least one graph output, got none");
  }
  try {
    model_.graph.verify_or_throw();
  } catch (const Error& e) {
    fail_in(name_, e.what());
  }
  return std::move(model_);
}

std::vector<std::string> unsupported_ops(const ::onnx::GraphProto& graph) {
  // An If's branches are checked when the one taken is converted.
  std::map<std::string, int> unsupported;
  for (const ::onnx::NodeProto& n : graph.node()) {
    if (converter_of(n) != nullptr) continue;
    bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
    ++unsupported[default_domain ? n.op_type() : fmt::format("{}.{}", n.domain(), n.op_type())];
  }
  std::vector<std::string> items;
  for (const auto& [op, count] : unsupported) items.push_back(fmt::format("{} ({})", op, count));
  return items;
}

void check_supported(const ::onnx::GraphProto& graph, const std::string& name) {
  // Every unsupported op type, with its count, in one message.
  std::vector<std::string> items = unsupported_ops(graph);
  if (items.empty()) return;
  std::string message = fmt::format("unsupported ONNX ops: {}", fmt::join(items, ", "));
  std::vector<std::string> value_dependent = value_dependent_ops(graph);
  if (!value_dependent.empty())
    message += fmt::format(
        "; the output shapes of {} depend on input values, which a static device program "
        "cannot hold: import the part before them by selecting its outputs (`--outputs "
        "NAME,...`, ImportOptions::outputs), such as a detector's scores and boxes",
        fmt::join(value_dependent, ", "));
  fail_in(name, message);
}

std::vector<Tensor> arguments(const ImportedModel& m, uint64_t seed, RandomInit init) {
  std::vector<Tensor> args = random_arguments(m.graph, seed, init);
  for (size_t i = 0; i < args.size(); ++i) {
    const Node& a = m.graph.node(m.graph.arguments()[i]);
    auto it = m.weights.find(a.name);
    if (a.role == ArgRole::Weight && it != m.weights.end()) args[i] = it->second;
  }
  return args;
}

} // namespace tilesat::onnx
