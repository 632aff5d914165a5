#include <coupler/serve/mujoco_reset.hpp>

#include <algorithm>

#include <coupler/wire/error.hpp>

namespace coupler {

MujocoReset::MujocoReset(const MujocoResetFunctions& functions, MujocoStepper& stepper, const void* model, void* data,
                         double* qpos, std::size_t nq, double* qvel, std::size_t nv, int start_keyframe)
    : functions_(functions),
      stepper_(stepper),
      model_(model),
      data_(data),
      qpos_(qpos),
      nq_(nq),
      qvel_(qvel),
      nv_(nv),
      start_keyframe_(start_keyframe) {
  if (!functions.reset_data || !functions.reset_data_keyframe) {
    throw Error("a MuJoCo reset needs mj_resetData and mj_resetDataKeyframe");
  }
  if (!model || !data || (nq > 0 && !qpos) || (nv > 0 && !qvel)) {
    throw Error("a MuJoCo reset needs its model, data, qpos and qvel");
  }
}

void MujocoReset::reset(int keyframe, const double* qpos, const double* qvel) {
  if (keyframe == kStart) keyframe = start_keyframe_;
  if (keyframe != kStart) {
    functions_.reset_data_keyframe(model_, data_, keyframe);
  } else {
    functions_.reset_data(model_, data_);
  }
  if (qpos) std::copy(qpos, qpos + nq_, qpos_);
  if (qvel) std::copy(qvel, qvel + nv_, qvel_);
  stepper_.repositioned();  // a new state: nothing of it is computed yet
  stepper_.settle();
}

}  // namespace coupler
