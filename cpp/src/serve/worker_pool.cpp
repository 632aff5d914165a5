#include <coupler/serve/worker_pool.hpp>

#include <utility>

#include <coupler/wire/error.hpp>

namespace coupler {

WorkerPool::WorkerPool(std::size_t threads) {
  if (threads == 0) throw Error("a worker pool needs at least one thread");
  workers_.reserve(threads - 1);
  for (std::size_t share = 1; share < threads; ++share) workers_.emplace_back([this, share] { work(share); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (auto& worker : workers_) worker.join();
}

void WorkerPool::run(const std::function<void(std::size_t)>& job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    error_ = nullptr;
    running_ = workers_.size();
    ++round_;
  }
  start_.notify_all();
  std::exception_ptr mine;
  try {
    job(0);
  } catch (...) {
    mine = std::current_exception();
  }
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return running_ == 0; });
  job_ = nullptr;
  std::exception_ptr error = mine ? mine : std::exchange(error_, nullptr);
  if (error) std::rethrow_exception(error);
}

void WorkerPool::work(std::size_t share) {
  std::uint64_t done_round = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    start_.wait(lock, [&] { return stopping_ || round_ != done_round; });
    if (stopping_) return;
    done_round = round_;
    const auto* job = job_;
    lock.unlock();
    std::exception_ptr error;
    try {
      (*job)(share);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error && !error_) error_ = error;
    if (--running_ == 0) done_.notify_one();
  }
}

}  // namespace coupler
