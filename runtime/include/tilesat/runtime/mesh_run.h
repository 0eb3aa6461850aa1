// Running a mesh program: every chip of the program's mesh in its own thread.
//
// A program lowered for a multi-chip device (a per-chip graph planned on the mesh's chip) is
// run by every chip of its mesh, each with its own CPU device model and memory. Every chip is
// given the full host inputs; mesh_shard and the collectives exchange tensors between the
// chips' threads through a communicator (a barrier and per-chip buffers) with the numerics of
// the reference interpreter (graph/spmd.h, interpret_mesh). The profile is per chip.
//
//   Program p = Program::load("megatron.tsprog");   // mesh_rows x mesh_cols chips
//   MeshRunner runner(p);
//   MeshRunResult r = runner.run(inputs);
//   r.outputs[0];                  // the result (every chip's copy is the same)
//   r.chips[3].device_total_us;    // chip 3's profile
#pragma once

#include "tilesat/runtime/run.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tilesat::runtime {

struct MeshRunResult {
  /// One tensor per program output, in order.
  std::vector<Tensor> outputs;
  /// One profile per chip, in row-major chip order.
  std::vector<Profile> chips;
};

/// The CPU models of every chip of a program's mesh, reusable across runs.
class MeshRunner {
public:
  /// `threads`: worker threads in all (0: one per hardware thread), shared out over the chips
  /// (each has at least one).
  explicit MeshRunner(const Program& program, unsigned threads = 0);
  ~MeshRunner();
  MeshRunner(const MeshRunner&) = delete;
  MeshRunner& operator=(const MeshRunner&) = delete;

  /// Runs the program on every chip for the full host `inputs` (in the program's input order).
  /// Throws tilesat::Error with the first chip's error, or naming an output that differs
  /// between chips (a result must come out of a shard_to_full or be equal on every chip).
  MeshRunResult run(std::span<const Tensor> inputs);
  /// As run(), taking the inputs: on one chip each is freed once written to the device's
  /// DRAM, so a large model's weights are not held twice while it runs.
  MeshRunResult run_consuming(std::vector<Tensor> inputs);

private:
  MeshRunResult run_chips(std::span<const Tensor> inputs, std::vector<Tensor>* owned);
  struct State;
  const Program& program_;
  std::unique_ptr<State> state_;
};

/// The per-chip profiles as JSON text: {"mesh": "RxC", "chips": [profile, ...]}.
std::string mesh_profile_json(const Program& program, const std::vector<Profile>& chips);

} // namespace tilesat::runtime
