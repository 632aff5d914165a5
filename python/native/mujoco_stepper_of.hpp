#pragma once
// coupler::MujocoStepper over the `mujoco` package's MjModel and MjData: the
// stepper of the hot path (hot_path_binding.cpp) and of batched worlds
// (world_steps_binding.cpp).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <coupler/serve/mujoco_stepper.hpp>
#include <coupler/wire/error.hpp>

namespace coupler::python {

namespace py = pybind11;

// MuJoCo's warning counters (mjData.warning[].number) as the `mujoco` package
// views them: strided int32, taken as they are (a converted copy would never count).
using Counters = py::array;

inline const int* counter(const Counters& counters, std::size_t index) {
  if (!counters.dtype().is(py::dtype::of<int>()) || counters.ndim() != 1) {
    throw Error("the warning counters must be a one-dimensional int32 NumPy array");
  }
  if (index >= static_cast<std::size_t>(counters.shape(0))) throw Error("the warning counters hold no such warning");
  return reinterpret_cast<const int*>(static_cast<const char*>(counters.data()) +
                                      static_cast<py::ssize_t>(index) * counters.strides(0));
}

// The address of a MuJoCo struct as the `mujoco` package gives it (MjModel._address).
inline void* address_of(const py::object& mujoco_struct, const char* what) {
  const auto address = mujoco_struct.attr("_address").cast<std::uintptr_t>();
  if (address == 0) throw Error(std::string(what) + " has no address");
  return reinterpret_cast<void*>(address);
}

// MuJoCo's function `name` from the addresses in `functions`, as the type F of its signature.
template <typename F = MujocoFunctions::Stage>
F function(const py::dict& functions, const char* name) {
  if (!functions.contains(name)) throw Error(std::string("the MuJoCo functions lack ") + name);
  return reinterpret_cast<F>(functions[name].cast<std::uintptr_t>());
}

inline MujocoFunctions::Stage stage(const py::dict& functions, const char* name) { return function(functions, name); }

// A MujocoStepper with the Python objects whose memory it steps, kept alive as long as it is.
class MujocoStepperOf {
 public:
  MujocoStepperOf(py::object model, py::object data, const py::dict& functions, bool split_step, Counters warnings,
                  std::size_t bad_qpos, std::size_t bad_qvel, bool resume_rk4 = false,
                  const std::optional<std::vector<std::string>>& readings_stages = std::nullopt,
                  bool stages_forward = false)
      : model_(std::move(model)), data_(std::move(data)), warnings_(std::move(warnings)) {
    MujocoFunctions f;
    f.step = stage(functions, "mj_step");
    f.step2 = stage(functions, "mj_step2");
    f.forward = stage(functions, "mj_forward");
    f.check_pos = stage(functions, "mj_checkPos");
    f.check_vel = stage(functions, "mj_checkVel");
    if (!functions.contains("mj_getState")) throw Error("the MuJoCo functions lack mj_getState");
    f.get_state = reinterpret_cast<MujocoFunctions::GetState>(functions["mj_getState"].cast<std::uintptr_t>());
    if (resume_rk4) {
      f.forward_skip = function<MujocoFunctions::ForwardSkip>(functions, "mj_forwardSkip");
      f.check_acc = stage(functions, "mj_checkAcc");
      f.runge_kutta = function<MujocoFunctions::RungeKutta>(functions, "mj_RungeKutta");
    }
    std::optional<std::vector<MujocoFunctions::Stage>> stages;
    if (readings_stages) {
      stages.emplace();
      for (const std::string& name : *readings_stages) stages->push_back(stage(functions, name.c_str()));
    }
    stepper_.emplace(f, address_of(model_, "the model"), address_of(data_, "the data"), split_step,
                     counter(warnings_, bad_qpos), counter(warnings_, bad_qvel), resume_rk4, std::move(stages),
                     stages_forward);
  }

  MujocoStepper& get() { return *stepper_; }
  const py::object& model() const { return model_; }
  const py::object& data() const { return data_; }

 private:
  py::object model_;
  py::object data_;
  Counters warnings_;
  std::optional<MujocoStepper> stepper_;
};

}  // namespace coupler::python
