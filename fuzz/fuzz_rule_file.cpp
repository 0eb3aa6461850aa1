// fuzz_rule_file.cpp: arbitrary bytes as a rule file. A tilesat::Error (with its file:line:col)
// is a correct answer; a crash, a hang or a sanitizer report is a bug. Rules that load are
// also run once on a small graph, so a rule the loader accepts cannot crash the engine.
#include "tilesat/graph/builder.h"
#include "tilesat/rewrites/optimize.h"
#include "tilesat/rewrites/rule_file.h"

#include <chrono>
#include <cstdint>
#include <string_view>

namespace {

const tilesat::Graph& probe_graph() {
  static const tilesat::Graph g = [] {
    tilesat::Graph graph("probe");
    tilesat::Builder b(graph);
    auto x = b.input("x", {32, 64});
    auto w = b.weight("w", {64, 64});
    auto bias = b.weight("bias", {64});
    b.output(b.relu(b.add(b.matmul(x, b.transpose(w, 0, 1)), bias)));
    return graph;
  }();
  return g;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  tilesat::rewrites::RuleFile rules;
  try {
    rules = tilesat::rewrites::parse_rule_file(text, "fuzz.rules");
  } catch (const tilesat::Error&) {
    return 0;
  }
  tilesat::rewrites::OptimizeOptions options;
  options.runner.with_iter_limit(3).with_node_limit(2000).with_time_limit(
      std::chrono::duration<double>(1.0));
  try {
    tilesat::rewrites::optimize(probe_graph(), rules.rewrites, options);
  } catch (const tilesat::Error&) {
    // A rule may still be refused when applied (e.g. an applier's inputs); that is reported.
  }
  return 0;
}
