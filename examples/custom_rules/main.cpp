// A user's rule file (my.rules) loaded at run time: Z3 checks each rule, then the rules
// optimize signs.mlir, and the optimized graph computes what the source does.
#include <cstdio>
#include <tilesat/graph/interpreter.h>
#include <tilesat/graph/parser.h>
#include <tilesat/graph/printer.h>
#include <tilesat/rewrites/optimize.h>
#include <tilesat/rewrites/rule_file.h>
#include <tilesat/rewrites/soundness.h>
#include <tilesat/runtime/compare.h>

int main() {
  using namespace tilesat;
  rewrites::RuleFile mine = rewrites::load_rule_file(EXAMPLE_DIR "/my.rules");
  bool sound = true;
  for (const rewrites::RuleCheck& c : rewrites::check_rule_file(mine)) {
    std::printf("%s:%d: %s\n", c.origin.file.c_str(), c.origin.line, c.to_string().c_str());
    sound = sound && c.status == rewrites::Soundness::Proved;
  }

  SourceFile file = parse_file(EXAMPLE_DIR "/signs.mlir");
  const Graph& source = file.modules.at(0).functions.at(0);
  rewrites::OptimizeResult r =
      rewrites::optimize(source, mine.rewrites, rewrites::OptimizeOptions{});
  std::printf("%s", print_graph(r.graph).c_str());

  std::vector<Tensor> args = random_arguments(source, /*seed=*/7);
  std::vector<Tensor> want = evaluate(source, args), got = evaluate(r.graph, args);
  bool same = true;
  for (size_t i = 0; i < want.size(); ++i)
    same = same && runtime::compare(got[i], want[i], DType::F32).ok;
  std::printf("%zu ops -> %zu ops, results %s\n", source.num_ops(), r.graph.num_ops(),
              same ? "equal" : "DIFFER");
  return sound && same && r.graph.num_ops() < source.num_ops() ? 0 : 1;
}
