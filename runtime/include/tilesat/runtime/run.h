// Running a loaded program on the CPU model of its device.
//
// The device has the program's core grid; each core owns an L1 arena of the device's L1 size
// and DRAM is one arena. Inputs are staged into their tensors' buffers (rounded to their
// dtypes), every op runs each of its cores' work lists (cores spread over a thread pool),
// and the outputs are read back. The profile gives, per op, the host time, the device time
// the planner predicted, the cores used and the L1 in use; and the L1 high-water mark.
//
//   Program p = Program::load("mlp.tsprog");
//   Runner runner(p);                                  // allocates the device memories
//   RunResult r = runner.run(inputs);                   // inputs in p.fb().inputs() order
//   write_npy("out.npy", r.outputs[0]);
//   fmt::print("{}\n", profile_json(r.profile));
#pragma once

#include "tilesat/graph/tensor.h"
#include "tilesat/runtime/program.h"
#include "tilesat/runtime/thread_pool.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tilesat::runtime {

namespace detail {
class Communicator;
}

/// One op's line of the profile.
struct OpProfile {
  std::string name;
  std::string kind;
  double host_us = 0;
  /// The device time the planner predicted for the op (the program's `predicted_us`).
  double device_us = 0;
  uint32_t cores = 0;
  /// Highest L1 byte in use on any core while the op runs (end of the top live buffer).
  uint64_t l1_in_use = 0;
  /// A const-eval op (it ran because the program was loaded or a weight changed).
  bool one_time = false;
};

/// What one run did. Const-eval ops run on a Runner's first run and when an input they read
/// changes; their times are counted apart from the per-inference totals.
struct Profile {
  std::vector<OpProfile> ops;
  /// Host time of the whole run (one-time ops included when they ran).
  double host_total_us = 0;
  /// Predicted device time per inference (one-time ops excluded).
  double device_total_us = 0;
  /// Whether this run ran the one-time ops, and their host and predicted device times.
  bool const_eval_ran = false;
  double one_time_host_us = 0;
  double one_time_device_us = 0;
  uint64_t l1_high_water = 0;
  uint64_t l1_bytes_per_core = 0;
  unsigned threads = 0;
};

struct RunResult {
  /// One tensor per program output, in order, with the output's dtype and shape.
  std::vector<Tensor> outputs;
  Profile profile;
};

/// The CPU model of one program's device, reusable across runs.
class Runner {
public:
  /// `threads`: worker threads for the cores (0: one per hardware thread).
  explicit Runner(const Program& program, unsigned threads = 0);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  /// Runs the program; `inputs` in the order of the program's inputs, each of its input's
  /// shape. Throws tilesat::Error naming the input on a mismatch.
  RunResult run(std::span<const Tensor> inputs);
  /// As run(), taking the inputs: each is freed once written to the device's DRAM, so a large
  /// model's weights are not held twice while it runs.
  RunResult run_consuming(std::vector<Tensor> inputs);

  /// Makes this runner chip `chip` of a mesh run, exchanging tensors with the other chips'
  /// runners through `comm` (MeshRunner does this; a program for one chip needs no call).
  void attach(int64_t chip, detail::Communicator& comm);

private:
  RunResult run_inputs(std::span<const Tensor> inputs, std::vector<Tensor>* owned);
  struct State;
  const Program& program_;
  std::unique_ptr<State> state_;
};

/// The profile as JSON text.
std::string profile_json(const Profile& p);

/// The DType of a program tensor, in the graph's terms.
DType graph_dtype(fb::DType d);

} // namespace tilesat::runtime
