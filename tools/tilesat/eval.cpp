// eval.cpp: `tilesat eval INPUT` runs one function on the reference interpreter.
//
// Every argument comes from `--input NAME=FILE.npy` or, with `--random-inputs SEED`, is drawn
// at random; drawn values are written next to the results so the run can be repeated with
// `--input`. Each result is written as <its name>.npy (an ONNX model's output names), as `run`
// writes a program's outputs; unnamed results as result0.npy, result1.npy, ...
#include "cli.h"
#include "tilesat/graph/interpreter.h"
#include "tilesat/graph/npy.h"
#include "tilesat/graph/parser.h"

#include <filesystem>
#include <fmt/format.h>
#include <map>

namespace tilesat::cli {

int run_eval(const Options& o) {
  std::map<std::string, Tensor, std::less<>> weights; // an ONNX model's initializers
  // An ONNX model is specialized to the inputs given where it needs their values at compile
  // time (shapes, axes, indices, Resize's scales), as its initializers would be.
  std::map<std::string, Tensor, std::less<>> specialized;
  if (o.input.ends_with(".onnx")) {
    for (const std::string& spec : o.inputs) {
      auto [name, file] = input_spec(spec);
      specialized.emplace(name, read_npy(file));
    }
  }
  SourceFile file = load_input(o, &weights, specialized);
  const Graph& g = select_function(file, o.function);
  std::map<std::string, std::string> files = input_files(o, g, specialized);
  // Only arguments without a file or a stored weight are drawn.
  std::vector<bool> given(g.arguments().size(), false);
  for (size_t i = 0; i < given.size(); ++i) {
    const std::string& name = g.node(g.arguments()[i]).name;
    given[i] = files.count(name) != 0 || weights.count(name) != 0;
  }
  std::vector<Tensor> drawn;
  if (o.random_seed)
    drawn = random_arguments(g, *o.random_seed, random_init(o, RandomInit::Uniform), given);
  std::vector<Tensor> args;
  std::vector<std::string> drawn_names;
  for (size_t i = 0; i < g.arguments().size(); ++i) {
    const Node& a = g.node(g.arguments()[i]);
    auto it = files.find(a.name);
    if (it != files.end()) {
      // An ONNX model's inputs were read once already, to specialize it.
      auto given = specialized.find(a.name);
      args.push_back(given != specialized.end() ? given->second : read_argument(a, it->second));
    } else if (auto w = weights.find(a.name); w != weights.end()) {
      args.push_back(std::move(w->second));
    } else if (o.random_seed) {
      args.push_back(drawn[i]);
      drawn_names.push_back(a.name);
    } else {
      throw Error(fmt::format("argument '{}' of @{} has no value: give --input {}=FILE.npy or "
                              "--random-inputs SEED",
                              a.name, g.name(), a.name));
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(o.output_dir, ec);
  if (ec) throw Error(fmt::format("cannot create '{}': {}", o.output_dir, ec.message()));
  std::filesystem::path dir(o.output_dir);
  std::vector<Tensor> results = evaluate(g, args);
  std::vector<std::string> names;
  for (const GraphResult& r : g.results()) names.push_back(r.name);
  std::vector<std::string> stems = result_stems(names);
  for (size_t i = 0; i < results.size(); ++i)
    write_npy((dir / (stems[i] + ".npy")).string(), results[i]);
  for (size_t i = 0, k = 0; i < g.arguments().size(); ++i) {
    const Node& a = g.node(g.arguments()[i]);
    if (k < drawn_names.size() && drawn_names[k] == a.name) {
      write_npy((dir / (a.name + ".npy")).string(), args[i]);
      ++k;
    }
  }
  return 0;
}

} // namespace tilesat::cli
