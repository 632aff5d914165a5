#include <coupler/serve/mujoco_stepper.hpp>

#include <coupler/wire/error.hpp>

namespace coupler {

namespace {

constexpr int kStateTime = 1;  // mjSTATE_TIME: mj_getState writes the simulated time alone

}  // namespace

MujocoStepper::MujocoStepper(const MujocoFunctions& functions, const void* model, void* data, bool split_step,
                             const int* bad_qpos, const int* bad_qvel)
    : functions_(functions),
      model_(model),
      data_(data),
      split_step_(split_step),
      bad_qpos_(bad_qpos),
      bad_qvel_(bad_qvel) {
  const MujocoFunctions& f = functions_;
  if (!f.step || !f.step2 || !f.forward || !f.check_pos || !f.check_vel || !f.get_state) {
    throw Error("a MuJoCo stepper needs mj_step, mj_step2, mj_forward, mj_checkPos, mj_checkVel and mj_getState");
  }
  if (!model || !data || !bad_qpos || !bad_qvel) throw Error("a MuJoCo stepper needs its model, data and warnings");
}

void MujocoStepper::step(std::uint64_t steps) {
  if (steps == 0) return;
  if (forwarded_ && split_step_) {
    const int bad = *bad_qpos_ + *bad_qvel_;
    functions_.check_pos(model_, data_);
    functions_.check_vel(model_, data_);
    if (*bad_qpos_ + *bad_qvel_ == bad) {
      functions_.step2(model_, data_);
      --steps;
    }
  }
  for (; steps > 0; --steps) functions_.step(model_, data_);
  settled_ = forwarded_ = false;
}

void MujocoStepper::settle() {
  if (settled_) return;
  functions_.forward(model_, data_);
  settled_ = forwarded_ = true;
}

double MujocoStepper::time() const {
  double time = 0.0;
  functions_.get_state(model_, data_, &time, kStateTime);
  return time;
}

}  // namespace coupler
