#pragma once
// The reset of a served MuJoCo scene, in C++: its start keyframe or state (or
// a keyframe named by the caller) restored, a position and velocity written
// over it when given, and the state settled by its stepper. The one reset
// of a scene, whether Python asks for it (MujocoSimulation.reset_to) or a
// batch resets its worlds (WorldSteps, WorldHotPath).

#include <cstddef>

#include <coupler/serve/mujoco_stepper.hpp>

namespace coupler {

// MuJoCo's reset functions, found at run time as the stepper's are.
struct MujocoResetFunctions {
  using ResetData = void (*)(const void* model, void* data);                       // mj_resetData
  using ResetDataKeyframe = void (*)(const void* model, void* data, int keyframe);  // mj_resetDataKeyframe

  ResetData reset_data = nullptr;
  ResetDataKeyframe reset_data_keyframe = nullptr;
};

class MujocoReset {
 public:
  static constexpr int kStart = -1;  // reset()'s keyframe: the scene's start keyframe, or its state without one

  // `stepper` steps `data` (an mjData of `model`), whose qpos and qvel hold
  // `nq` and `nv` numbers at `qpos` and `qvel`. `start_keyframe`: the index of
  // the keyframe a reset restores (kStart: none, mj_resetData's state). All
  // must outlive this object. Throws coupler::Error when a function is missing.
  MujocoReset(const MujocoResetFunctions& functions, MujocoStepper& stepper, const void* model, void* data,
              double* qpos, std::size_t nq, double* qvel, std::size_t nv, int start_keyframe);

  // Restore `keyframe` (an index the model has; kStart: the start keyframe or
  // state), write `qpos` (nq numbers) and `qvel` (nv numbers) over it when
  // not null, and settle the state through the stepper (mj_forward, or the
  // stages of it the readings need): it reads none of what it wrote before,
  // so the state is as given, as a Gymnasium reset leaves it.
  void reset(int keyframe = kStart, const double* qpos = nullptr, const double* qvel = nullptr);

  MujocoStepper& stepper() const noexcept { return stepper_; }
  std::size_t nq() const noexcept { return nq_; }
  std::size_t nv() const noexcept { return nv_; }

 private:
  MujocoResetFunctions functions_;
  MujocoStepper& stepper_;
  const void* model_;
  void* data_;
  double* qpos_;
  std::size_t nq_;
  double* qvel_;
  std::size_t nv_;
  int start_keyframe_;
};

}  // namespace coupler
