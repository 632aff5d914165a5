#pragma once
// The worlds of a batched server stepped in C++ on a WorkerPool, one call
// per Control: per world reset, or its controls scattered, its steps taken, the
// arrays read right after them (`coupler serve --world-data`); then its
// readings gathered.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <coupler/serve/control_scatter.hpp>
#include <coupler/serve/mujoco_reset.hpp>
#include <coupler/serve/mujoco_stepper.hpp>
#include <coupler/serve/sensor_gather.hpp>
#include <coupler/serve/worker_pool.hpp>

namespace coupler {

class WorldSteps {
 public:
  // One world's parts, which must outlive this object. `data_gather` may be
  // null (no arrays read after the step); `reset` may be null (the world is
  // never reset here); `model` and `data` are its mjModel and mjData, for
  // `after_step`.
  struct World {
    MujocoStepper* stepper = nullptr;
    MujocoReset* reset = nullptr;
    const ControlScatter* scatter = nullptr;
    const SensorGather* gather = nullptr;
    const SensorGather* data_gather = nullptr;
    const void* model = nullptr;
    void* data = nullptr;
  };

  // Every world's scatter takes `value_count` values of `object_count`
  // objects and `event_count` events, and its gathers fill `sensor_width`
  // and `data_width` numbers. `after_step` (mj_rnePostConstraint, or null)
  // runs on every stepped world before its arrays are read. A world is
  // settled for its readings by its stepper (MujocoStepper::settle). Throws
  // coupler::Error for a world whose parts do not fit these sizes.
  WorldSteps(std::vector<World> worlds, std::size_t object_count, std::size_t data_width, std::size_t threads,
             MujocoFunctions::Stage after_step);

  std::size_t count() const noexcept { return worlds_.size(); }
  std::size_t threads() const noexcept { return pool_.threads(); }
  std::size_t value_count() const noexcept { return value_count_; }
  std::size_t event_count() const noexcept { return event_count_; }
  std::size_t sensor_width() const noexcept { return sensor_width_; }

  // Whether every world can be reset here (has its MujocoReset).
  bool resets() const noexcept;
  // The numbers of a world's qpos and qvel (0, 0 when it cannot be reset here).
  std::size_t nq() const noexcept { return worlds_.front().reset ? worlds_.front().reset->nq() : 0; }
  std::size_t nv() const noexcept { return worlds_.front().reset ? worlds_.front().reset->nv() : 0; }

  // A world's simulated time, read from its state.
  double time(std::size_t world) const { return worlds_.at(world).stepper->time(); }

  // Whether a world's scatter refuses its row of `values` (count x value_count): a value beyond its limit, a mocap
  // body's zero quaternion.
  bool refuses(const double* values) const noexcept;
  // Throws coupler::ProtocolError (ControlMismatch) naming the first thing a
  // world's scatter refuses in its row of `values`, and the world: a value
  // beyond its limit in any world, else a mocap body's zero quaternion in a
  // world that is stepped, not reset (`reset`: a flag per world, or null).
  void check(const double* values, const std::uint8_t* reset) const;

  // What one call does. Per world i: when reset[i], it is reset (MujocoReset,
  // to reset_qpos[i] and reset_qvel[i] where given) and its data row read;
  // else when step[i], values[i] and events_on[i] are scattered and it takes
  // `steps` steps, after which its data row is read; every world is then
  // settled and read into sensors[i] and times[i]. Each world's stepper
  // knows how its state is left (every path that changes it tells it).
  struct Batch {
    const double* values = nullptr;          // count x value_count
    const std::uint8_t* events_on = nullptr;  // count x event_count
    const std::uint8_t* step = nullptr;       // count
    std::uint64_t steps = 0;
    double* sensors = nullptr;  // count x sensor_width
    double* times = nullptr;    // count
    double* data = nullptr;     // count x data_width (may be null when data_width is 0)
    const std::uint8_t* reset = nullptr;        // count (null: no world is reset)
    const double* const* reset_qpos = nullptr;  // count: a reset world's qpos, or null (null: none is given)
    const double* const* reset_qvel = nullptr;  // count: its qvel, likewise
  };

  // The (world, value index) of every value written outside its range, in order. Throws coupler::Error, before
  // any world changes, when a world to reset has no MujocoReset.
  std::vector<std::pair<std::size_t, std::size_t>> run(const Batch& batch);

 private:
  void run_world(std::size_t i, const Batch& batch, std::vector<std::pair<std::size_t, std::size_t>>& outside) const;

  std::vector<World> worlds_;
  std::size_t value_count_ = 0;
  std::size_t event_count_ = 0;
  std::size_t sensor_width_ = 0;
  std::size_t data_width_ = 0;
  std::vector<std::uint8_t> every_object_;
  std::vector<std::uint8_t> every_event_;
  MujocoFunctions::Stage after_step_ = nullptr;
  WorkerPool pool_;
};

}  // namespace coupler
