// control_flow.cpp: If whose condition is known at import time (a shape test an exporter left
// in, or a flag the model is specialized to): the branch it takes is converted in place, its
// outputs become the If's, and the other branch is never read. A runtime condition is an error
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

} // namespace tilesat::onnx
