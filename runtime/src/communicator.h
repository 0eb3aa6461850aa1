// communicator.h: how the chips of a mesh run exchange tensors for the multi-chip ops: each
// chip's thread publishes its tensor, waits at a barrier for every chip, and reads them all.
// When one chip fails, abort() wakes the others, whose exchange then throws instead of waiting
// for ever.
//
//   Communicator comm(8);
//   // in chip c's thread:
//   std::vector<Tensor> all = comm.exchange(c, mine);   // all[k]: chip k's tensor
#pragma once

#include "tilesat/graph/tensor.h"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

namespace tilesat::runtime::detail {

class Communicator {
public:
  explicit Communicator(int64_t chips);

  int64_t chips() const { return static_cast<int64_t>(slots_.size()); }
  /// Publishes chip `chip`'s tensor and returns every chip's (index = chip) once all have
  /// published; throws tilesat::Error when another chip aborted the run.
  std::vector<Tensor> exchange(int64_t chip, Tensor mine);
  /// Makes every waiting and later exchange throw.
  void abort();

private:
  // Waits until every chip has arrived (a reusable barrier).
  void barrier(std::unique_lock<std::mutex>& lock);

  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<Tensor> slots_;
  int64_t arrived_ = 0;
  uint64_t generation_ = 0;
  bool aborted_ = false;
};

} // namespace tilesat::runtime::detail
