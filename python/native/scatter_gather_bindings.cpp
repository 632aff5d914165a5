#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <coupler/control_scatter.hpp>
#include <coupler/error.hpp>
#include <coupler/sensor_gather.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

// NumPy arrays are taken without conversion: a copy would leave C++ writing
// to, or reading from, memory nobody else sees.
using Doubles = py::array_t<double, py::array::c_style>;
using Flags = py::array_t<bool, py::array::c_style>;

// Sources may have any shape (their numbers are indexed flat); the arrays of a layout are one-dimensional.
constexpr std::size_t kAnySize = static_cast<std::size_t>(-1);

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

// A ControlScatter with the array it writes to, kept alive as long as it is.
struct ScatterInto {
  ScatterInto(const py::handle& target, std::size_t object_count, std::vector<ControlScatter::Value> values,
              std::vector<ControlScatter::Event> events)
      : array(checked<Doubles>(target, kAnySize, "the control array")),
        scatter(array.mutable_data(), static_cast<std::size_t>(array.size()), object_count, std::move(values),
                std::move(events)) {}

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

  Doubles array;
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

}  // namespace

void bind_scatter_gather(py::module_& module) {
  py::class_<ControlScatter::Value>(module, "ScatteredValue")
      .def(py::init([](std::size_t object, std::size_t place, double scale, double low, double high) {
             return ControlScatter::Value{object, place, scale, low, high};
           }),
           py::arg("object"), py::arg("place"), py::arg("scale"), py::arg("low"), py::arg("high"));
  py::class_<ControlScatter::Event>(module, "ScatteredEvent")
      .def(py::init([](std::size_t place, double off, double on) { return ControlScatter::Event{place, off, on}; }),
           py::arg("place"), py::arg("off"), py::arg("on"));

  py::class_<ScatterInto>(module, "ControlScatter",
                          "coupler::ControlScatter writing into `target` (a float64 NumPy array it keeps alive).")
      .def(py::init<const py::handle&, std::size_t, std::vector<ControlScatter::Value>,
                    std::vector<ControlScatter::Event>>(),
           py::arg("target"), py::arg("object_count"), py::arg("values"), py::arg("events"))
      .def("apply", &ScatterInto::apply, py::arg("values"), py::arg("values_set"), py::arg("events_set"),
           py::arg("events_on"),
           "Write the Control held in a ControlLayout's arrays; return the indices of values outside their range.");

  py::class_<GatherFrom>(module, "SensorGather",
                         "coupler::SensorGather filling arrays of `size` float64 numbers from NumPy arrays it keeps "
                         "alive (and reads afresh on every gather).")
      .def(py::init<std::size_t>(), py::arg("size"))
      .def("add_copies", &GatherFrom::add_copies, py::arg("source"), py::arg("places"), py::arg("sources"))
      .def("add_rotations", &GatherFrom::add_rotations, py::arg("source"), py::arg("places"), py::arg("starts"))
      .def("gather", &GatherFrom::into, py::arg("out"), "Read every source into `out`.");
  module.def(
      "quaternion_to_rpy",
      [](double w, double x, double y, double z) {
        const auto rpy = quaternion_to_rpy(w, x, y, z);
        return py::make_tuple(rpy[0], rpy[1], rpy[2]);
      },
      py::arg("w"), py::arg("x"), py::arg("y"), py::arg("z"),
      "Roll, pitch, yaw (rad) of the unit quaternion (w, x, y, z), as SensorGather computes them.");
}

}  // namespace coupler::python
