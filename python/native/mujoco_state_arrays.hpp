#pragma once
// The MuJoCo state a hot path publishes after a step, read where mjData's
// arrays lie (hot_path_binding.cpp, world_steps_binding.cpp).

#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <coupler/serve/mujoco_state.hpp>
#include <coupler/wire/error.hpp>

namespace coupler::python {

namespace py = pybind11;

// One of mjData's arrays as the `mujoco` package views it: read where it lies (a converted copy would never change).
inline DoubleArray live(const py::object& values, const char* what) {
  if (!py::isinstance<py::array_t<double>>(values)) throw Error(std::string(what) + " must be a float64 NumPy array");
  const auto array = values.cast<py::array>();
  // Any shape (mocap_pos is one row per body): the numbers are written in their order in memory.
  if (!(array.flags() & py::array::c_style)) throw Error(std::string(what) + " must be a contiguous array");
  return DoubleArray{static_cast<const double*>(array.data()), static_cast<std::size_t>(array.size())};
}

// The arrays of `state`, a tuple (qpos, qvel, act, ctrl, mocap_pos, mocap_quat) of one mjData's arrays, which must
// be kept alive as long as they are read.
inline MujocoStateArrays mujoco_state_arrays(const py::object& state) {
  const auto parts = state.cast<py::tuple>();
  if (parts.size() != 6) throw Error("the state to publish is (qpos, qvel, act, ctrl, mocap_pos, mocap_quat)");
  return MujocoStateArrays{live(parts[0], "qpos"), live(parts[1], "qvel"),      live(parts[2], "act"),
                           live(parts[3], "ctrl"), live(parts[4], "mocap_pos"), live(parts[5], "mocap_quat")};
}

}  // namespace coupler::python
