#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <coupler/serve/world_control_check.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

template <typename T>
using Array = py::array_t<T, py::array::c_style | py::array::forcecast>;

template <typename To, typename From>
std::vector<To> copied(const Array<From>& array) {
  const From* data = array.data();
  return std::vector<To>(data, data + array.size());
}

// The problem of a Control for every world read as arrays (coupler.wire.world_frames.WorldControl).
std::optional<std::string> world_control_problem_of(std::uint32_t worlds, std::uint64_t steps,
                                                    const Array<double>& controls, const Array<std::int64_t>& resets,
                                                    const Array<double>& qpos, const Array<double>& qvel,
                                                    const WorldControlShape& shape) {
  ControlMessage control;
  control.worlds = worlds;
  control.steps = steps;
  control.world_controls = copied<double>(controls);
  // Read from a frame's uint32 list, so every index fits.
  control.reset_worlds = copied<std::uint32_t>(resets);
  control.reset_qpos = copied<double>(qpos);
  control.reset_qvel = copied<double>(qvel);
  return world_control_problem(control, shape);
}

}  // namespace

void bind_world_control_check(py::module_& module) {
  py::class_<WorldControlShape>(module, "WorldControlShape",
                                "coupler::WorldControlShape (coupler/serve/world_control_check.hpp): what a batched "
                                "server's Controls for every world must fit.")
      .def(py::init([](std::size_t worlds, std::size_t control_width, std::size_t nq, std::size_t nv) {
             return WorldControlShape{worlds, control_width, nq, nv};
           }),
           py::arg("worlds"), py::arg("control_width"), py::arg("nq"), py::arg("nv"));
  module.def("world_control_problem", &world_control_problem_of, py::arg("worlds"), py::arg("steps"),
             py::arg("controls"), py::arg("resets"), py::arg("qpos"), py::arg("qvel"), py::arg("shape"),
             "coupler::world_control_problem: the first thing wrong with a Control for every world, in one line; "
             "None when nothing is.");
}

}  // namespace coupler::python
