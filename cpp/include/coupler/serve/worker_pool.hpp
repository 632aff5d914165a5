#pragma once
// Threads that live as long as their pool and run one job over shares of a
// batch: the worlds of a batched server step on them, one call per Control,
// without a thread started or a Python lock taken per call.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace coupler {

class WorkerPool {
 public:
  // Runs jobs on the calling thread and `threads` - 1 workers. Throws
  // coupler::Error for 0 threads.
  explicit WorkerPool(std::size_t threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  std::size_t threads() const noexcept { return workers_.size() + 1; }

  // Calls job(share) once for every share in [0, threads()), share 0 on the
  // calling thread, and returns when every call has returned; rethrows the
  // first exception a call threw.
  void run(const std::function<void(std::size_t)>& job);

 private:
  void work(std::size_t share);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::uint64_t round_ = 0;  // counts run() calls: a worker runs each round once
  std::size_t running_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace coupler
