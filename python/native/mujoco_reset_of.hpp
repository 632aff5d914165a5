#pragma once
// coupler::MujocoReset of a MujocoStepperOf's MjModel and MjData: the reset of
// a served scene (mujoco_reset_binding.cpp) and of batched worlds
// (world_steps_binding.cpp).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <coupler/serve/mujoco_reset.hpp>
#include <coupler/wire/error.hpp>

#include "mujoco_stepper_of.hpp"

namespace coupler::python {

// A MujocoReset with the Python objects whose memory it resets, kept alive as long as it is.
class MujocoResetOf {
 public:
  MujocoResetOf(py::object stepper, py::array qpos, py::array qvel, const py::dict& functions, int start_keyframe)
      : stepper_(std::move(stepper)), qpos_(std::move(qpos)), qvel_(std::move(qvel)) {
    auto& of = stepper_.cast<MujocoStepperOf&>();
    MujocoResetFunctions f;
    f.reset_data = function<MujocoResetFunctions::ResetData>(functions, "mj_resetData");
    f.reset_data_keyframe = function<MujocoResetFunctions::ResetDataKeyframe>(functions, "mj_resetDataKeyframe");
    reset_.emplace(f, of.get(), address_of(of.model(), "the model"), address_of(of.data(), "the data"),
                   state(qpos_, "qpos"), static_cast<std::size_t>(qpos_.size()), state(qvel_, "qvel"),
                   static_cast<std::size_t>(qvel_.size()), start_keyframe);
  }

  MujocoReset& get() { return *reset_; }

 private:
  // mjData's array as the `mujoco` package views it: written where it lies.
  static double* state(const py::array& array, const char* what) {
    if (!array.dtype().is(py::dtype::of<double>()) || !(array.flags() & py::array::c_style) || !array.writeable()) {
      throw Error(std::string("the data's ") + what + " must be a writeable contiguous float64 array");
    }
    return static_cast<double*>(const_cast<void*>(array.data()));
  }

  py::object stepper_;
  py::array qpos_;
  py::array qvel_;
  std::optional<MujocoReset> reset_;
};

}  // namespace coupler::python
