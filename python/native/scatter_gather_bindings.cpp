#include <cstdint>
#include <limits>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <coupler/serve/control_scatter.hpp>
#include <coupler/serve/quaternion_length.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/serve/sensor_gather.hpp>

#include "bindings.hpp"
#include "scatter_gather_arrays.hpp"

namespace py = pybind11;

namespace coupler::python {

void bind_scatter_gather(py::module_& module) {
  py::class_<ControlScatter::Value>(module, "ScatteredValue")
      .def(py::init([](std::size_t object, std::size_t place, double scale, double low, double high, double divisor,
                       std::string object_name, std::string control) {
             return ControlScatter::Value{object, place, scale, low, high, divisor, std::move(object_name),
                                          std::move(control)};
           }),
           py::arg("object"), py::arg("place"), py::arg("scale"), py::arg("low"), py::arg("high"),
           py::arg("divisor") = 1.0, py::arg("object_name") = "", py::arg("control") = "");
  py::class_<ControlScatter::Event>(module, "ScatteredEvent")
      .def(py::init([](std::size_t place, double off, double on) { return ControlScatter::Event{place, off, on}; }),
           py::arg("place"), py::arg("off"), py::arg("on"));

  py::class_<ControlScatter::Pose>(module, "ScatteredPose")
      .def(py::init([](std::size_t object, std::size_t first, std::size_t body, std::string name) {
             return ControlScatter::Pose{object, first, body, std::move(name)};
           }),
           py::arg("object"), py::arg("first"), py::arg("body"), py::arg("name"));

  py::class_<ScatterInto>(module, "ControlScatter",
                          "coupler::ControlScatter writing into `target` and, for `poses`, into `pose_position` and "
                          "`pose_quaternion` (float64 NumPy arrays it keeps alive); it refuses a Control writing a "
                          "number larger in magnitude than `max_control` (MuJoCo's mjMAXVAL).")
      .def(py::init<const py::handle&, std::size_t, std::vector<ControlScatter::Value>,
                    std::vector<ControlScatter::Event>, const py::handle&, const py::handle&,
                    std::vector<ControlScatter::Pose>, double>(),
           py::arg("target"), py::arg("object_count"), py::arg("values"), py::arg("events"),
           py::arg("pose_position") = py::none(), py::arg("pose_quaternion") = py::none(),
           py::arg("poses") = std::vector<ControlScatter::Pose>{},
           py::arg("max_control") = std::numeric_limits<double>::infinity())
      .def_property_readonly_static(
          "POSE_CONTROLS",
          [](const py::object&) {
            return std::vector<std::string>(std::begin(ControlScatter::kPoseControls),
                                            std::end(ControlScatter::kPoseControls));
          },
          "The names of a pose's seven values, in the order the scatter takes them: x, y, z, then qw, qx, qy, qz.")
      .def_property_readonly("pose_count", [](const ScatterInto& s) { return s.scatter.pose_count(); })
      .def("apply", &ScatterInto::apply, py::arg("values"), py::arg("values_set"), py::arg("events_set"),
           py::arg("events_on"),
           "Write the Control held in a ControlLayout's arrays; return the indices of what was not written as sent "
           "(a quaternion normalised: its qw; a value outside its range). ProtocolError (CONTROL_MISMATCH), with "
           "nothing written, for what `check` refuses.")
      .def("check", &ScatterInto::check, py::arg("values"), py::arg("values_set"), py::arg("where") = "",
           "ProtocolError (CONTROL_MISMATCH) naming the first value set beyond its limit, and its limit, else the "
           "first pose set with a zero quaternion, its body's name; each followed by `where`.");
  module.def("quaternion_length", &quaternion_length, py::arg("w"), py::arg("x"), py::arg("y"), py::arg("z"),
             "The length of the quaternion (w, x, y, z) as the scatter computes it (math.hypot's, bit for bit).");

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
