#include <coupler/serve/mujoco_stepper.hpp>

#include <utility>

#include <coupler/wire/error.hpp>

namespace coupler {

namespace {

constexpr int kStateTime = 1;  // mjSTATE_TIME: mj_getState writes the simulated time alone
constexpr int kStageVelocity = 2;  // mjSTAGE_VEL: mj_forwardSkip starts after the velocity stage
constexpr int kRungeKuttaOrder = 4;  // mj_step's RK4

}  // namespace

MujocoStepper::MujocoStepper(const MujocoFunctions& functions, const void* model, void* data, bool split_step,
                             const int* bad_qpos, const int* bad_qvel, bool resume_rk4,
                             std::optional<std::vector<MujocoFunctions::Stage>> readings_stages, bool stages_forward)
    : functions_(functions),
      model_(model),
      data_(data),
      split_step_(split_step),
      resume_rk4_(resume_rk4 && !split_step),
      bad_qpos_(bad_qpos),
      bad_qvel_(bad_qvel),
      readings_stages_(std::move(readings_stages)),
      stages_forward_(stages_forward && readings_stages_.has_value()) {
  const MujocoFunctions& f = functions_;
  if (!f.step || !f.step2 || !f.forward || !f.check_pos || !f.check_vel || !f.get_state) {
    throw Error("a MuJoCo stepper needs mj_step, mj_step2, mj_forward, mj_checkPos, mj_checkVel and mj_getState");
  }
  if (!model || !data || !bad_qpos || !bad_qvel) throw Error("a MuJoCo stepper needs its model, data and warnings");
  if (resume_rk4_ && (!f.forward_skip || !f.check_acc || !f.runge_kutta)) {
    throw Error("resuming an RK4 step needs mj_forwardSkip, mj_checkAcc and mj_RungeKutta");
  }
  if (readings_stages_) {
    for (const auto stage : *readings_stages_) {
      if (!stage) throw Error("a stage that settles the readings is missing");
    }
  }
}

void MujocoStepper::step(std::uint64_t steps) {
  if (steps == 0) return;
  const bool forwarded = forwarded_;
  // Cleared first: a step that fails part of the way leaves a state nothing has settled or forwarded.
  settled_ = forwarded_ = false;
  if (forwarded && (split_step_ || resume_rk4_)) {
    const int bad = *bad_qpos_ + *bad_qvel_;
    functions_.check_pos(model_, data_);
    functions_.check_vel(model_, data_);
    if (*bad_qpos_ + *bad_qvel_ == bad) {
      if (split_step_) {
        functions_.step2(model_, data_);
      } else {
        // mj_step past its checks and the stages already computed: the rest of mj_forward, then RK4.
        functions_.forward_skip(model_, data_, kStageVelocity, 0);
        functions_.check_acc(model_, data_);
        functions_.runge_kutta(model_, data_, kRungeKuttaOrder);
      }
      --steps;
    }
  }
  for (; steps > 0; --steps) functions_.step(model_, data_);
}

void MujocoStepper::settle() {
  if (settled_) return;
  if (readings_stages_) {
    for (const auto stage : *readings_stages_) stage(model_, data_);
  } else {
    functions_.forward(model_, data_);
  }
  settled_ = true;
  forwarded_ = forwarded_when_settled();
}

double MujocoStepper::time() const {
  double time = 0.0;
  functions_.get_state(model_, data_, &time, kStateTime);
  return time;
}

}  // namespace coupler
