// control_flow.cpp: If whose condition is known at import time (a shape test an exporter left
// in, or a flag the model is specialized to): the branch it takes is converted in place, its
// outputs become the If's, and the other branch is never read. Loop whose trip count and
// condition are known at import: unrolled, the body converted once per iteration with the
// carried values of the one before, its scan outputs stacked. A runtime condition is an error
// naming it: a plan is one static program.
#include "converters.h"

#include <fmt/format.h>

namespace tilesat::onnx {

void convert_if(NodeContext& c) {
  const HostTensor& cond = c.input_data(0, "cond");
  if (cond.numel() != 1)
    c.fail(fmt::format("expected a one-element 'cond', got {} elements", cond.numel()));
  const bool taken = cond.values[0] != 0;
  const char* name = taken ? "then_branch" : "else_branch";
  const ::onnx::AttributeProto* branch = c.attr(name);
  if (branch == nullptr || !branch->has_g()) c.fail(fmt::format("expected a '{}' graph", name));
  std::vector<std::string> outs = c.importer().convert_branch(branch->g(), name);
  if (outs.size() != c.num_outputs())
    c.fail(fmt::format("expected '{}' to have {} outputs (the If's), got {}", name, c.num_outputs(),
                       outs.size()));
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!c.wants_output(i)) continue;
    if (!c.importer().has_value(outs[i]))
      c.fail(fmt::format("'{}' output '{}' is not produced in it", name, outs[i]));
    c.importer().define(c.node().output(static_cast<int>(i)), c.importer().value(outs[i]));
  }
}

void convert_loop(NodeContext& c) {
  constexpr int64_t kMaxIterations = 4096;
  Importer& im = c.importer();
  Builder& b = c.builder();
  std::optional<int64_t> trips;
  if (c.has_input(0)) {
    const HostTensor& m = c.input_data(0, "M");
    if (m.numel() != 1) c.fail(fmt::format("expected a one-element 'M', got {}", m.numel()));
    trips = m.ints()[0];
  }
  bool cond = !c.has_input(1) || c.input_data(1, "cond").values.at(0) != 0;
  const ::onnx::AttributeProto* body = c.attr("body");
  if (body == nullptr || !body->has_g()) c.fail("expected a 'body' graph");
  const ::onnx::GraphProto& g = body->g();
  if (c.num_inputs() < 2) c.fail("expected inputs M and cond (each may be empty)");
  const size_t carried = c.num_inputs() - 2;
  if (static_cast<size_t>(g.input_size()) != carried + 2 || g.output_size() < 1 ||
      static_cast<size_t>(g.output_size()) < carried + 1)
    c.fail(fmt::format("expected a body with {} inputs (iteration, condition, {} carried) and at "
                       "least {} outputs",
                       carried + 2, carried, carried + 1));
  const size_t scans = static_cast<size_t>(g.output_size()) - 1 - carried;
  if (c.num_outputs() > carried + scans)
    c.fail(fmt::format("expected at most {} outputs, got {}", carried + scans, c.num_outputs()));
  std::vector<OnnxValue> state;
  for (size_t i = 0; i < carried; ++i) {
    const std::string& in = c.node().input(static_cast<int>(i + 2));
    if (!im.value(in).weight_name.empty()) im.materialize(in);
    state.push_back(im.value(in));
  }
  std::vector<std::vector<Value>> stacked(scans);
  int64_t iteration = 0;
  for (; cond && (!trips || iteration < *trips); ++iteration) {
    if (iteration == kMaxIterations)
      c.fail(fmt::format("expected at most {} iterations when unrolled", kMaxIterations));
    OnnxValue iter, cond_in;
    iter.data = host(::onnx::TensorProto::INT64, {}, {static_cast<double>(iteration)});
    iter.is_static = true;
    cond_in.data = host(::onnx::TensorProto::BOOL, {}, {1.0});
    cond_in.is_static = true;
    im.define(g.input(0).name(), iter);
    im.define(g.input(1).name(), cond_in);
    for (size_t i = 0; i < carried; ++i)
      im.define(g.input(static_cast<int>(i + 2)).name(), state[i]);
    std::vector<std::string> outs =
        im.convert_branch(g, fmt::format("body (iteration {})", iteration));
    for (const std::string& o : outs)
      if (!im.has_value(o)) c.fail(fmt::format("body output '{}' is not produced in it", o));
    const OnnxValue& next = im.value(outs[0]);
    if (!next.data)
      c.fail(fmt::format("expected the body's condition to be known at import time (iteration "
                         "{}), got a runtime value",
                         iteration));
    cond = next.data->values.at(0) != 0;
    for (size_t i = 0; i < carried; ++i) state[i] = im.value(outs[i + 1]);
    for (size_t k = 0; k < scans; ++k) {
      Value v = im.materialize(outs[1 + carried + k]);
      std::vector<int64_t> dims = b.type(v).shape.dims();
      dims.insert(dims.begin(), 1);
      stacked[k].push_back(b.reshape(v, dims));
    }
  }
  for (size_t i = 0; i < carried; ++i)
    if (c.wants_output(i)) im.define(c.node().output(static_cast<int>(i)), state[i]);
  for (size_t k = 0; k < scans && carried + k < c.num_outputs(); ++k) {
    if (!c.wants_output(carried + k)) continue;
    if (stacked[k].empty()) c.fail("expected at least one iteration to stack the scan outputs");
    c.set_output(carried + k, stacked[k].size() == 1 ? stacked[k][0] : b.concat(stacked[k], 0));
  }
}

} // namespace tilesat::onnx
