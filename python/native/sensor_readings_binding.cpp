#include <cstdint>
#include <cstring>
#include <optional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <coupler/controller/sensor_readings.hpp>
#include <coupler/wire/codec.hpp>

#include "bindings.hpp"
#include "conversions.hpp"
#include "layout_arrays.hpp"
#include "message_objects.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

// A new float64 array of the numbers.
py::object array_of(const std::vector<double>& numbers) {
  py::object array = zeros(numbers.size(), "float64");
  if (!numbers.empty()) std::memcpy(data_of<double>(array), numbers.data(), numbers.size() * sizeof(double));
  return array;
}

ValueType type_of(int type) { return static_cast<ValueType>(type); }

// A read-only NumPy view of an image's pixels, keeping `holds` (the readings, and so the bytes) alive:
// rgb (H, W, 3) uint8, depth (H, W) float32, segmentation (H, W) int32.
py::array pixels_of(const ImageView& image, const py::object& holds) {
  const auto height = static_cast<py::ssize_t>(image.height), width = static_cast<py::ssize_t>(image.width);
  static const std::uint8_t nothing[4] = {};
  const void* data = image.bytes.data != nullptr ? image.bytes.data : nothing;
  py::array array = image.kind == "rgb"
                        ? py::array(py::dtype::of<std::uint8_t>(), {height, width, py::ssize_t{3}},
                                    {width * 3, py::ssize_t{3}, py::ssize_t{1}}, data, holds)
                        : py::array(image.kind == "depth" ? py::dtype("<f4") : py::dtype("<i4"), {height, width},
                                    {width * 4, py::ssize_t{4}}, data, holds);
  py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return array;
}

}  // namespace

void bind_sensor_readings(py::module_& module) {
  py::class_<SensorReadings>(module, "SensorReadings",
                             "coupler::SensorReadings, for coupler.controller.SensorReadings: lookups by object and "
                             "name, numbers as new float64 arrays, value types as ints.")
      .def_static(
          "of_message",
          [](const py::bytes& handshake, const py::bytes& message, bool after_reset) {
            return SensorReadings(std::make_shared<const HandshakeMessage>(handshake_from(handshake)),
                                  decode_as<SensorMessage>(std::string(message)), after_reset);
          },
          py::arg("handshake_frame"), py::arg("message_frame"), py::arg("after_reset") = false,
          "Readings of an encoded SensorMessage, read through an encoded handshake.")
      .def_static(
          "of_array",
          [](const SensorArrays& layout, const std::vector<double>& values, double simulated_time) {
            return SensorReadings(layout.handshake, layout.shared, values, simulated_time);
          },
          py::arg("layout"), py::arg("values"), py::arg("simulated_time"),
          "Readings of numbers in a coupler._native.SensorLayout's slot order (copied), read through its handshake.")
      .def_property_readonly("time", &SensorReadings::time)
      .def_property_readonly("after_reset", &SensorReadings::after_reset)
      .def_property_readonly(
          "values",
          [](py::object self) -> py::object {
            const SensorReadings& readings = self.cast<const SensorReadings&>();
            if (!readings.of_array()) return py::none();
            const std::vector<double>& values = readings.values();
            static const double nothing = 0.0;
            py::array view(py::dtype::of<double>(), {static_cast<py::ssize_t>(values.size())},
                           {static_cast<py::ssize_t>(sizeof(double))}, values.empty() ? &nothing : values.data(), self);
            py::detail::array_proxy(view.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
            return std::move(view);
          },
          "Readings of an array: its numbers in slot order (a read-only view); None for readings of a message.")
      .def("message", [](const SensorReadings& r) { return to_python(Message(r.message())); },
           "The SensorMessage (coupler.wire.messages), built from the array for readings of one.")
      .def(
          "images",
          [](py::object self) {
            py::dict cameras;
            for (const auto& [camera, images] : self.cast<const SensorReadings&>().images()) {
              py::dict kinds;
              for (const std::optional<ImageView>* view : {&images.rgb, &images.depth, &images.segmentation}) {
                if (*view) kinds[py::str((*view)->kind)] = pixels_of(**view, self);
              }
              cameras[py::str(camera)] = py::make_tuple(images.time, kinds);
            }
            return cameras;
          },
          "SensorReadings::images(): camera -> (time, kind -> read-only array viewing the pixels).")
      .def("angles", [](const SensorReadings& r, const std::string& o) { return array_of(r.angles(o)); })
      .def("angular_velocities",
           [](const SensorReadings& r, const std::string& o) { return array_of(r.angular_velocities(o)); })
      .def("torques", [](const SensorReadings& r, const std::string& o) { return array_of(r.torques(o)); })
      .def("angle", &SensorReadings::angle)
      .def("angular_velocity", &SensorReadings::angular_velocity)
      .def("torque", &SensorReadings::torque)
      .def("joint_types",
           [](const SensorReadings& r, const std::string& o, const std::string& joint) {
             std::vector<int> types;
             for (const ValueType type : r.joint_types(o, joint)) types.push_back(static_cast<int>(type));
             return types;
           })
      .def(
          "sensor",
          [](const SensorReadings& r, const std::string& o, const std::string& name) {
            py::list readings;
            for (const Sensor& s : r.sensor(o, name)) {
              readings.append(py::make_tuple(static_cast<int>(s.type), py::tuple(py::cast(s.value))));
            }
            return readings;
          },
          "The sensor's readings as (type, numbers) pairs.")
      .def("sensor_value",
           [](const SensorReadings& r, const std::string& o, const std::string& name, int type) {
             return array_of(r.sensor(o, name, type_of(type)));
           })
      .def("object_sensor", [](const SensorReadings& r, const std::string& o, int type) {
        return array_of(r.object_sensor(o, type_of(type)));
      });
}

}  // namespace coupler::python
