// The `tilesat` command line: its options, its verbs, and the table that declares every flag.
//
// Each verb is one file (print.cpp, eval.cpp, dot.cpp) with one `run_<verb>` function that
// makes one library call; verbs.cpp lists the verbs and flags.cpp declares every flag, with
// its default and help, in one table. Adding a verb: a row in kVerbs, its flags in kFlags,
// and its file.
#pragma once

#include "tilesat/cost/extract.h"
#include "tilesat/cost/mesh_partition.h"
#include "tilesat/cost/op_cost.h"
#include "tilesat/cost/placement.h"
#include "tilesat/egraph/rewrite.h"
#include "tilesat/egraph/runner.h"
#include "tilesat/graph/interpreter.h"
#include "tilesat/graph/module.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tilesat::cli {

/// Every option of every verb; defaults are the member initializers.
struct Options {
  std::string input;                   // INPUT: a text file, "-" for stdin
  std::string output = "-";            // print: where the text goes
  std::vector<std::string> outputs;    // every verb reading INPUT: ONNX values to import as results
  std::vector<std::string> dims;       // every verb reading INPUT: NAME=SIZE of ONNX symbolic dims
  std::string function;                // eval, dot: function name; empty = the only one or @main
  std::vector<std::string> inputs;     // eval, run, check: NAME=FILE.npy
  std::optional<uint64_t> random_seed; // eval: draw missing arguments from this seed
  std::string output_dir;              // eval: where results (and drawn inputs) go
  std::string random_init;             // eval, check: "uniform" or "fan-in"; empty = per verb
  std::string emit = "ttir";           // opt: output form
  std::vector<std::string> rule_sets;  // opt: shipped rule sets; empty = all of them
  std::vector<std::string> rule_files; // opt: user rule files
  bool stats = false;                  // opt: print the runner's report
  bool timing = false;                 // opt: print each phase's wall time
  bool explain = false;                // opt: print why each result is what it is
  std::optional<size_t> iter_limit;    // opt: runner limits (unset: the runner's defaults)
  std::optional<size_t> node_limit;
  std::optional<double> time_limit;
  std::vector<std::string> rule_paths;  // verify-rules: rule files; empty = every shipped set
  std::string device;                   // opt: device name or descriptor file (plans when set)
  std::string report_file;              // opt: where the JSON plan report goes
  std::string math_fidelity = "HiFi4";  // opt: matmul fidelity for the cost model
  bool no_const_eval = false;           // opt, check: weights work in every inference
  bool trace = true;                    // opt, check: ops replayed from a trace
  std::vector<std::string> weight_args; // opt, check: globs of arguments that are weights
  std::string compute_dtype;            // opt, check: bf16 or bfp8_b (empty: as written)
  // opt: seconds of exact (Z3) extraction; devices: names or files to describe.
  std::optional<double> extract_time_limit;
  std::vector<std::string> device_names;
  std::string profile_file;                    // run: where the JSON profile goes
  std::optional<unsigned> threads;             // run: host threads for the device's cores
  std::string program_file;                    // opt --emit program: where the program goes
  uint64_t inline_weights_limit = 64ull << 20; // opt -o: stored weights inside the program
};

/// One verb: its name, a one-line summary, and what runs it (returns the exit code).
struct Verb {
  std::string_view name;
  std::string_view summary;
  int (*run)(const Options&);
};

/// One flag (or positional) of one verb, declared on the verb's CLI11 subcommand.
struct Flag {
  std::string_view verb;
  void (*declare)(CLI::App& verb_app, Options& options);
};

std::span<const Verb> verbs();
std::span<const Flag> flags();

int run_print(const Options& o);
int run_eval(const Options& o);
int run_dot(const Options& o);
int run_opt(const Options& o);
int run_verify_rules(const Options& o);
int run_devices(const Options& o);
int run_run(const Options& o);
int run_check(const Options& o);

/// What the rule files `--rule-set` and `--rules` select (every shipped set when neither is
/// given) hold: their rewrites, and their `layout` lines (the placements the cost model may
/// choose). Each file is read once.
struct SelectedRules {
  std::vector<egraph::Rewrite> rewrites;
  std::shared_ptr<const cost::LayoutChoice> layouts;
  /// The `mesh` lines: how ops split over a mesh device's chips.
  std::shared_ptr<const cost::MeshChoice> mesh;
};
SelectedRules selected_rules(const Options& o);
/// How `--random-init` scales drawn values; `fallback` when the flag is not given.
RandomInit random_init(const Options& o, RandomInit fallback);
/// The cost model's options from the flags (--math-fidelity, --no-const-eval, --trace) and
/// the rule files' layout lines.
cost::CostOptions cost_options(const Options& o, const SelectedRules& rules);
/// Extraction's options from the flags (--extract-time-limit); throws on a negative limit.
cost::ExtractOptions extract_options(const Options& o);
/// The device to plan `file` for: --device (default wormhole_b0) seen as the mesh the file's
/// modules declare (`ttcore.meshes`, cost::device_on_mesh). Without --device, a declared mesh
/// of several chips picks the shipped device that has it (1x2: n300, 2x4 or 1x8: t3k, ...).
cost::Device device_for_input(const Options& o, const SourceFile& file);
/// Whether `g` is a per-chip (SPMD) graph: one with multi-chip ops (mesh_shard, collectives).
bool is_per_chip_graph(const Graph& g);
/// What `opt` and `check` plan for `g` on the model's device: a per-chip graph, or any graph
/// on one chip, as written (optimize_for_device); any other graph on a mesh device partitioned
/// over its chips (optimize_for_mesh, with the rules' mesh lines).
/// With `times`, the phases' wall time is added to it (saturate, extract and its parts, the
/// L1 address check).
cost::DevicePlanResult plan_for_device(const Options& o, const Graph& g, const SelectedRules& rules,
                                       const cost::CostModel& model,
                                       class PhaseTimes* times = nullptr);
/// Default e-graph node limit: 10000, or 4 nodes per node of the graph when that is more.
inline constexpr size_t kDefaultNodeLimit = 10'000;
/// The saturation limits of `--iter-limit`, `--node-limit` and `--time-limit` for graph `g`.
egraph::RunnerConfig runner_config(const Options& o, const Graph& g);

/// Reads INPUT (`o.input`): an ONNX model when it ends in ".onnx" (one function, @main; its
/// weights' values go to `weights` when given; `--outputs` cuts it to what computes those
/// values), else TTIR or StableHLO text ("-" is standard input).
SourceFile load_input(const Options& o,
                      std::map<std::string, Tensor, std::less<>>* weights = nullptr,
                      const std::map<std::string, Tensor, std::less<>>& static_inputs = {});

/// A value's name as a file name stem: characters other than letters, digits and `_.$-`
/// become `_` (an ONNX name such as `onnx::Conv_538` gives `onnx__Conv_538`, as the importer
/// names the argument). `run` writes `<stem>.npy` per output and matches `--input NAME=` by it.
std::string file_stem(std::string_view name);
/// The file stems `run` and `eval` write results under, one per result name: the name's
/// file_stem (an unnamed result is `result<i>`), and the index appended (`y.1`) to names whose
/// stems coincide.
std::vector<std::string> result_stems(const std::vector<std::string>& names);
/// `--weight-args`: marks the arguments of every function in `file` whose names match a glob
/// as weights (ArgRole::Weight); a '!GLOB' unmarks. A glob matching no argument is an error.
void mark_weight_args(SourceFile& file, const std::vector<std::string>& globs);
/// `--weight-args` and `--compute-dtype`: how the functions of `file` are compiled.
void apply_compile_options(SourceFile& file, const Options& o);

/// The NAME and FILE of one `--input NAME=FILE` (a leading '%' of NAME dropped).
std::pair<std::string, std::string> input_spec(const std::string& spec);
/// The NAME=FILE pairs of `--input`, checked against g's argument names (names in
/// `specialized`, inputs an ONNX model was specialized to, are skipped).
std::map<std::string, std::string>
input_files(const Options& o, const Graph& g,
            const std::map<std::string, Tensor, std::less<>>& specialized = {});
/// Argument `a`'s value read from the .npy `file`; an error unless its type is a's.
Tensor read_argument(const Node& a, const std::string& file);

/// Writes `text` to `path` ("-" is standard output); throws tilesat::Error when it cannot.
void write_text(const std::string& path, const std::string& text);

} // namespace tilesat::cli
