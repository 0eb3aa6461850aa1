// communicator.cpp: the barrier and per-chip slots of a mesh run's tensor exchange.
#include "communicator.h"

#include "tilesat/graph/diagnostic.h"

namespace tilesat::runtime::detail {

Communicator::Communicator(int64_t chips) : slots_(static_cast<size_t>(chips)) {}

void Communicator::barrier(std::unique_lock<std::mutex>& lock) {
  if (aborted_) throw Error("another chip of the mesh failed");
  uint64_t gen = generation_;
  if (++arrived_ == chips()) {
    arrived_ = 0;
    ++generation_;
    cv_.notify_all();
  } else {
    cv_.wait(lock, [&] { return generation_ != gen || aborted_; });
  }
  if (aborted_) throw Error("another chip of the mesh failed");
}

std::vector<Tensor> Communicator::exchange(int64_t chip, Tensor mine) {
  std::unique_lock<std::mutex> lock(mutex_);
  slots_[static_cast<size_t>(chip)] = std::move(mine);
  barrier(lock); // every slot written
  std::vector<Tensor> all = slots_;
  barrier(lock); // every chip has read before any slot is written again
  return all;
}

void Communicator::abort() {
  std::lock_guard<std::mutex> lock(mutex_);
  aborted_ = true;
  cv_.notify_all();
}

} // namespace tilesat::runtime::detail
