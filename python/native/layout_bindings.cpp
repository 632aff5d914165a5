#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <pybind11/stl.h>

#include <coupler/wire/codec.hpp>
#include <coupler/wire/control_layout.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/wire/sensor_layout.hpp>
#include <coupler/transport/server.hpp>

#include "bindings.hpp"
#include "conversions.hpp"
#include "layout_arrays.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

// The ObjectSensors attribute each part fills, so Python can use the names as they are.
const char* part_name(SensorSlot::Part part) {
  switch (part) {
    case SensorSlot::Part::Angles: return "angles";
    case SensorSlot::Part::AngularVelocities: return "angular_velocities";
    case SensorSlot::Part::Torques: return "torques";
    case SensorSlot::Part::Forces: return "forces";
    case SensorSlot::Part::ObjectSensor: return "object_sensors";
    case SensorSlot::Part::NamedSensor: return "sensors";
  }
  return "";
}

}  // namespace

void bind_layouts(py::module_& module) {
  py::class_<SensorSlot>(module, "SensorSlot", "Where one group of a SensorMessage's numbers sits in the array.")
      .def_readonly("object", &SensorSlot::object)
      .def_property_readonly("part", [](const SensorSlot& s) { return part_name(s.part); },
                             "The ObjectSensors attribute: angles, angular_velocities, torques, forces, "
                             "object_sensors or sensors.")
      .def_readonly("sensor", &SensorSlot::sensor, "For part 'sensors': the sensor's name.")
      .def_readonly("index", &SensorSlot::index, "For object_sensors and sensors: the reading's place in its list.")
      .def_property_readonly("type", [](const SensorSlot& s) { return static_cast<int>(s.type); })
      .def_readonly("offset", &SensorSlot::offset)
      .def_readonly("size", &SensorSlot::size)
      .def("__repr__", [](const SensorSlot& s) {
        return "SensorSlot(" + s.object + "." + part_name(s.part) + (s.sensor.empty() ? "" : "." + s.sensor) + "[" +
               std::to_string(s.index) + "] at " + std::to_string(s.offset) + ", " + std::to_string(s.size) + ")";
      });

  py::class_<SensorArrays>(module, "SensorLayout",
                           "coupler::SensorLayout of a handshake (given as its encoded frame), with the float64 "
                           "array `values` that encode() sends.")
      .def(py::init<const py::bytes&>(), py::arg("handshake_frame"))
      .def_property_readonly("size", [](const SensorArrays& s) { return s.layout.size(); })
      .def_property_readonly("slots", [](const SensorArrays& s) { return s.layout.slots(); })
      .def_readonly("values", &SensorArrays::values, "The numbers to send, in slot order.")
      .def(
          "encode",
          [](SensorArrays& s, double simulated_time) { return py::bytes(s.layout.encode(s.data, simulated_time)); },
          py::arg("simulated_time"),
          "The SensorMessage frame of `values` at this time, byte for byte as coupler.wire.codec.encode writes it.")
      .def("read", &SensorArrays::read, py::arg("frame"),
           "For a frame coupler.wire.codec.decode reads as a SensorMessage of exactly this layout's shape: a new "
           "float64 array of its numbers in slot order (ACTIVATED readings as 1.0 or 0.0) and its simulated time. "
           "None for any other frame (another message kind or shape, or no valid message), for the codec to read.");

  py::class_<ControlLayout::Object>(module, "ControlObject", "Where one object's controls sit in the arrays.")
      .def_readonly("name", &ControlLayout::Object::name)
      .def_readonly("offset", &ControlLayout::Object::offset)
      .def_readonly("size", &ControlLayout::Object::size)
      .def_readonly("event_offset", &ControlLayout::Object::event_offset)
      .def_readonly("events", &ControlLayout::Object::events);

  py::class_<ControlArrays> control_layout(module, "ControlLayout",
                            "coupler::ControlLayout of a handshake (given as its encoded frame), with the arrays "
                            "read() fills: values (float64), values_set (bool, per object), events_set and "
                            "events_on (bool, per event).");
  control_layout.attr("MAX_STEPS") = ControlLayout::kMaxSteps;  // the most steps one Control may ask for
  control_layout.def(py::init<const py::bytes&>(), py::arg("handshake_frame"))
      .def_property_readonly("size", [](const ControlArrays& c) { return c.layout.size(); })
      .def_property_readonly("event_count", [](const ControlArrays& c) { return c.layout.event_count(); })
      .def_property_readonly("objects", [](const ControlArrays& c) { return c.layout.objects(); })
      .def_readonly("values", &ControlArrays::values)
      .def_readonly("values_set", &ControlArrays::values_set)
      .def_readonly("events_set", &ControlArrays::events_set)
      .def_readonly("events_on", &ControlArrays::events_on)
      .def("read", &ControlArrays::read, py::arg("request"),
           "Check the request's Control against the handshake and write it to the arrays; return its steps field. "
           "Raises coupler.wire.errors.ProtocolError (CONTROL_MISMATCH) naming the problem, writing nothing.")
      .def(
          "decode",
          [](const ControlArrays& c, const py::bytes& frame) {
            return c.layout.decode(std::string(frame), c.targets);
          },
          py::arg("frame"), "read() for an encoded ControlMessage.")
      .def(
          "encode",
          [](ControlArrays& c, std::uint64_t steps) {
            return py::bytes(c.layout.encode(c.targets.values, c.targets.events_on, steps));
          },
          py::arg("steps"),
          "The ControlMessage frame of `values` and `events_on`: every object with controls or events, all its "
          "values and events, and `steps`; byte for byte as coupler.wire.codec.encode writes the same message.");
}

}  // namespace coupler::python
