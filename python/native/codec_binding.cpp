// coupler.wire.codec's encode and decode: the C++ codec, with the messages
// crossing as the coupler.wire.messages dataclasses (message_objects.cpp);
// and for coupler.wire.world_frames the "worlds" extension's Control and
// answer with their numbers as NumPy arrays, without a list of Python floats
// between.

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/stl.h>

#include <coupler/wire/codec.hpp>

#include "bindings.hpp"
#include "conversions.hpp"
#include "message_objects.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

// ---- The "worlds" extension's arrays

std::vector<double> doubles(const py::buffer& array) {
  const py::buffer_info info = array.request();
  if (info.itemsize != sizeof(double) || info.format != py::format_descriptor<double>::format()) {
    throw py::type_error("expected a contiguous array of float64");
  }
  const auto* first = static_cast<const double*>(info.ptr);
  return {first, first + info.size};
}

template <class T>
py::object array(const std::vector<T>& values, const char* dtype) {
  py::object out = zeros(values.size(), dtype);
  if (!values.empty()) std::memcpy(data_of<T>(out), values.data(), values.size() * sizeof(T));
  return out;
}

py::bytes encode_world_control(std::uint32_t worlds, const py::buffer& controls, std::uint64_t steps,
                               const std::vector<std::uint32_t>& resets, const py::buffer& qpos, const py::buffer& qvel,
                               const std::vector<std::pair<std::string, std::vector<std::string>>>& images,
                               const std::vector<std::uint32_t>& image_worlds, bool shared_memory) {
  ControlMessage message;
  message.shared_memory = shared_memory;
  for (const auto& [camera, kinds] : images) message.images.push_back({camera, kinds, std::nullopt});
  message.image_worlds = image_worlds;
  message.worlds = worlds;
  message.world_controls = doubles(controls);
  message.steps = steps;
  message.reset_worlds = resets;
  message.reset_qpos = doubles(qpos);
  message.reset_qvel = doubles(qvel);
  return py::bytes(encode(message));
}

py::object read_world_control(const py::bytes& frame) {
  const ControlMessage control = decode_as<ControlMessage>(std::string_view(frame));
  if (control.worlds == 0 && control.world_controls.empty() && control.reset_worlds.empty() &&
      control.reset_qpos.empty() && control.reset_qvel.empty() && control.image_worlds.empty()) {
    return py::none();
  }
  std::vector<std::int64_t> resets(control.reset_worlds.begin(), control.reset_worlds.end());
  std::vector<std::int64_t> image_worlds(control.image_worlds.begin(), control.image_worlds.end());
  return py::make_tuple(control.worlds, array(control.world_controls, "float64"), control.steps,
                        array(resets, "int64"), array(control.reset_qpos, "float64"),
                        array(control.reset_qvel, "float64"), array(image_worlds, "int64"));
}

// (camera, kind, width, height, C-contiguous array) each: the Images of a SensorMessage.
std::vector<Image> images_of(const py::list& images, bool timed) {
  std::vector<Image> out;
  out.reserve(images.size());
  for (py::handle image : images) {
    const py::tuple t = image.cast<py::tuple>();
    const py::buffer_info info = t[timed ? 5 : 4].cast<py::buffer>().request();
    out.push_back({t[0].cast<std::string>(), t[1].cast<std::string>(), t[2].cast<std::uint32_t>(),
                   t[3].cast<std::uint32_t>(), timed ? t[4].cast<double>() : 0.0,
                   std::string(static_cast<const char*>(info.ptr), static_cast<std::size_t>(info.size * info.itemsize))});
  }
  return out;
}

py::object read_world_sensors(const py::bytes& frame) {
  const Message message = decode(std::string_view(frame));
  const auto* sensors = std::get_if<SensorMessage>(&message);
  if (sensors == nullptr) return py::none();
  py::list images;
  for (const Image& image : sensors->world_images) {
    // Pixels in shared memory: where they lie, for the client's mapping of the ring to view.
    py::object pixels = image.shared ? to_python(image.shared) : py::object(py::bytes(image.data));
    images.append(py::make_tuple(image.camera, image.kind, image.width, image.height, pixels));
  }
  std::vector<std::int64_t> image_worlds(sensors->image_worlds.begin(), sensors->image_worlds.end());
  return py::make_tuple(array(sensors->world_sensors, "float64"), array(sensors->world_times, "float64"),
                        array(sensors->world_data, "float64"), images, array(image_worlds, "int64"),
                        to_python(sensors->world_sensors_shared), to_python(sensors->world_data_shared));
}

py::object message_kind_of(const py::bytes& frame) {
  const std::optional<MessageType> kind = message_kind(std::string_view(frame));
  return kind ? py::object(py::int_(static_cast<int>(*kind))) : py::object(py::none());
}

py::object decode_images(const py::bytes& frame) {
  Message message = decode(std::string_view(frame));
  auto* sensors = std::get_if<SensorMessage>(&message);
  if (sensors == nullptr || (sensors->images.empty() && sensors->world_images.empty())) return py::none();
  // The readings are left in C++: a recorder looks at the images of every answer, and the readings of none.
  sensors->objects.clear();
  sensors->world_sensors.clear();
  sensors->world_data.clear();
  return to_python(message);
}

py::bytes encode_image_fields_of(const py::list& images) { return py::bytes(encode_image_fields(images_of(images, true))); }

}  // namespace

void bind_codec(py::module_& module) {
  module.def("encode_image_fields", &encode_image_fields_of, py::arg("images"),
             "The images field of a SensorMessage alone, from (camera, kind, width, height, time, C-contiguous "
             "array) each: appended to a SensorMessage frame of no images, the frame of that message with them.");
  module.def(
      "encode",
      [](const py::handle& message) { return py::bytes(encode(to_message(message))); },
      py::arg("message"), "coupler.wire.codec.encode: the message's frame, as the C++ codec writes it.");
  module.def(
      "decode",
      [](const py::bytes& frame) { return to_python(coupler::decode(std::string_view(frame))); },
      py::arg("frame"), "coupler.wire.codec.decode: the frame's message, as the C++ codec reads it.");
  module.def("message_kind", &message_kind_of, py::arg("frame"),
             "coupler::message_kind: the MessageType number of the frame's field 1, read without decoding the "
             "rest (none: a HandshakeInit, as decode reads it); None for an unknown kind or a malformed top level.");
  module.def("decode_images", &decode_images, py::arg("frame"),
             "The SensorMessage of the frame without its readings (objects, world sensors and world data left "
             "empty), or None for a frame of another kind or without images; ProtocolError as decode.");
  module.def("encode_world_control", &encode_world_control, py::arg("worlds"), py::arg("controls"), py::arg("steps"),
             py::arg("resets"), py::arg("qpos"), py::arg("qvel"), py::arg("images") = py::list(),
             py::arg("image_worlds") = std::vector<std::uint32_t>(), py::arg("shared_memory") = false,
             "The ControlMessage frame of a Control for every world, from float64 arrays, asking for the images "
             "(camera, kinds) of the worlds image_worlds lists (empty: every world), and with shared_memory for "
             "the answer's big arrays through the ring the handshake announced.");
  module.def("read_world_control", &read_world_control, py::arg("frame"),
             "(worlds, controls, steps, resets, qpos, qvel, image_worlds) of a Control for every world, or None for "
             "an ordinary Control.");
  module.def("read_world_sensors", &read_world_sensors, py::arg("frame"),
             "(world sensors, world times, world data, images, image worlds, world sensors' SharedSlice, world "
             "data's SharedSlice) of the answer to a Control for every world, images as (camera, kind, width, "
             "height, bytes or SharedSlice) each, the slices None unless the arrays lie in shared memory; None for "
             "a message of another kind.");
}

}  // namespace coupler::python
