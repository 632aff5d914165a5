// WorkerPool: persistent threads that run one job over every share of a batch.

#include <catch2/catch.hpp>

#include <atomic>
#include <cstddef>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include <coupler/serve/worker_pool.hpp>
#include <coupler/wire/error.hpp>

using namespace coupler;

TEST_CASE("a worker pool runs every share once per run, share 0 on the calling thread", "[worker_pool]") {
  WorkerPool pool(3);
  REQUIRE(pool.threads() == 3);
  for (int round = 0; round < 50; ++round) {
    std::vector<std::atomic<int>> calls(3);
    std::thread::id first;
    pool.run([&](std::size_t share) {
      ++calls[share];
      if (share == 0) first = std::this_thread::get_id();
    });
    for (const auto& count : calls) CHECK(count == 1);
    CHECK(first == std::this_thread::get_id());
  }
}

TEST_CASE("a worker pool runs the shares on threads of their own", "[worker_pool]") {
  WorkerPool pool(2);
  std::vector<std::thread::id> ids(2);
  pool.run([&](std::size_t share) { ids[share] = std::this_thread::get_id(); });
  CHECK(ids[0] != ids[1]);
}

TEST_CASE("a worker pool rethrows what a share threw, after every share returned, and runs on", "[worker_pool]") {
  WorkerPool pool(2);
  std::atomic<int> returned{0};
  CHECK_THROWS_WITH(pool.run([&](std::size_t share) {
                      ++returned;
                      if (share == 1) throw std::runtime_error("world 1 failed");
                    }),
                    "world 1 failed");
  CHECK(returned == 2);
  std::atomic<int> again{0};
  pool.run([&](std::size_t) { ++again; });
  CHECK(again == 2);
}

TEST_CASE("a worker pool of no threads is refused", "[worker_pool]") {
  CHECK_THROWS_AS(WorkerPool(0), Error);
}
