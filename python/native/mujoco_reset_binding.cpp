// coupler._native.MujocoReset: the reset of a served MuJoCo scene
// (coupler.mujoco.native_stepper.mujoco_reset builds it).

#include <optional>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <coupler/wire/error.hpp>

#include "bindings.hpp"
#include "mujoco_reset_of.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

using State = std::optional<py::array_t<double, py::array::c_style | py::array::forcecast>>;

// The numbers of `state` (None or empty: none given), which must be `size` of them.
const double* given(const State& state, std::size_t size, const char* what) {
  if (!state || state->size() == 0) return nullptr;
  if (static_cast<std::size_t>(state->size()) != size) {
    throw Error(std::string("a reset's ") + what + " has " + std::to_string(state->size()) + " numbers; the model has " +
                std::to_string(size));
  }
  return state->data();
}

}  // namespace

void bind_mujoco_reset(py::module_& module) {
  py::class_<MujocoResetOf>(module, "MujocoReset",
                            "coupler::MujocoReset of a MujocoStepper's model and data: `qpos` and `qvel` are the "
                            "data's arrays, `functions` holds mj_resetData and mj_resetDataKeyframe as addresses, "
                            "`start_keyframe` is the keyframe a reset restores (-1: none, the model's reference "
                            "configuration). Keeps all of them alive.")
      .def(py::init<py::object, py::array, py::array, const py::dict&, int>(), py::arg("stepper"), py::arg("qpos"),
           py::arg("qvel"), py::arg("functions"), py::arg("start_keyframe"))
      .def(
          "reset",
          [](MujocoResetOf& r, int keyframe, const State& qpos, const State& qvel) {
            MujocoReset& reset = r.get();
            const double* p = given(qpos, reset.nq(), "qpos");
            const double* v = given(qvel, reset.nv(), "qvel");
            py::gil_scoped_release released;
            reset.reset(keyframe, p, v);
          },
          py::arg("keyframe") = MujocoReset::kStart, py::arg("qpos") = py::none(), py::arg("qvel") = py::none(),
          "Restore `keyframe` (an index the model has; -1: the start keyframe or state), write `qpos` and `qvel` over "
          "it when given (not None nor empty), and settle the state by mj_forward.");
}

}  // namespace coupler::python
