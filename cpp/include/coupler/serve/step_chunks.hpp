#pragma once
// How a Control of many steps is cut into chunks, so that nobody waits for it.
//
// The cap on a Control's steps (100,000) counts steps, not time: on a heavy
// model one Control could hold the serving thread for minutes. Its steps are
// taken in chunks of about `seconds` of stepping each, and whatever waits
// (readers, newcomers, a stop) is served between two chunks. The first chunk
// is kFirst steps; each next one is sized from the time per step the chunk
// before it took, so a heavy model takes fewer steps per chunk and a light
// one more.
//
// This class is the rule alone; whoever steps (the C++ hot path, Python's
// coupler.serve.long_control for batched worlds) times each chunk and tells it.

#include <cstdint>

namespace coupler {

class StepChunks {
 public:
  // Steps of the first chunk; a Control asking for more is taken in chunks.
  static constexpr std::uint64_t kFirst = 100;
  // Seconds of stepping per chunk: how long a reader, a newcomer or a stop waits at most behind a long Control.
  static constexpr double kSeconds = 0.02;

  // coupler::Error unless `seconds` is positive.
  explicit StepChunks(double seconds = kSeconds);

  // The steps of the next chunk, at most `left`.
  std::uint64_t next(std::uint64_t left) const noexcept { return left < size_ ? left : size_; }
  // A chunk of `steps` took `seconds`: the next is sized from its time per step (twice as large when too fast to
  // time).
  void took(std::uint64_t steps, double seconds) noexcept;

  double seconds() const noexcept { return seconds_; }

 private:
  double seconds_;
  std::uint64_t size_ = kFirst;
};

}  // namespace coupler
