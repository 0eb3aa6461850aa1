// The seed MLP (seed 000) built through tilesat's C++ builder, verified, and evaluated with the
// reference interpreter on random inputs.
#include <cstdio>
#include <tilesat/graph/builder.h>
#include <tilesat/graph/interpreter.h>

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

  std::vector<Tensor> args = random_arguments(g, /*seed=*/42);
  std::vector<Tensor> out = evaluate(g, args);
  std::printf("%s: %zu ops, result %s\n", g.name().c_str(), g.num_ops(),
              out[0].type().str().c_str());
  std::printf("row 0:");
  for (int j = 0; j < 10; ++j) std::printf(" %.4f", out[0].at({0, j}));
  std::printf("\n");
  return out[0].shape() == Shape{32, 10} ? 0 : 1;
}
