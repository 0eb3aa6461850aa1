// The seed MLP (seed 000) through tilesat's C++ API: built with the Builder, optimized and
// planned for a Wormhole n150, lowered to a device program, run on the CPU model of the
// device, and compared with the reference interpreter on the same random inputs.
#include <cstdio>
#include <tilesat/cost/device.h>
#include <tilesat/cost/extract.h>
#include <tilesat/cost/plan_io.h>
#include <tilesat/graph/builder.h>
#include <tilesat/graph/interpreter.h>
#include <tilesat/lowering/lower.h>
#include <tilesat/rewrites/rule_sets.h>
#include <tilesat/runtime/compare.h>
#include <tilesat/runtime/run.h>

int main() {
  using namespace tilesat;
  Graph g("simple_mlp");
  Builder b(g);
  Value x = b.input("x", {32, 128});
  Value w1 = b.weight("fc1.weight", {256, 128});
  Value b1 = b.weight("fc1.bias", {256});
  Value w2 = b.weight("fc2.weight", {10, 256});
  Value b2 = b.weight("fc2.bias", {10});
  Value hidden = b.relu(b.add(b.matmul(x, w1, {.transpose_b = true}), b1));
  b.output(b.add(b.matmul(hidden, w2, {.transpose_b = true}), b2));
  g.verify_or_throw();

  // Optimize with every shipped rule set and plan for the device.
  cost::Device device = cost::load_device("wormhole_b0");
  cost::CostModel model(device);
  std::vector<egraph::Rewrite> rules = rewrites::load_rule_sets(rewrites::default_rule_set_names());
  cost::DevicePlanResult planned =
      cost::optimize_for_device(g, rules, egraph::RunnerConfig(), model, cost::ExtractOptions{});
  std::printf("%s", cost::plan_to_text(planned.plan).c_str());

  // Lower to a program and run it; the program's inputs are the graph's arguments by name
  // (here in the same order).
  runtime::Program program = runtime::Program::parse(
      lowering::lower_plan(planned.plan, lowering::DeviceSummary::of(device)), g.name());
  std::vector<Tensor> args = random_arguments(g, /*seed=*/42);
  runtime::Runner runner(program);
  runtime::RunResult got = runner.run(args);

  std::vector<Tensor> reference = evaluate(g, args);
  runtime::Comparison c = runtime::compare(got.outputs[0], reference[0], DType::F32);
  std::printf("%s: %zu ops -> %zu device ops, max_rel_err %.3g (%s)\n", g.name().c_str(),
              g.num_ops(), planned.plan.ops.size(), c.max_rel, c.ok ? "ok" : "FAIL");
  return c.ok ? 0 : 1;
}
