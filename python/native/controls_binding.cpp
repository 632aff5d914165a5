#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <coupler/controller/controls.hpp>
#include <coupler/wire/codec.hpp>

#include "bindings.hpp"
#include "message_objects.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

// A writable array of `size` numbers at `data`, keeping `holds` (the Controls whose arrays they are) alive.
template <typename T>
py::array view(T* data, std::size_t size, const py::dtype& dtype, const py::object& holds) {
  static T nothing{};
  if (data == nullptr) data = &nothing;  // an empty array: NumPy would allocate for null
  return py::array(dtype, {static_cast<py::ssize_t>(size)}, {static_cast<py::ssize_t>(sizeof(T))}, data, holds);
}

py::array values_of(Controls& controls, const std::string& object, const py::object& holds) {
  const Values values = controls.values(object);
  return view(values.data(), values.size(), py::dtype::of<double>(), holds);
}

}  // namespace

void bind_controls(py::module_& module) {
  py::class_<Controls>(module, "Controls",
                       "coupler::Controls of a handshake (given as its encoded frame), for coupler.controller.Controls: "
                       "its arrays as writable NumPy views that keep it alive.")
      .def(py::init([](const py::bytes& handshake) { return Controls(decode_as<HandshakeMessage>(std::string(handshake))); }),
           py::arg("handshake_frame"))
      .def_property_readonly("objects", &Controls::objects, "The objects with controls or events, in name order.")
      .def(
          "values", [](py::object self, const std::string& object) { return values_of(self.cast<Controls&>(), object, self); },
          py::arg("object"), "The object's values in the handshake's control order: a view of all_values.")
      .def(
          "assign",
          [](Controls& c, const std::string& object, const std::vector<double>& values) { c.values(object) = values; },
          py::arg("object"), py::arg("values"), "Set all the object's values; as many as it has controls.")
      .def_property_readonly(
          "all_values",
          [](py::object self) {
            std::vector<double>& values = self.cast<Controls&>().all_values();
            return view(values.data(), values.size(), py::dtype::of<double>(), self);
          },
          "Every value (float64), in the layout's order.")
      .def_property_readonly(
          "events_on",
          [](py::object self) {
            std::vector<std::uint8_t>& events = self.cast<Controls&>().events_on();
            return view(events.data(), events.size(), py::dtype("bool"), self);
          },
          "Every event's flag (bool), in the layout's order.")
      .def("set", &Controls::set, py::arg("object"), py::arg("control"), py::arg("value"))
      .def("get", &Controls::get, py::arg("object"), py::arg("control"))
      .def("event", py::overload_cast<const std::string&, const std::string&, bool>(&Controls::event),
           py::arg("object"), py::arg("name"), py::arg("activated"))
      .def("event_on", py::overload_cast<const std::string&, const std::string&>(&Controls::event, py::const_),
           py::arg("object"), py::arg("name"))
      .def_property("steps", py::overload_cast<>(&Controls::steps, py::const_),
                    py::overload_cast<std::uint64_t>(&Controls::steps))
      .def("message", [](const Controls& c) { return to_python(Message(c.message())); },
           "The ControlMessage (coupler.wire.messages) the arrays hold.")
      .def(
          "frame",
          [](Controls& c, std::optional<std::uint64_t> steps) {
            if (steps) c.steps(*steps);
            return py::bytes(c.frame());
          },
          py::arg("steps") = py::none(), "The Control's frame, encoded straight from the arrays (with `steps`, set first).");
}

}  // namespace coupler::python
