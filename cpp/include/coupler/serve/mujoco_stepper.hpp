#pragma once
// MuJoCo's stepping through its C functions, found at run time: the library
// builds without MuJoCo, and steps with the very libmujoco the `mujoco` Python
// package has loaded (coupler.mujoco.native_stepper finds the functions).

#include <cstdint>
#include <optional>
#include <vector>

#include <coupler/serve/stepper.hpp>

namespace coupler {

// mjModel and mjData stay opaque: only MuJoCo's functions look inside them.
struct MujocoFunctions {
  using Stage = void (*)(const void* model, void* data);                              // mj_step and friends
  using GetState = void (*)(const void* model, const void* data, double* state, int signature);  // mj_getState
  using ForwardSkip = void (*)(const void* model, void* data, int skipstage, int skipsensor);  // mj_forwardSkip
  using RungeKutta = void (*)(const void* model, void* data, int order);                       // mj_RungeKutta

  Stage step = nullptr;
  Stage step2 = nullptr;
  Stage forward = nullptr;
  Stage check_pos = nullptr;
  Stage check_vel = nullptr;
  GetState get_state = nullptr;
  // For resuming an RK4 step (may be null: then an RK4 step always starts afresh).
  ForwardSkip forward_skip = nullptr;
  Stage check_acc = nullptr;
  RungeKutta runge_kutta = nullptr;
};

class MujocoStepper final : public Stepper {
 public:
  // `model` and `data` (an mjModel and its mjData) must outlive this object.
  // `split_step`: the integrator lets mj_step2 finish a step that mj_forward
  // began (every integrator but RK4). `bad_qpos` and `bad_qvel` point at
  // MuJoCo's counters of those warnings in `data` (mjData.warning[k].number).
  // `resume_rk4` (an RK4 model without mjENBL_FWDINV; the functions then
  // include forward_skip, check_acc and runge_kutta): a step from a state
  // whose position and velocity stages are computed does the rest of mj_step
  // (mj_forwardSkip past those stages, mj_checkAcc, mj_RungeKutta), bit for
  // bit as mj_step would. `readings_stages`: the first stages of mj_forward,
  // in its order, that compute every array the readings are gathered from
  // (empty: the readings are the state itself); settle() runs just these
  // instead of mj_forward, for the rest (accelerations, constraint forces)
  // changes no reading and the next step does it again. With
  // `stages_forward` they are all of the position and velocity stages
  // (mj_step1's, without its checks), from which the next step starts as
  // after mj_forward; otherwise it starts afresh. Throws coupler::Error when
  // a function or a stage is missing.
  MujocoStepper(const MujocoFunctions& functions, const void* model, void* data, bool split_step,
                const int* bad_qpos, const int* bad_qvel, bool resume_rk4 = false,
                std::optional<std::vector<MujocoFunctions::Stage>> readings_stages = std::nullopt,
                bool stages_forward = false);

  // After settle() (by mj_forward, or by stages that are all of the position
  // and velocity stages) those stages of the state are computed, and a
  // change of controls does not touch them: mj_step2 (or for RK4 the rest of
  // mj_step, with `resume_rk4`) takes the first step from there, bit for bit
  // as mj_step would, unless the checks mj_step starts with reset a bad state
  // (then mj_step redoes it all).
  void step(std::uint64_t steps) override;
  // mj_forward, or the readings' stages, unless the state is already settled.
  void settle() override;
  void assume_settled() override {
    settled_ = true;
    forwarded_ = forwarded_when_settled();
  }
  // The position and velocity stages do not depend on the controls: they still hold.
  void unsettle() override { settled_ = false; }
  // A mocap body's pose feeds the position stage: the next step starts afresh (mj_step).
  void repositioned() override { settled_ = forwarded_ = false; }
  bool settled() const noexcept { return settled_; }
  // Whether settle() leaves the position and velocity stages computed, for the next step to start after them.
  bool forwarded_when_settled() const noexcept { return !readings_stages_ || stages_forward_; }
  double time() const override;

 private:
  MujocoFunctions functions_;
  const void* model_;
  void* data_;
  bool split_step_;
  bool resume_rk4_;
  const int* bad_qpos_;
  const int* bad_qvel_;
  std::optional<std::vector<MujocoFunctions::Stage>> readings_stages_;
  bool stages_forward_ = false;
  bool settled_ = false;    // the readings belong to the current state
  bool forwarded_ = false;  // the position and velocity stages are computed for the current state
};

}  // namespace coupler
