// StepChunks: a long Control's steps are cut into chunks of about a chunk's seconds each.

#include <catch2/catch.hpp>

#include <coupler/serve/step_chunks.hpp>
#include <coupler/wire/error.hpp>

using coupler::StepChunks;

TEST_CASE("the first chunk is the first chunk's steps", "[step_chunks]") {
  const StepChunks chunks;
  CHECK(chunks.next(100000) == StepChunks::kFirst);
}

TEST_CASE("a chunk is never more than the steps left", "[step_chunks]") {
  const StepChunks chunks;
  CHECK(chunks.next(7) == 7);
}

TEST_CASE("the next chunk is sized from the time per step of the one before", "[step_chunks]") {
  StepChunks chunks(0.02);
  chunks.took(100, 0.1);  // 1 ms a step: 20 steps make 20 ms
  CHECK(chunks.next(100000) == 20);
  chunks.took(20, 0.002);  // 0.1 ms a step: 200 steps
  CHECK(chunks.next(100000) == 200);
}

TEST_CASE("a chunk slower than the chunk's seconds for one step shrinks to one step", "[step_chunks]") {
  StepChunks chunks(0.02);
  chunks.took(100, 10.0);
  CHECK(chunks.next(100000) == 1);
}

TEST_CASE("a chunk too fast to time doubles the next", "[step_chunks]") {
  StepChunks chunks;
  chunks.took(100, 0.0);
  CHECK(chunks.next(100000) == 200);
}

TEST_CASE("a chunk's seconds must be positive", "[step_chunks]") {
  CHECK_THROWS_AS(StepChunks(0.0), coupler::Error);
}
