#pragma once
// ControlScatter and SensorGather as coupler._native holds them, with the
// NumPy arrays they write and read, for the bindings that apply and gather
// through them (coupler._native.HotPath).

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <coupler/serve/control_scatter.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/serve/sensor_gather.hpp>

namespace coupler::python {

namespace py = pybind11;

// NumPy arrays are taken without conversion: a copy would leave C++ writing
// to, or reading from, memory nobody else sees.
using Doubles = py::array_t<double, py::array::c_style>;
using Flags = py::array_t<bool, py::array::c_style>;

// Sources may have any shape (their numbers are indexed flat); the arrays of a layout are one-dimensional.
inline constexpr std::size_t kAnySize = static_cast<std::size_t>(-1);

template <class Array>
Array checked(const py::handle& object, std::size_t size, const char* what) {
  if (!Array::check_(object)) {
    throw Error(std::string(what) + " must be a C-contiguous NumPy array of " +
                (std::is_same_v<Array, Doubles> ? "float64" : "bool"));
  }
  auto array = py::reinterpret_borrow<Array>(object);
  if (size != kAnySize && (array.ndim() != 1 || static_cast<std::size_t>(array.size()) != size)) {
    throw Error(std::string(what) + " must hold " + std::to_string(size) + " numbers in one dimension, not " +
                std::to_string(array.size()));
  }
  return array;
}

// The arrays a ControlScatter writes poses to (empty ones for None), kept alive as long as it is.
struct PoseArrays {
  PoseArrays(const py::handle& position, const py::handle& quaternion)
      : position(optional(position, "the pose positions")), quaternion(optional(quaternion, "the pose quaternions")) {}

  static Doubles optional(const py::handle& array, const char* what) {
    return array.is_none() ? Doubles() : checked<Doubles>(array, kAnySize, what);
  }

  ControlScatter::PoseTargets targets() {
    return {position.mutable_data(), static_cast<std::size_t>(position.size()), quaternion.mutable_data(),
            static_cast<std::size_t>(quaternion.size())};
  }

  Doubles position;
  Doubles quaternion;
};

// A ControlScatter with the arrays it writes to, kept alive as long as it is.
struct ScatterInto {
  ScatterInto(const py::handle& target, std::size_t object_count, std::vector<ControlScatter::Value> values,
              std::vector<ControlScatter::Event> events, const py::handle& pose_position = py::none(),
              const py::handle& pose_quaternion = py::none(), std::vector<ControlScatter::Pose> poses = {},
              double max_control = std::numeric_limits<double>::infinity())
      : array(checked<Doubles>(target, kAnySize, "the control array")),
        pose_arrays(pose_position, pose_quaternion),
        scatter(array.mutable_data(), static_cast<std::size_t>(array.size()), object_count, std::move(values),
                std::move(events), pose_arrays.targets(), std::move(poses), max_control) {}

  std::vector<std::size_t> apply(const py::handle& values, const py::handle& values_set, const py::handle& events_set,
                                 const py::handle& events_on) const {
    const auto v = checked<Doubles>(values, scatter.value_count(), "values");
    const auto set = checked<Flags>(values_set, scatter.object_count(), "values_set");
    const auto e_set = checked<Flags>(events_set, scatter.event_count(), "events_set");
    const auto e_on = checked<Flags>(events_on, scatter.event_count(), "events_on");
    return scatter.apply(v.data(), reinterpret_cast<const std::uint8_t*>(set.data()),
                         reinterpret_cast<const std::uint8_t*>(e_set.data()),
                         reinterpret_cast<const std::uint8_t*>(e_on.data()));
  }

  void check(const py::handle& values, const py::handle& values_set, const std::string& where) const {
    const auto v = checked<Doubles>(values, scatter.value_count(), "values");
    const auto set = checked<Flags>(values_set, scatter.object_count(), "values_set");
    scatter.check(v.data(), reinterpret_cast<const std::uint8_t*>(set.data()), where);
  }

  Doubles array;
  PoseArrays pose_arrays;
  ControlScatter scatter;
};

// A SensorGather with the arrays it reads from, kept alive as long as it is.
struct GatherFrom {
  explicit GatherFrom(std::size_t size) : gather(size) {}

  void add_copies(const py::handle& source, const std::vector<std::size_t>& places,
                  const std::vector<std::size_t>& sources) {
    auto array = checked<Doubles>(source, kAnySize, "a gathered source");
    gather.add_copies(array.data(), static_cast<std::size_t>(array.size()), places, sources);
    sources_.push_back(std::move(array));
  }

  void add_rotations(const py::handle& source, const std::vector<std::size_t>& places,
                     const std::vector<std::size_t>& starts) {
    auto array = checked<Doubles>(source, kAnySize, "a gathered source");
    gather.add_rotations(array.data(), static_cast<std::size_t>(array.size()), places, starts);
    sources_.push_back(std::move(array));
  }

  void into(const py::handle& out) const {
    auto array = checked<Doubles>(out, gather.size(), "the sensor array");
    gather.gather(array.mutable_data());
  }

  SensorGather gather;

 private:
  std::vector<Doubles> sources_;
};

}  // namespace coupler::python
