// mesh_run.cpp: one Runner per chip, each run in its own std::thread, joined through a
// Communicator; the first failing chip aborts the others.
#include "tilesat/runtime/mesh_run.h"

#include "communicator.h"
#include "tilesat/graph/diagnostic.h"

#include <algorithm>
#include <exception>
#include <fmt/format.h>
#include <mutex>
#include <thread>

namespace tilesat::runtime {

struct MeshRunner::State {
  int64_t chips;
  detail::Communicator comm;
  std::vector<std::unique_ptr<Runner>> runners;
  explicit State(int64_t n) : chips(n), comm(n) {}
};

MeshRunner::MeshRunner(const Program& program, unsigned threads)
    : program_(program), state_(std::make_unique<State>(int64_t{program.fb().mesh_rows()} *
                                                        program.fb().mesh_cols())) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  auto per_chip = std::max<unsigned>(1, threads / static_cast<unsigned>(state_->chips));
  for (int64_t c = 0; c < state_->chips; ++c) {
    state_->runners.push_back(std::make_unique<Runner>(program, per_chip));
    state_->runners.back()->attach(c, state_->comm);
  }
}

MeshRunner::~MeshRunner() = default;

MeshRunResult MeshRunner::run(std::span<const Tensor> inputs) {
  return run_chips(inputs, nullptr);
}

MeshRunResult MeshRunner::run_consuming(std::vector<Tensor> inputs) {
  std::vector<Tensor> owned = std::move(inputs);
  // Every chip reads every input: they are freed early only when there is one chip.
  return run_chips(owned, state_->chips == 1 ? &owned : nullptr);
}

MeshRunResult MeshRunner::run_chips(std::span<const Tensor> inputs, std::vector<Tensor>* owned) {
  auto n = static_cast<size_t>(state_->chips);
  std::vector<RunResult> results(n);
  std::vector<std::exception_ptr> errors(n);
  std::vector<bool> first(n, false);
  std::mutex m;
  bool failed = false;
  {
    std::vector<std::jthread> threads;
    for (size_t c = 0; c < n; ++c) {
      threads.emplace_back([&, c] {
        try {
          results[c] = owned != nullptr ? state_->runners[c]->run_consuming(std::move(*owned))
                                        : state_->runners[c]->run(inputs);
        } catch (...) {
          errors[c] = std::current_exception();
          std::lock_guard<std::mutex> lock(m);
          if (!failed) first[c] = true;
          failed = true;
          state_->comm.abort();
        }
      });
    }
  }
  for (size_t c = 0; c < n; ++c) {
    if (first[c]) std::rethrow_exception(errors[c]);
  }
  MeshRunResult out;
  const fb::Program& p = program_.fb();
  for (size_t i = 0; i < results[0].outputs.size(); ++i) {
    for (size_t c = 1; c < n; ++c) {
      if (results[c].outputs[i].data() != results[0].outputs[i].data()) {
        const fb::NamedTensor* nt = p.outputs()->Get(static_cast<uint32_t>(i));
        throw Error(fmt::format("{}: output '{}' differs between chip 0 and chip {} of the {}x{} "
                                "mesh: a result must come out of a shard_to_full mesh_shard or "
                                "be equal on every chip",
                                program_.name(), nt->name() != nullptr ? nt->name()->str() : "", c,
                                p.mesh_rows(), p.mesh_cols()));
      }
    }
    out.outputs.push_back(results[0].outputs[i]);
  }
  for (RunResult& r : results) out.chips.push_back(std::move(r.profile));
  return out;
}

std::string mesh_profile_json(const Program& program, const std::vector<Profile>& chips) {
  std::string s = fmt::format("{{\n\"mesh\": \"{}x{}\",\n\"chips\": [\n", program.fb().mesh_rows(),
                              program.fb().mesh_cols());
  for (size_t c = 0; c < chips.size(); ++c) {
    s += profile_json(chips[c]);
    if (c + 1 < chips.size()) s += ",\n";
  }
  return s + "]\n}\n";
}

} // namespace tilesat::runtime
