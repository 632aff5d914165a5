#pragma once
// How a simulation advances, for code that steps one without knowing which
// (coupler::HotPath): the steps, the work that makes the state readable, and
// the simulated time.

#include <cstdint>
#include <string>

namespace coupler {

class Stepper {
 public:
  virtual ~Stepper() = default;

  // Advances `steps` time steps with the controls currently applied.
  virtual void step(std::uint64_t steps) = 0;
  // Makes the state current for reading (for MuJoCo, the stages a step
  // leaves uncomputed); called before every read of the state.
  virtual void settle() {}
  // Tells the stepper the state is as settle() leaves it, although the
  // stepper did not settle it itself (its owner did, through another path).
  virtual void assume_settled() {}
  // The controls changed without a step (a controller's Control waits for
  // the others'): the readings need settle() again.
  virtual void unsettle() {}
  // A position of the state was set without a step (a mocap body's pose):
  // what was computed from the positions must be computed again.
  virtual void repositioned() {}
  // Seconds.
  virtual double time() const = 0;
};

// A simulation without physics: the time is the number of steps taken times
// the time step, computed as one product so that no sum drifts.
class CountedSteps final : public Stepper {
 public:
  explicit CountedSteps(double time_step);

  void step(std::uint64_t steps) override { steps_ += steps; }
  double time() const override { return static_cast<double>(steps_) * time_step_; }

  std::uint64_t steps() const noexcept { return steps_; }
  void reset() noexcept { steps_ = 0; }

 private:
  double time_step_;
  std::uint64_t steps_ = 0;
};

// The answer to a Control whose apply or steps failed with `failure` (an
// exception's what()): an InternalError frame, "internal error: " and the
// failure's first line, as Python answers a failure (coupler.serve.request_guard):
// a stack or a long explanation is for the server's log, not the peer's answer.
std::string failed_step_frame(const std::string& failure);

}  // namespace coupler
