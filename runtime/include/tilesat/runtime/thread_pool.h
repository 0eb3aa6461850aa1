// A fixed set of worker threads that run the cores of the CPU device model.
//
// `run(n, fn)` calls fn(0) .. fn(n - 1), spread over the workers and the calling thread, and
// returns when all have finished; the first exception thrown by a task is rethrown.
//
//   ThreadPool pool(2);
//   std::vector<int> out(8);
//   pool.run(8, [&](size_t i) { out[i] = int(i) * 2; });
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tilesat::runtime {

class ThreadPool {
public:
  /// `threads` workers in total, counting the caller (0: the hardware's thread count).
  explicit ThreadPool(unsigned threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }
  void run(size_t tasks, const std::function<void(size_t)>& fn);

private:
  void work_loop();
  void drain();
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  const std::function<void(size_t)>* fn_ = nullptr;
  size_t tasks_ = 0, next_ = 0, finished_ = 0;
  unsigned long generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

} // namespace tilesat::runtime
