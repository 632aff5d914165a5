// coupler.wire.codec's encode and decode: the C++ codec, with the messages
// crossing as the coupler.wire.messages dataclasses; and for
// coupler.wire.world_frames the "worlds" extension's Control and answer with
// their numbers as NumPy arrays, without a list of Python floats between.

#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/stl.h>

#include <coupler/wire/codec.hpp>
#include <coupler/wire/error.hpp>

#include "bindings.hpp"
#include "conversions.hpp"
#include "message_objects.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

// The classes and enum members of coupler.wire.messages, looked up once.
// Leaked on purpose: releasing Python objects from a static destructor, after
// the interpreter has finalized, would crash at exit.
struct Vocabulary {
  py::object handshake_init, handshake, object_description, range, server_info;
  py::object control, object_control, sensor_message, object_sensors, sensor;
  py::object sensor_request, reset, error;
  py::object camera, image_request, image, shared_slice, shared_memory_ring;
  std::map<int, py::object> value_types;
  std::map<int, py::object> error_codes;
  std::map<ControlField, py::object> control_fields;
  std::map<std::string, ControlField> control_field_names;

  Vocabulary() {
    py::module_ m = py::module_::import("coupler.wire.messages");
    handshake_init = m.attr("HandshakeInitMessage");
    handshake = m.attr("HandshakeMessage");
    object_description = m.attr("ObjectDescription");
    range = m.attr("Range");
    server_info = m.attr("ServerInfo");
    control = m.attr("ControlMessage");
    object_control = m.attr("ObjectControl");
    sensor_message = m.attr("SensorMessage");
    object_sensors = m.attr("ObjectSensors");
    sensor = m.attr("Sensor");
    sensor_request = m.attr("SensorRequestMessage");
    reset = m.attr("ResetMessage");
    error = m.attr("ErrorMessage");
    camera = m.attr("CameraDescription");
    image_request = m.attr("ImageRequest");
    image = m.attr("Image");
    shared_slice = m.attr("SharedSlice");
    shared_memory_ring = m.attr("SharedMemoryRing");
    for (py::handle member : m.attr("ValueType")) value_types[member.cast<int>()] = py::reinterpret_borrow<py::object>(member);
    for (py::handle member : m.attr("ErrorCode")) error_codes[member.cast<int>()] = py::reinterpret_borrow<py::object>(member);
    const std::pair<ControlField, const char*> fields[] = {{ControlField::Values, "VALUES"},
                                                           {ControlField::Angles, "ANGLES"},
                                                           {ControlField::AngularVelocities, "ANGULAR_VELOCITIES"},
                                                           {ControlField::Torques, "TORQUES"}};
    for (const auto& [field, name] : fields) {
      control_fields[field] = m.attr("ControlField").attr(name);
      control_field_names[control_fields[field].attr("value").cast<std::string>()] = field;
    }
  }
};

const Vocabulary& vocabulary() {
  static const Vocabulary* const known = new Vocabulary();
  return *known;
}

// ---- Python -> C++

template <class T>
T field(const py::handle& message, const char* name) {
  return message.attr(name).cast<T>();
}

std::vector<ValueType> value_types(const py::handle& values) {
  std::vector<ValueType> types;
  for (py::handle value : values) types.push_back(static_cast<ValueType>(value.cast<int>()));
  return types;
}

std::vector<Range> ranges(const py::handle& values) {
  std::vector<Range> out;
  for (py::handle r : values) out.push_back({field<double>(r, "min"), field<double>(r, "max"), field<bool>(r, "limited")});
  return out;
}

ObjectDescription object_description(const py::handle& in) {
  ObjectDescription out;
  out.controls = field<std::vector<std::string>>(in, "controls");
  out.control_types = value_types(in.attr("control_types"));
  out.joint_sensors = field<std::vector<std::string>>(in, "joint_sensors");
  out.joint_sensor_types = value_types(in.attr("joint_sensor_types"));
  for (auto [event, type] : in.attr("control_events").cast<py::dict>()) {
    out.control_events[event.cast<std::string>()] = static_cast<ValueType>(type.cast<int>());
  }
  for (auto [sensor, types] : in.attr("sensors").cast<py::dict>()) out.sensors[sensor.cast<std::string>()] = value_types(types);
  out.object_sensors = value_types(in.attr("object_sensors"));
  out.control_targets = field<std::vector<std::string>>(in, "control_targets");
  out.control_ranges = ranges(in.attr("control_ranges"));
  out.joint_limits = ranges(in.attr("joint_limits"));
  out.sensor_units = field<std::map<std::string, std::string>>(in, "sensor_units");
  out.joint_types = value_types(in.attr("joint_types"));
  out.control_meanings = field<std::vector<std::string>>(in, "control_meanings");
  return out;
}

CameraDescription camera(const py::handle& in) {
  return {field<std::string>(in, "name"), field<std::uint32_t>(in, "width"), field<std::uint32_t>(in, "height"),
          field<std::vector<std::string>>(in, "kinds"), field<double>(in, "fx"), field<double>(in, "fy"),
          field<double>(in, "cx"), field<double>(in, "cy"), field<double>(in, "near"), field<double>(in, "far"),
          field<std::string>(in, "body"), field<std::vector<double>>(in, "position"),
          field<std::vector<double>>(in, "quaternion")};
}

std::vector<ImageRequest> image_requests(const py::handle& in) {
  std::vector<ImageRequest> out;
  for (py::handle r : in.attr("images")) {
    ImageRequest request{field<std::string>(r, "camera"), field<std::vector<std::string>>(r, "kinds"), std::nullopt};
    const py::object every = r.attr("every");
    if (!every.is_none()) request.every = every.cast<std::uint32_t>();
    out.push_back(std::move(request));
  }
  return out;
}

HandshakeMessage handshake(const py::handle& in) {
  HandshakeMessage out;
  for (auto [name, object] : in.attr("objects").cast<py::dict>()) out.objects[name.cast<std::string>()] = object_description(object);
  out.time_step = field<double>(in, "time_step");
  out.version = field<int>(in, "version");
  const py::object control_type = in.attr("control_type");
  if (!control_type.is_none()) out.control_type = static_cast<ValueType>(control_type.cast<int>());
  const py::object server = in.attr("server");
  if (!server.is_none()) {
    out.server = ServerInfo{field<std::string>(server, "name"), field<std::string>(server, "version"),
                            field<std::vector<std::string>>(server, "extensions")};
  }
  out.worlds = field<std::uint32_t>(in, "worlds");
  out.keyframes = field<std::vector<std::string>>(in, "keyframes");
  for (py::handle c : in.attr("cameras").attr("values")()) out.cameras.push_back(camera(c));
  out.max_image_width = field<std::uint32_t>(in, "max_image_width");
  out.max_image_height = field<std::uint32_t>(in, "max_image_height");
  const py::object ring = in.attr("shared_memory");
  if (!ring.is_none()) {
    out.shared_memory = SharedMemoryRing{field<std::string>(ring, "path"), field<std::uint32_t>(ring, "slots"),
                                         field<std::uint64_t>(ring, "slot_bytes"),
                                         field<std::uint64_t>(ring, "data_offset"),
                                         field<std::uint64_t>(ring, "min_bytes")};
  }
  out.shared_channel = field<std::string>(in, "shared_channel");
  return out;
}

ResetMessage reset(const py::handle& in) {
  ResetMessage out{field<std::vector<double>>(in, "qpos"), field<std::vector<double>>(in, "qvel"),
                   field<std::string>(in, "keyframe"), std::nullopt};
  const py::object index = in.attr("keyframe_index");
  if (!index.is_none()) out.keyframe_index = index.cast<std::uint32_t>();
  return out;
}

ControlMessage control(const py::handle& in) {
  const Vocabulary& known = vocabulary();
  ControlMessage out;
  for (auto [name, object] : in.attr("objects").cast<py::dict>()) {
    ObjectControl& o = out.objects[name.cast<std::string>()];
    o.values = field<std::vector<double>>(object, "values");
    o.events = field<std::map<std::string, bool>>(object, "events");
    const auto spelled = known.control_field_names.find(object.attr("field").attr("value").cast<std::string>());
    if (spelled == known.control_field_names.end()) throw py::value_error("not a ControlField");
    o.field = spelled->second;
  }
  out.steps = field<std::uint64_t>(in, "steps");
  out.worlds = field<std::uint32_t>(in, "worlds");
  out.world_controls = field<std::vector<double>>(in, "world_controls");
  out.reset_worlds = field<std::vector<std::uint32_t>>(in, "reset_worlds");
  out.reset_qpos = field<std::vector<double>>(in, "reset_qpos");
  out.reset_qvel = field<std::vector<double>>(in, "reset_qvel");
  out.images = image_requests(in);
  out.shared_memory = field<bool>(in, "shared_memory");
  out.image_worlds = field<std::vector<std::uint32_t>>(in, "image_worlds");
  return out;
}

Sensor sensor(const py::handle& in) { return {static_cast<ValueType>(field<int>(in, "type")), field<std::vector<double>>(in, "value")}; }

std::vector<Sensor> sensors(const py::handle& in) {
  std::vector<Sensor> out;
  for (py::handle s : in) out.push_back(sensor(s));
  return out;
}

std::optional<SharedSlice> slice_or_none(const py::handle& slice) {
  if (slice.is_none()) return std::nullopt;
  return SharedSlice{field<std::uint32_t>(slice, "slot"), field<std::uint64_t>(slice, "sequence"),
                     field<std::uint64_t>(slice, "offset"), field<std::uint64_t>(slice, "length")};
}

std::vector<Image> images(const py::handle& in) {
  std::vector<Image> out;
  for (py::handle image : in) {
    // Pixels a client resolved out of shared memory are an array, not bytes: what is sent is where they lay.
    const py::object shared = image.attr("shared");
    out.push_back({field<std::string>(image, "camera"), field<std::string>(image, "kind"),
                   field<std::uint32_t>(image, "width"), field<std::uint32_t>(image, "height"),
                   field<double>(image, "time"), shared.is_none() ? field<std::string>(image, "data") : std::string()});
    if (!shared.is_none()) {
      out.back().shared = SharedSlice{field<std::uint32_t>(shared, "slot"), field<std::uint64_t>(shared, "sequence"),
                                      field<std::uint64_t>(shared, "offset"), field<std::uint64_t>(shared, "length")};
    }
  }
  return out;
}

SensorMessage sensor_message(const py::handle& in) {
  SensorMessage out;
  for (auto [name, object] : in.attr("objects").cast<py::dict>()) {
    ObjectSensors& o = out.objects[name.cast<std::string>()];
    o.angles = field<std::vector<double>>(object, "angles");
    o.angular_velocities = field<std::vector<double>>(object, "angular_velocities");
    o.torques = field<std::vector<double>>(object, "torques");
    o.forces = field<std::vector<std::vector<double>>>(object, "forces");
    o.object_sensors = sensors(object.attr("object_sensors"));
    for (auto [sensor_name, readings] : object.attr("sensors").cast<py::dict>()) {
      o.sensors[sensor_name.cast<std::string>()] = sensors(readings);
    }
  }
  out.simulated_time = field<double>(in, "simulated_time");
  out.world_sensors = field<std::vector<double>>(in, "world_sensors");
  out.world_times = field<std::vector<double>>(in, "world_times");
  out.world_data = field<std::vector<double>>(in, "world_data");
  out.images = images(in.attr("images"));
  out.world_images = images(in.attr("world_images"));
  out.image_worlds = field<std::vector<std::uint32_t>>(in, "image_worlds");
  out.world_sensors_shared = slice_or_none(in.attr("world_sensors_shared"));
  out.world_data_shared = slice_or_none(in.attr("world_data_shared"));
  return out;
}

Message message(const py::handle& in) {
  const Vocabulary& known = vocabulary();
  if (py::isinstance(in, known.control)) return control(in);
  if (py::isinstance(in, known.sensor_message)) return sensor_message(in);
  if (py::isinstance(in, known.handshake)) return handshake(in);
  if (py::isinstance(in, known.handshake_init)) return HandshakeInitMessage{field<int>(in, "version"), field<bool>(in, "shared_channel")};
  if (py::isinstance(in, known.sensor_request)) {
    return SensorRequestMessage{image_requests(in), field<bool>(in, "shared_memory")};
  }
  if (py::isinstance(in, known.reset)) return reset(in);
  if (py::isinstance(in, known.error)) return ErrorMessage{field<int>(in, "code"), field<std::string>(in, "text")};
  throw py::type_error(py::str(in.get_type().attr("__name__")).cast<std::string>() + " is not a coupler message");
}

// ---- C++ -> Python

py::object value_type(ValueType type) {
  // The decoder takes only the schema's types, which the vocabulary names; an int keeps any other.
  const auto& known = vocabulary().value_types;
  const auto member = known.find(static_cast<int>(type));
  return member == known.end() ? py::int_(static_cast<int>(type)) : member->second;
}

py::list value_types(const std::vector<ValueType>& types) {
  py::list out;
  for (ValueType type : types) out.append(value_type(type));
  return out;
}

py::list ranges(const std::vector<Range>& in) {
  const Vocabulary& known = vocabulary();
  py::list out;
  for (const Range& r : in) out.append(known.range(py::arg("min") = r.min, py::arg("max") = r.max, py::arg("limited") = r.limited));
  return out;
}

py::object object_description(const ObjectDescription& in) {
  py::dict control_events, sensors;
  for (const auto& [event, type] : in.control_events) control_events[py::str(event)] = value_type(type);
  for (const auto& [sensor, types] : in.sensors) sensors[py::str(sensor)] = value_types(types);
  return vocabulary().object_description(
      py::arg("controls") = in.controls, py::arg("control_types") = value_types(in.control_types),
      py::arg("joint_sensors") = in.joint_sensors, py::arg("joint_sensor_types") = value_types(in.joint_sensor_types),
      py::arg("control_events") = control_events, py::arg("sensors") = sensors,
      py::arg("object_sensors") = value_types(in.object_sensors), py::arg("control_targets") = in.control_targets,
      py::arg("control_ranges") = ranges(in.control_ranges), py::arg("joint_limits") = ranges(in.joint_limits),
      py::arg("sensor_units") = in.sensor_units, py::arg("joint_types") = value_types(in.joint_types),
      py::arg("control_meanings") = in.control_meanings);
}

py::list to_python(const std::vector<ImageRequest>& in) {
  const Vocabulary& known = vocabulary();
  py::list out;
  for (const ImageRequest& r : in) {
    py::object every = r.every ? py::object(py::int_(*r.every)) : py::object(py::none());
    out.append(known.image_request(py::arg("camera") = r.camera, py::arg("kinds") = r.kinds, py::arg("every") = every));
  }
  return out;
}

py::object shared_memory_ring(const std::optional<SharedMemoryRing>& ring) {
  if (!ring) return py::none();
  return vocabulary().shared_memory_ring(py::arg("path") = ring->path, py::arg("slots") = ring->slots,
                                         py::arg("slot_bytes") = ring->slot_bytes,
                                         py::arg("data_offset") = ring->data_offset,
                                         py::arg("min_bytes") = ring->min_bytes);
}

py::object shared_slice(const std::optional<SharedSlice>& slice) {
  if (!slice) return py::none();
  return vocabulary().shared_slice(py::arg("slot") = slice->slot, py::arg("sequence") = slice->sequence,
                                   py::arg("offset") = slice->offset, py::arg("length") = slice->length);
}

py::object to_python(const HandshakeMessage& in) {
  const Vocabulary& known = vocabulary();
  py::dict cameras;
  for (const CameraDescription& c : in.cameras) {
    cameras[py::str(c.name)] = (known.camera(py::arg("name") = c.name, py::arg("width") = c.width, py::arg("height") = c.height,
                                py::arg("kinds") = c.kinds, py::arg("fx") = c.fx, py::arg("fy") = c.fy,
                                py::arg("cx") = c.cx, py::arg("cy") = c.cy, py::arg("near") = c.near,
                                py::arg("far") = c.far, py::arg("body") = c.body, py::arg("position") = c.position,
                                py::arg("quaternion") = c.quaternion));
  }
  py::dict objects;
  for (const auto& [name, object] : in.objects) objects[py::str(name)] = object_description(object);
  py::object server = py::none();
  if (in.server) {
    server = known.server_info(py::arg("name") = in.server->name, py::arg("version") = in.server->version,
                               py::arg("extensions") = in.server->extensions);
  }
  // The decoder checked the type: one the vocabulary knows.
  return known.handshake(py::arg("objects") = objects, py::arg("time_step") = in.time_step,
                         py::arg("version") = in.version, py::arg("control_type") = value_type(*in.control_type),
                         py::arg("server") = server, py::arg("worlds") = in.worlds,
                         py::arg("keyframes") = in.keyframes, py::arg("cameras") = cameras,
                         py::arg("max_image_width") = in.max_image_width,
                         py::arg("max_image_height") = in.max_image_height,
                         py::arg("shared_memory") = shared_memory_ring(in.shared_memory),
                         py::arg("shared_channel") = in.shared_channel);
}

py::object to_python(const ControlMessage& in) {
  const Vocabulary& known = vocabulary();
  py::dict objects;
  for (const auto& [name, object] : in.objects) {
    objects[py::str(name)] = known.object_control(py::arg("values") = object.values, py::arg("events") = object.events,
                                                  py::arg("field") = known.control_fields.at(object.field));
  }
  return known.control(py::arg("objects") = objects, py::arg("steps") = in.steps, py::arg("worlds") = in.worlds,
                       py::arg("world_controls") = in.world_controls, py::arg("reset_worlds") = in.reset_worlds,
                       py::arg("reset_qpos") = in.reset_qpos, py::arg("reset_qvel") = in.reset_qvel,
                       py::arg("images") = to_python(in.images), py::arg("shared_memory") = in.shared_memory,
                       py::arg("image_worlds") = in.image_worlds);
}

py::tuple numbers(const std::vector<double>& value) {
  py::tuple out(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) out[i] = py::float_(value[i]);
  return out;
}

py::list to_python(const std::vector<Sensor>& in) {
  const Vocabulary& known = vocabulary();
  py::list out;
  for (const Sensor& s : in) out.append(known.sensor(value_type(s.type), numbers(s.value)));
  return out;
}

py::list to_python(const std::vector<Image>& in) {
  const Vocabulary& known = vocabulary();
  py::list images;
  for (const Image& image : in) {
    images.append(known.image(py::arg("camera") = image.camera, py::arg("kind") = image.kind,
                              py::arg("width") = image.width, py::arg("height") = image.height,
                              py::arg("time") = image.time, py::arg("data") = py::bytes(image.data),
                              py::arg("shared") = shared_slice(image.shared)));
  }
  return images;
}

py::object to_python(const SensorMessage& in) {
  const Vocabulary& known = vocabulary();
  py::dict objects;
  for (const auto& [name, object] : in.objects) {
    py::list forces;
    for (const auto& force : object.forces) forces.append(numbers(force));
    py::dict named;
    for (const auto& [sensor_name, readings] : object.sensors) named[py::str(sensor_name)] = to_python(readings);
    objects[py::str(name)] = known.object_sensors(
        py::arg("angles") = object.angles, py::arg("angular_velocities") = object.angular_velocities,
        py::arg("torques") = object.torques, py::arg("forces") = forces,
        py::arg("object_sensors") = to_python(object.object_sensors), py::arg("sensors") = named);
  }
  return known.sensor_message(py::arg("objects") = objects, py::arg("simulated_time") = in.simulated_time,
                              py::arg("world_sensors") = in.world_sensors, py::arg("world_times") = in.world_times,
                              py::arg("world_data") = in.world_data, py::arg("images") = to_python(in.images),
                              py::arg("world_images") = to_python(in.world_images),
                              py::arg("image_worlds") = in.image_worlds,
                              py::arg("world_sensors_shared") = shared_slice(in.world_sensors_shared),
                              py::arg("world_data_shared") = shared_slice(in.world_data_shared));
}

py::object to_python(const HandshakeInitMessage& in) {
  return vocabulary().handshake_init(py::arg("version") = in.version, py::arg("shared_channel") = in.shared_channel);
}
py::object to_python(const SensorRequestMessage& in) {
  return vocabulary().sensor_request(py::arg("images") = to_python(in.images),
                                     py::arg("shared_memory") = in.shared_memory);
}
py::object to_python(const ResetMessage& in) {
  py::object index = py::none();
  if (in.keyframe_index) index = py::int_(*in.keyframe_index);
  return vocabulary().reset(py::arg("qpos") = in.qpos, py::arg("qvel") = in.qvel, py::arg("keyframe") = in.keyframe,
                            py::arg("keyframe_index") = index);
}
py::object to_python(const ErrorMessage& in) {
  // A code this side does not know (a newer peer's) stays a plain int.
  const Vocabulary& known = vocabulary();
  const auto code = known.error_codes.find(in.code);
  return known.error(py::arg("code") = code == known.error_codes.end() ? py::int_(in.code) : code->second,
                     py::arg("text") = in.text);
}

}  // namespace

Message to_message(const py::handle& in) {
  try {
    return message(in);
  } catch (const py::cast_error&) {
    throw Error("cannot encode " + py::str(in.get_type().attr("__name__")).cast<std::string>() +
                ": a field holds a value of the wrong type or out of its range");
  }
}

py::object to_python(const Message& message) {
  return std::visit([](const auto& typed) { return to_python(typed); }, message);
}

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
    py::object pixels = image.shared ? shared_slice(image.shared) : py::object(py::bytes(image.data));
    images.append(py::make_tuple(image.camera, image.kind, image.width, image.height, pixels));
  }
  std::vector<std::int64_t> image_worlds(sensors->image_worlds.begin(), sensors->image_worlds.end());
  return py::make_tuple(array(sensors->world_sensors, "float64"), array(sensors->world_times, "float64"),
                        array(sensors->world_data, "float64"), images, array(image_worlds, "int64"),
                        shared_slice(sensors->world_sensors_shared), shared_slice(sensors->world_data_shared));
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
