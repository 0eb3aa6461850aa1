// control_flow.cpp: If whose condition is known at import time (a shape test an exporter left
// in, or a flag the model is specialized to): the branch it takes is converted in place, its
// outputs become the If's, and the other branch is never read. Loop whose trip count and
// condition are known at import: unrolled, the body converted once per iteration with the
// carried values of the one before, its scan outputs stacked. Scan: unrolled the same way over
// its scan inputs' static length, each step reading their slices (either direction). A runtime
// condition is an error naming it: a plan is one static program.
#include "converters.h"

#include <algorithm>
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

namespace {

constexpr int64_t kMaxIterations = 4096;

// `v` with an extent-1 dim inserted at `axis`.
Value with_unit_dim(Builder& b, Value v, int64_t axis) {
  std::vector<int64_t> dims = b.type(v).shape.dims();
  dims.insert(dims.begin() + axis, 1);
  return b.reshape(v, dims);
}

} // namespace

void convert_loop(NodeContext& c) {
  Importer& im = c.importer();
  Builder& b = c.builder();
  std::optional<int64_t> trips;
  if (c.has_input(0)) {
    trips = static_int(c, 0, "M");
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
    for (size_t k = 0; k < scans; ++k)
      stacked[k].push_back(with_unit_dim(b, im.materialize(outs[1 + carried + k]), 0));
  }
  for (size_t i = 0; i < carried; ++i)
    if (c.wants_output(i)) im.define(c.node().output(static_cast<int>(i)), state[i]);
  for (size_t k = 0; k < scans && carried + k < c.num_outputs(); ++k) {
    if (!c.wants_output(carried + k)) continue;
    if (stacked[k].empty()) c.fail("expected at least one iteration to stack the scan outputs");
    c.set_output(carried + k, stacked[k].size() == 1 ? stacked[k][0] : b.concat(stacked[k], 0));
  }
}

void convert_scan(NodeContext& c) {
  Importer& im = c.importer();
  Builder& b = c.builder();
  const ::onnx::AttributeProto* body = c.attr("body");
  if (body == nullptr || !body->has_g()) c.fail("expected a 'body' graph");
  const ::onnx::GraphProto& g = body->g();
  const int64_t m = c.attr_int("num_scan_inputs", -1);
  if (m < 1 || static_cast<size_t>(m) > c.num_inputs())
    c.fail(fmt::format("expected 'num_scan_inputs' from 1 to the {} inputs, got {}", c.num_inputs(),
                       m));
  const size_t scanned = static_cast<size_t>(m), carried = c.num_inputs() - scanned;
  if (static_cast<size_t>(g.input_size()) != carried + scanned ||
      static_cast<size_t>(g.output_size()) < carried)
    c.fail(fmt::format("expected a body with {} inputs ({} carried, {} scanned) and at least {} "
                       "outputs",
                       carried + scanned, carried, scanned, carried));
  const size_t scans = static_cast<size_t>(g.output_size()) - carried;
  // Per scan input and output: its axis (negative from the end) and direction (1: reversed).
  auto per = [&](std::string_view name, size_t n) {
    std::vector<int64_t> v = c.attr_ints(name, std::vector<int64_t>(n, 0));
    if (v.size() != n)
      c.fail(fmt::format("expected '{}' to have {} values, got {}", name, n, v.size()));
    return v;
  };
  std::vector<int64_t> in_axes = per("scan_input_axes", scanned),
                       in_dirs = per("scan_input_directions", scanned),
                       out_axes = per("scan_output_axes", scans),
                       out_dirs = per("scan_output_directions", scans);
  std::vector<Value> inputs;
  int64_t steps = -1;
  for (size_t j = 0; j < scanned; ++j) {
    inputs.push_back(c.operand(carried + j));
    const Shape s = b.type(inputs.back()).shape;
    in_axes[j] = norm_axis(in_axes[j], std::max<int64_t>(s.rank(), 1), "'scan_input_axes'");
    if (steps >= 0 && s[in_axes[j]] != steps)
      c.fail(fmt::format("expected every scan input to have {} steps, input {} has {}", steps,
                         carried + j, s[in_axes[j]]));
    steps = s[in_axes[j]];
  }
  if (steps < 1 || steps > kMaxIterations)
    c.fail(fmt::format("expected from 1 to {} steps when unrolled, got {}", kMaxIterations, steps));
  std::vector<OnnxValue> state;
  for (size_t i = 0; i < carried; ++i) {
    const std::string& in = c.node().input(static_cast<int>(i));
    if (!im.value(in).weight_name.empty()) im.materialize(in);
    state.push_back(im.value(in));
  }
  std::vector<std::vector<Value>> stacked(scans);
  for (int64_t t = 0; t < steps; ++t) {
    for (size_t i = 0; i < carried; ++i) im.define(g.input(static_cast<int>(i)).name(), state[i]);
    for (size_t j = 0; j < scanned; ++j) {
      const Shape s = b.type(inputs[j]).shape;
      const int64_t at = in_dirs[j] != 0 ? steps - 1 - t : t, axis = in_axes[j];
      std::vector<int64_t> begins(static_cast<size_t>(s.rank()), 0), ends = s.dims();
      begins[static_cast<size_t>(axis)] = at;
      ends[static_cast<size_t>(axis)] = at + 1;
      std::vector<int64_t> dims = s.dims();
      dims.erase(dims.begin() + axis);
      OnnxValue step;
      step.node = b.reshape(b.slice(inputs[j], begins, ends), dims).id;
      im.define(g.input(static_cast<int>(carried + j)).name(), std::move(step));
    }
    std::vector<std::string> outs = im.convert_branch(g, fmt::format("body (step {})", t));
    for (const std::string& o : outs)
      if (!im.has_value(o)) c.fail(fmt::format("body output '{}' is not produced in it", o));
    for (size_t i = 0; i < carried; ++i) state[i] = im.value(outs[i]);
    for (size_t k = 0; k < scans; ++k) {
      Value v = im.materialize(outs[carried + k]);
      const int64_t rank = b.type(v).shape.rank() + 1;
      if (t == 0) out_axes[k] = norm_axis(out_axes[k], rank, "'scan_output_axes'");
      stacked[k].push_back(with_unit_dim(b, v, out_axes[k]));
    }
  }
  for (size_t i = 0; i < carried && i < c.num_outputs(); ++i)
    if (c.wants_output(i)) im.define(c.node().output(static_cast<int>(i)), state[i]);
  for (size_t k = 0; k < scans && carried + k < c.num_outputs(); ++k) {
    if (!c.wants_output(carried + k)) continue;
    if (out_dirs[k] != 0) std::reverse(stacked[k].begin(), stacked[k].end());
    c.set_output(carried + k,
                 stacked[k].size() == 1 ? stacked[k][0] : b.concat(stacked[k], out_axes[k]));
  }
}

} // namespace tilesat::onnx
