// run.cpp: `tilesat run PROGRAM` verifies a device program and runs it on the CPU model of
// its device.
//
// Inputs come from `--input NAME=FILE.npy` or, with `--random-inputs SEED`, are drawn as
// `tilesat eval` draws arguments (drawn values are written to the output dir so the run can
// be repeated); inputs with values stored in the program (a model's weights) need neither;
// results go to the output dir as <output name>.npy (file_stem), the profile to `--profile`.
#include "cli.h"
#include "tilesat/graph/interpreter.h"
#include "tilesat/graph/npy.h"
#include "tilesat/program/int64s.h"
#include "tilesat/runtime/mesh_run.h"

#include <filesystem>
#include <fmt/format.h>
#include <map>

namespace tilesat::cli {
namespace {

// The program's inputs (FlatBuffers leaves an empty list out: a program with no inputs).
std::vector<const fb::NamedTensor*> inputs_of(const fb::Program& p) {
  if (p.inputs() == nullptr) return {};
  return {p.inputs()->begin(), p.inputs()->end()};
}

std::map<std::string, std::string> input_files(const Options& o, const fb::Program& p) {
  std::map<std::string, std::string> files;
  std::string names;
  for (const fb::NamedTensor* in : inputs_of(p))
    names += (names.empty() ? "" : ", ") + in->name()->str();
  for (const std::string& spec : o.inputs) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      throw Error(fmt::format("--input '{}': expected NAME=FILE.npy", spec));
    std::string name = spec.substr(0, eq);
    if (name.starts_with('%')) name.erase(0, 1);
    // The model's spelling of a name (onnx::Conv_538) names the input it was imported as
    // (onnx__Conv_538): the same mapping as file names.
    bool known = false;
    for (const fb::NamedTensor* in : inputs_of(p)) known = known || in->name()->str() == name;
    if (!known)
      for (const fb::NamedTensor* in : inputs_of(p))
        if (file_stem(in->name()->str()) == file_stem(name)) {
          name = in->name()->str();
          known = true;
          break;
        }
    if (!known)
      throw Error(fmt::format("--input '{}': the program has no input '{}' (its inputs: {})", spec,
                              name, names));
    if (!files.emplace(name, spec.substr(eq + 1)).second)
      throw Error(fmt::format("--input: input '{}' is given twice", name));
  }
  return files;
}

// The outputs' file name stems (result_stems of their names).
std::vector<std::string> output_stems(const fb::Program& p) {
  std::vector<std::string> names;
  for (const auto* out : *p.outputs()) names.push_back(out->name()->str());
  return result_stems(names);
}

} // namespace

int run_run(const Options& o) {
  // The weights are read once every input is known to have a value (a large model's weights
  // take long to read).
  runtime::Program program = runtime::Program::load(o.input, runtime::Program::Weights::Later);
  const fb::Program& p = program.fb();
  std::map<std::string, std::string> files = input_files(o, p);
  if (!o.random_seed) {
    uint32_t i = 0;
    for (const fb::NamedTensor* in : inputs_of(p)) {
      const std::string name = in->name()->str();
      if (!files.count(name) && !program.stores_value(i))
        throw Error(fmt::format("input '{}' of {} has no value: give --input {}=FILE.npy or "
                                "--random-inputs SEED",
                                name, o.input, name));
      ++i;
    }
  }
  program.read_weights(o.input);
  // Drawn inputs: the arguments of a graph with the program's inputs, as `eval` draws them.
  Graph shell("inputs");
  for (const fb::NamedTensor* in : inputs_of(p)) {
    const fb::Tensor& t = *p.tensors()->Get(in->tensor());
    std::vector<int64_t> dims = program::int64s(t.shape());
    shell.add_argument(in->name()->str(),
                       TensorType{runtime::graph_dtype(t.dtype()), Shape(std::move(dims)), {}});
  }
  // Inputs from files and stored values first; only the others are drawn.
  const size_t n = shell.arguments().size();
  std::vector<Tensor> inputs(n);
  std::vector<bool> given(n, false);
  for (size_t i = 0; i < n; ++i) {
    const Node& a = shell.node(shell.arguments()[i]);
    if (auto it = files.find(a.name); it != files.end()) {
      Tensor t = read_npy(it->second, npy_bytes_bound(a.type));
      if (t.shape() != a.type.shape)
        throw Error(fmt::format("--input {}={}: expected shape {}, got {}", a.name, it->second,
                                a.type.shape.str(), t.shape().str()));
      inputs[i] = std::move(t);
      given[i] = true;
    } else if (std::optional<std::vector<float>> stored =
                   program.stored_value(static_cast<uint32_t>(i))) {
      // A value stored with the program (a model's weight).
      inputs[i] = Tensor(a.type, std::move(*stored));
      given[i] = true;
    }
  }
  program.release_weights();
  std::vector<Tensor> drawn;
  if (o.random_seed) drawn = random_arguments(shell, *o.random_seed, RandomInit::Uniform, given);
  std::vector<size_t> drawn_index;
  for (size_t i = 0; i < n; ++i) {
    if (given[i]) continue;
    inputs[i] = std::move(drawn[i]); // every input has a value or is drawn (checked above)
    drawn_index.push_back(i);
  }
  // The output directory, and the drawn inputs in it, are written first: the runner takes the
  // inputs (freeing each once on the device).
  std::filesystem::path dir(o.output_dir);
  if (!o.output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.output_dir, ec);
    if (ec) throw Error(fmt::format("cannot create '{}': {}", o.output_dir, ec.message()));
    for (size_t i : drawn_index)
      write_npy((dir / (file_stem(shell.node(shell.arguments()[i]).name) + ".npy")).string(),
                inputs[i]);
  }
  runtime::MeshRunner runner(program, o.threads.value_or(0));
  runtime::MeshRunResult result = runner.run_consuming(std::move(inputs));
  int64_t chips = int64_t{p.mesh_rows()} * p.mesh_cols();
  std::vector<std::string> stems = output_stems(p);
  if (!o.output_dir.empty()) {
    for (size_t i = 0; i < result.outputs.size(); ++i)
      write_npy((dir / (stems[i] + ".npy")).string(), result.outputs[i]);
  }
  const runtime::Profile& prof = result.chips[0];
  // One chip's profile as before; a mesh's with one profile per chip.
  std::string profile_text =
      chips > 1 ? runtime::mesh_profile_json(program, result.chips) : runtime::profile_json(prof);
  std::string summary = fmt::format(
      "ran {} ({} ops on {}{}) in {:.1f} us of host time, {:.2f} us "
      "predicted on the device per inference{}, L1 high water {} of {} bytes per "
      "core\n",
      o.input, prof.ops.size(), p.device()->name()->str(),
      chips > 1 ? fmt::format(", each of {}x{} chips", p.mesh_rows(), p.mesh_cols()) : "",
      prof.host_total_us, prof.device_total_us,
      prof.const_eval_ran
          ? fmt::format(" (+ {:.2f} us of one-time const-eval at load)", prof.one_time_device_us)
          : "",
      prof.l1_high_water, prof.l1_bytes_per_core);
  for (size_t i = 0; i < result.outputs.size(); ++i) {
    summary +=
        fmt::format("  {}: {}{}\n", p.outputs()->Get(static_cast<uint32_t>(i))->name()->str(),
                    result.outputs[i].type().str(),
                    o.output_dir.empty() ? "" : fmt::format(" -> {}.npy", stems[i]));
  }
  if (o.profile_file == "-") {
    fmt::print("{}", profile_text);
  } else {
    fmt::print("{}", summary);
    if (!o.profile_file.empty()) write_text(o.profile_file, profile_text);
  }
  return 0;
}

} // namespace tilesat::cli
