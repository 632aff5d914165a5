#include <coupler/wire/codec.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "coupler.pb.h"
#include "wire/deterministic_wire.hpp"
#include "wire/message_kind_scan.hpp"
#include "wire/world_fields_check.hpp"

namespace coupler {
namespace {

namespace pb = coupler::v1;
using Vec3 = pb::SensorMessage_Vec3;

[[noreturn]] void malformed(const std::string& what) { throw ProtocolError(ErrorCode::MalformedFrame, what); }

using detail::is_sent;

template <class Repeated>
std::vector<double> to_vector(const Repeated& repeated) {
  return {repeated.begin(), repeated.end()};
}

template <class Repeated, class T>
void append(Repeated* repeated, const std::vector<T>& values) {
  repeated->Add(values.begin(), values.end());
}

ValueType checked_value_type(int value, const std::string& where) {
  if (!pb::ValueType_IsValid(value)) malformed("unknown value type " + std::to_string(value) + " in " + where);
  return static_cast<ValueType>(value);
}

template <class Repeated>
std::vector<ValueType> to_value_types(const Repeated& repeated, const std::string& where) {
  std::vector<ValueType> types;
  types.reserve(repeated.size());
  for (int value : repeated) types.push_back(checked_value_type(value, where));
  return types;
}

template <class Repeated>
void append_types(Repeated* repeated, const std::vector<ValueType>& types) {
  for (ValueType type : types) repeated->Add(static_cast<int>(type));
}

void check_width(ValueType type, std::size_t count, const char* where) {
  if (count != static_cast<std::size_t>(width(type))) {
    throw Error(std::string(where) + ": a " + std::string(to_string(type)) + " value has " +
                std::to_string(width(type)) + " numbers, not " + std::to_string(count));
  }
}

// ---- Handshake

template <class Repeated>
void append_ranges(Repeated* out, const std::vector<Range>& ranges) {
  for (const Range& range : ranges) {
    pb::Range* added = out->Add();
    added->set_min(range.min);
    added->set_max(range.max);
    added->set_limited(range.limited);
  }
}

template <class Repeated>
std::vector<Range> read_ranges(const Repeated& in) {
  std::vector<Range> ranges;
  ranges.reserve(in.size());
  for (const auto& range : in) ranges.push_back({range.min(), range.max(), range.limited()});
  return ranges;
}

pb::HandshakeMessage_Object to_proto(const ObjectDescription& object) {
  pb::HandshakeMessage_Object out;
  for (const auto& name : object.controls) out.add_controlsinorder(name);
  append_types(out.mutable_controltypesinorder(), object.control_types);
  for (const auto& name : object.joint_sensors) out.add_jointsensorsinorder(name);
  append_types(out.mutable_jointsensors(), object.joint_sensor_types);
  for (const auto& [name, type] : object.control_events) (*out.mutable_controlevents())[name] = static_cast<pb::ValueType>(type);
  for (const auto& [name, types] : object.sensors) append_types((*out.mutable_sensors())[name].mutable_types(), types);
  append_types(out.mutable_objectsensors(), object.object_sensors);
  for (const auto& target : object.control_targets) out.add_controltargets(target);
  append_ranges(out.mutable_controlranges(), object.control_ranges);
  append_ranges(out.mutable_jointlimits(), object.joint_limits);
  for (const auto& [sensor, unit] : object.sensor_units) (*out.mutable_sensorunits())[sensor] = unit;
  append_types(out.mutable_jointtypes(), object.joint_types);
  for (const auto& meaning : object.control_meanings) out.add_controlmeanings(meaning);
  return out;
}

ObjectDescription from_proto(const pb::HandshakeMessage_Object& in, const std::string& name) {
  const std::string where = "handshake object '" + name + "'";
  ObjectDescription object;
  object.controls.assign(in.controlsinorder().begin(), in.controlsinorder().end());
  object.control_types = to_value_types(in.controltypesinorder(), where);
  object.joint_sensors.assign(in.jointsensorsinorder().begin(), in.jointsensorsinorder().end());
  object.joint_sensor_types = to_value_types(in.jointsensors(), where);
  for (const auto& [event, type] : in.controlevents()) object.control_events[event] = checked_value_type(type, where);
  for (const auto& [sensor, types] : in.sensors()) {
    object.sensors[sensor] = to_value_types(types.types(), where + " sensor '" + sensor + "'");
  }
  object.object_sensors = to_value_types(in.objectsensors(), where);
  object.control_targets.assign(in.controltargets().begin(), in.controltargets().end());
  if (!object.control_targets.empty() && object.control_targets.size() != object.controls.size()) {
    malformed(where + " has " + std::to_string(object.controls.size()) + " controls but " +
              std::to_string(object.control_targets.size()) + " controlTargets");
  }
  object.control_ranges = read_ranges(in.controlranges());
  object.joint_limits = read_ranges(in.jointlimits());
  object.sensor_units.insert(in.sensorunits().begin(), in.sensorunits().end());
  object.joint_types = to_value_types(in.jointtypes(), where);
  object.control_meanings.assign(in.controlmeanings().begin(), in.controlmeanings().end());
  return object;
}

ValueType derived_control_type(const HandshakeMessage& message) {
  std::optional<ValueType> common;
  for (const auto& [name, object] : message.objects) {
    for (ValueType type : object.control_types) {
      if (common && *common != type) return ValueType::Multiple;
      common = type;
    }
  }
  return common.value_or(ValueType::Multiple);
}

// ---- "images"

void to_proto(pb::Camera* out, const CameraDescription& camera) {
  out->set_name(camera.name);
  out->set_width(camera.width);
  out->set_height(camera.height);
  for (const auto& kind : camera.kinds) out->add_kinds(kind);
  out->set_fx(camera.fx);
  out->set_fy(camera.fy);
  out->set_cx(camera.cx);
  out->set_cy(camera.cy);
  out->set_near(camera.near);
  out->set_far(camera.far);
  out->set_body(camera.body);
  append(out->mutable_position(), camera.position);
  append(out->mutable_quaternion(), camera.quaternion);
}

CameraDescription from_proto(const pb::Camera& in) {
  return {in.name(), in.width(), in.height(), {in.kinds().begin(), in.kinds().end()}, in.fx(), in.fy(), in.cx(),
          in.cy(), in.near(), in.far(), in.body(), to_vector(in.position()), to_vector(in.quaternion())};
}

template <class Repeated>
void append_image_requests(Repeated* out, const std::vector<ImageRequest>& requests) {
  for (const ImageRequest& request : requests) {
    pb::ImageRequest* added = out->Add();
    added->set_camera(request.camera);
    for (const auto& kind : request.kinds) added->add_kinds(kind);
    if (request.every) added->set_every(*request.every);
  }
}

template <class Repeated>
std::vector<ImageRequest> read_image_requests(const Repeated& in) {
  std::vector<ImageRequest> requests;
  requests.reserve(in.size());
  for (const auto& request : in) {
    ImageRequest read{request.camera(), {request.kinds().begin(), request.kinds().end()}, std::nullopt};
    if (request.has_every()) read.every = request.every();
    requests.push_back(std::move(read));
  }
  return requests;
}

void to_proto(const SharedSlice& slice, pb::SharedSlice* out) {
  out->set_slot(slice.slot);
  out->set_sequence(slice.sequence);
  out->set_offset(slice.offset);
  out->set_length(slice.length);
}

SharedSlice from_proto(const pb::SharedSlice& in) { return {in.slot(), in.sequence(), in.offset(), in.length()}; }

template <class Repeated>
void append_images(Repeated* out, const std::vector<Image>& images) {
  for (const Image& image : images) {
    pb::Image* added = out->Add();
    added->set_camera(image.camera);
    added->set_kind(image.kind);
    added->set_width(image.width);
    added->set_height(image.height);
    added->set_time(image.time);
    added->set_data(image.data);
    if (image.shared) to_proto(*image.shared, added->mutable_shared());
  }
}

template <class Repeated>
std::vector<Image> read_images(const Repeated& in) {
  std::vector<Image> images;
  images.reserve(in.size());
  for (const auto& image : in) {
    images.push_back({image.camera(), image.kind(), image.width(), image.height(), image.time(), image.data()});
    if (image.has_shared()) images.back().shared = from_proto(image.shared());
  }
  return images;
}

void fill(pb::HandshakeMessage& out, const HandshakeMessage& message) {
  out.set_messagetype(pb::HandshakeMessageType);
  out.set_version(static_cast<pb::Version>(message.version));
  out.set_controltype(static_cast<pb::ValueType>(message.control_type.value_or(derived_control_type(message))));
  for (const auto& [name, object] : message.objects) (*out.mutable_objects())[name] = to_proto(object);
  if (is_sent(message.time_step)) out.mutable_simsettings()->set_timestep(message.time_step);
  if (message.server) {
    // Present even when every field is empty: it is what says "coupler server".
    pb::ServerInfo* server = out.mutable_server();
    server->set_name(message.server->name);
    server->set_version(message.server->version);
    for (const auto& extension : message.server->extensions) server->add_extensions(extension);
  }
  out.set_worlds(message.worlds);
  for (const auto& keyframe : message.keyframes) out.add_keyframes(keyframe);
  for (const auto& camera : message.cameras) to_proto(out.add_cameras(), camera);
  out.set_maximagewidth(message.max_image_width);
  out.set_maximageheight(message.max_image_height);
  if (message.shared_memory) {
    pb::SharedMemoryRing* ring = out.mutable_sharedmemory();
    ring->set_path(message.shared_memory->path);
    ring->set_slots(message.shared_memory->slots);
    ring->set_slotbytes(message.shared_memory->slot_bytes);
    ring->set_dataoffset(message.shared_memory->data_offset);
    ring->set_minbytes(message.shared_memory->min_bytes);
  }
  out.set_sharedchannel(message.shared_channel);
}

HandshakeMessage read(const pb::HandshakeMessage& in) {
  HandshakeMessage message;
  message.version = in.version();
  message.control_type = checked_value_type(in.controltype(), "handshake controlType");
  for (const auto& [name, object] : in.objects()) message.objects[name] = from_proto(object, name);
  message.time_step = in.simsettings().timestep();
  if (in.has_server()) {
    const pb::ServerInfo& server = in.server();
    message.server = ServerInfo{server.name(), server.version(), {server.extensions().begin(), server.extensions().end()}};
  }
  message.worlds = in.worlds();
  message.keyframes.assign(in.keyframes().begin(), in.keyframes().end());
  for (const auto& camera : in.cameras()) message.cameras.push_back(from_proto(camera));
  message.max_image_width = in.maximagewidth();
  message.max_image_height = in.maximageheight();
  if (in.has_sharedmemory()) {
    const pb::SharedMemoryRing& ring = in.sharedmemory();
    message.shared_memory = SharedMemoryRing{ring.path(), ring.slots(), ring.slotbytes(), ring.dataoffset(),
                                             ring.minbytes()};
  }
  message.shared_channel = in.sharedchannel();
  return message;
}

// ---- Control

void fill(pb::ControlMessage& out, const ControlMessage& message) {
  out.set_messagetype(pb::ControlMessageType);
  for (const auto& [name, object] : message.objects) {
    pb::ControlMessage_Object& o = (*out.mutable_objects())[name];
    switch (object.field) {
      case ControlField::Values: append(o.mutable_values(), object.values); break;
      case ControlField::Angles: append(o.mutable_angles(), object.values); break;
      case ControlField::AngularVelocities: append(o.mutable_angularvelocities(), object.values); break;
      case ControlField::Torques: append(o.mutable_torques(), object.values); break;
    }
    for (const auto& [event, on] : object.events) (*o.mutable_controlevents())[event] = on;
  }
  out.set_steps(message.steps);
  out.set_worlds(message.worlds);
  append(out.mutable_worldcontrols(), message.world_controls);
  append(out.mutable_resetworlds(), message.reset_worlds);
  append(out.mutable_resetqpos(), message.reset_qpos);
  append(out.mutable_resetqvel(), message.reset_qvel);
  append_image_requests(out.mutable_images(), message.images);
  out.set_sharedmemory(message.shared_memory);
  append(out.mutable_imageworlds(), message.image_worlds);
}

ObjectControl from_proto(const pb::ControlMessage_Object& in, const std::string& name) {
  ObjectControl object;
  int lists_set = 0;
  auto take = [&](const auto& repeated, ControlField field) {
    if (repeated.empty()) return;
    ++lists_set;
    object.values = to_vector(repeated);
    object.field = field;
  };
  take(in.values(), ControlField::Values);
  take(in.angles(), ControlField::Angles);
  take(in.angularvelocities(), ControlField::AngularVelocities);
  take(in.torques(), ControlField::Torques);
  if (lists_set > 1) {
    malformed("control object '" + name + "' sets " + std::to_string(lists_set) +
              " of values/angles/angularVelocities/torques; exactly one is allowed");
  }
  object.events.insert(in.controlevents().begin(), in.controlevents().end());
  return object;
}

ControlMessage read(const pb::ControlMessage& in) {
  ControlMessage message;
  // protobuf's map hands its entries over in hash order; inserted so into a
  // std::map, tens of thousands of names cost several times the parse. In
  // order, each insertion goes at the end, in constant time.
  std::vector<std::pair<const std::string*, const pb::ControlMessage_Object*>> entries;
  entries.reserve(static_cast<std::size_t>(in.objects().size()));
  for (const auto& [name, object] : in.objects()) entries.emplace_back(&name, &object);
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return *a.first < *b.first; });
  for (const auto& [name, object] : entries) {
    message.objects.emplace_hint(message.objects.end(), *name, from_proto(*object, *name));
  }
  message.steps = in.steps();
  message.worlds = in.worlds();
  message.world_controls = to_vector(in.worldcontrols());
  message.reset_worlds.assign(in.resetworlds().begin(), in.resetworlds().end());
  message.reset_qpos = to_vector(in.resetqpos());
  message.reset_qvel = to_vector(in.resetqvel());
  message.images = read_image_requests(in.images());
  message.shared_memory = in.sharedmemory();
  message.image_worlds.assign(in.imageworlds().begin(), in.imageworlds().end());
  return message;
}

// ---- Sensor

void set_vec3(Vec3* out, const std::vector<double>& value) { append(out->mutable_arr(), value); }

void to_proto(pb::SensorMessage_Sensor* out, const Sensor& sensor) {
  check_width(sensor.type, sensor.value.size(), "sensor");
  const std::vector<double>& v = sensor.value;
  switch (sensor.type) {
    case ValueType::Angle: out->set_angle(v[0]); return;
    case ValueType::AngularVelocity1D: out->set_angularvelocity1d(v[0]); return;
    case ValueType::Torque1D: out->set_torque1d(v[0]); return;
    case ValueType::Force1D: out->set_force1d(v[0]); return;
    case ValueType::Activated: out->set_activated(v[0] != 0.0); return;
    case ValueType::LinearPosition: out->set_linearposition(v[0]); return;
    case ValueType::LinearVelocity: out->set_linearvelocity(v[0]); return;
    case ValueType::Number: out->set_number(v[0]); return;
    case ValueType::Position: set_vec3(out->mutable_position(), v); return;
    case ValueType::RPY: set_vec3(out->mutable_rpy(), v); return;
    case ValueType::Acceleration3D: set_vec3(out->mutable_acceleration3d(), v); return;
    case ValueType::Force3D: set_vec3(out->mutable_force3d(), v); return;
    case ValueType::Torque3D: set_vec3(out->mutable_torque3d(), v); return;
    case ValueType::AngularAcceleration3D: set_vec3(out->mutable_angularacceleration3d(), v); return;
    case ValueType::Velocity3D: set_vec3(out->mutable_velocity3d(), v); return;
    case ValueType::AngularVelocity3D: set_vec3(out->mutable_angularvelocity3d(), v); return;
    case ValueType::Multiple:
    case ValueType::ActuatorInput:
    case ValueType::MocapPosition:
    case ValueType::MocapQuaternion: break;
  }
  const std::string_view name = to_string(sensor.type);
  throw Error("sensor type " + (name.empty() ? std::to_string(static_cast<int>(sensor.type)) : std::string(name)) +
              " cannot be sent");
}

std::vector<double> read_vec3(const Vec3& in, const std::string& where) {
  if (in.arr_size() != 3) malformed(where + ": a vector has " + std::to_string(in.arr_size()) + " numbers, not 3");
  return to_vector(in.arr());
}

Sensor from_proto(const pb::SensorMessage_Sensor& in, const std::string& where) {
  using Case = pb::SensorMessage_Sensor::ValueCase;
  switch (in.value_case()) {
    case Case::kAngle: return {ValueType::Angle, {in.angle()}};
    case Case::kAngularVelocity1D: return {ValueType::AngularVelocity1D, {in.angularvelocity1d()}};
    case Case::kTorque1D: return {ValueType::Torque1D, {in.torque1d()}};
    case Case::kForce1D: return {ValueType::Force1D, {in.force1d()}};
    case Case::kActivated: return {ValueType::Activated, {in.activated() ? 1.0 : 0.0}};
    case Case::kLinearPosition: return {ValueType::LinearPosition, {in.linearposition()}};
    case Case::kLinearVelocity: return {ValueType::LinearVelocity, {in.linearvelocity()}};
    case Case::kNumber: return {ValueType::Number, {in.number()}};
    case Case::kPosition: return {ValueType::Position, read_vec3(in.position(), where)};
    case Case::kRpy: return {ValueType::RPY, read_vec3(in.rpy(), where)};
    case Case::kAcceleration3D: return {ValueType::Acceleration3D, read_vec3(in.acceleration3d(), where)};
    case Case::kForce3D: return {ValueType::Force3D, read_vec3(in.force3d(), where)};
    case Case::kTorque3D: return {ValueType::Torque3D, read_vec3(in.torque3d(), where)};
    case Case::kAngularAcceleration3D:
      return {ValueType::AngularAcceleration3D, read_vec3(in.angularacceleration3d(), where)};
    case Case::kVelocity3D: return {ValueType::Velocity3D, read_vec3(in.velocity3d(), where)};
    case Case::kAngularVelocity3D: return {ValueType::AngularVelocity3D, read_vec3(in.angularvelocity3d(), where)};
    case Case::VALUE_NOT_SET: break;
  }
  malformed(where + ": a sensor carries no value");
}

template <class Repeated>
void append_sensors(Repeated* out, const std::vector<Sensor>& sensors) {
  out->Reserve(static_cast<int>(sensors.size()));
  for (const Sensor& sensor : sensors) to_proto(out->Add(), sensor);
}

template <class Repeated>
std::vector<Sensor> read_sensors(const Repeated& in, const std::string& where) {
  std::vector<Sensor> sensors;
  sensors.reserve(in.size());
  for (const auto& sensor : in) sensors.push_back(from_proto(sensor, where));
  return sensors;
}

pb::SensorMessage_Object to_proto(const ObjectSensors& object) {
  pb::SensorMessage_Object out;
  append(out.mutable_anglesensors(), object.angles);
  append(out.mutable_angularvelocitysensors(), object.angular_velocities);
  append(out.mutable_torquesensors(), object.torques);
  for (const auto& force : object.forces) {
    check_width(ValueType::Force3D, force.size(), "joint force sensor");
    set_vec3(out.add_forcesensors(), force);
  }
  append_sensors(out.mutable_objectsensors(), object.object_sensors);
  for (const auto& [name, sensors] : object.sensors) append_sensors((*out.mutable_sensors())[name].mutable_sensor(), sensors);
  return out;
}

ObjectSensors from_proto(const pb::SensorMessage_Object& in, const std::string& name) {
  const std::string where = "sensor object '" + name + "'";
  ObjectSensors object;
  object.angles = to_vector(in.anglesensors());
  object.angular_velocities = to_vector(in.angularvelocitysensors());
  object.torques = to_vector(in.torquesensors());
  for (const auto& force : in.forcesensors()) object.forces.push_back(read_vec3(force, where));
  object.object_sensors = read_sensors(in.objectsensors(), where);
  for (const auto& [sensor, values] : in.sensors()) {
    object.sensors[sensor] = read_sensors(values.sensor(), where + " sensor '" + sensor + "'");
  }
  return object;
}

void fill(pb::SensorMessage& out, const SensorMessage& message) {
  out.set_messagetype(pb::SensorMessageType);
  for (const auto& [name, object] : message.objects) (*out.mutable_objects())[name] = to_proto(object);
  if (is_sent(message.simulated_time)) out.mutable_simvars()->set_simulatedtime(message.simulated_time);
  append(out.mutable_worldsensors(), message.world_sensors);
  append(out.mutable_worldtimes(), message.world_times);
  append(out.mutable_worlddata(), message.world_data);
  append_images(out.mutable_images(), message.images);
  append_images(out.mutable_worldimages(), message.world_images);
  append(out.mutable_imageworlds(), message.image_worlds);
  if (message.world_sensors_shared) to_proto(*message.world_sensors_shared, out.mutable_worldsensorsshared());
  if (message.world_data_shared) to_proto(*message.world_data_shared, out.mutable_worlddatashared());
}

SensorMessage read(const pb::SensorMessage& in) {
  SensorMessage message;
  for (const auto& [name, object] : in.objects()) message.objects[name] = from_proto(object, name);
  message.simulated_time = in.simvars().simulatedtime();
  message.world_sensors = to_vector(in.worldsensors());
  message.world_times = to_vector(in.worldtimes());
  message.world_data = to_vector(in.worlddata());
  message.images = read_images(in.images());
  message.world_images = read_images(in.worldimages());
  message.image_worlds.assign(in.imageworlds().begin(), in.imageworlds().end());
  if (in.has_worldsensorsshared()) message.world_sensors_shared = from_proto(in.worldsensorsshared());
  if (in.has_worlddatashared()) message.world_data_shared = from_proto(in.worlddatashared());
  return message;
}

// ---- Messages without content of their own

void fill(pb::HandshakeInitMessage& out, const HandshakeInitMessage& message) {
  out.set_messagetype(pb::HandshakeInitMessageType);
  out.set_version(static_cast<pb::Version>(message.version));
  out.set_sharedchannel(message.shared_channel);
}
HandshakeInitMessage read(const pb::HandshakeInitMessage& in) { return {in.version(), in.sharedchannel()}; }

void fill(pb::SensorRequestMessage& out, const SensorRequestMessage& message) {
  out.set_messagetype(pb::SensorRequestMessageType);
  append_image_requests(out.mutable_images(), message.images);
  out.set_sharedmemory(message.shared_memory);
}
SensorRequestMessage read(const pb::SensorRequestMessage& in) {
  return {read_image_requests(in.images()), in.sharedmemory()};
}

void fill(pb::ResetMessage& out, const ResetMessage& message) {
  out.set_messagetype(pb::ResetMessageType);
  append(out.mutable_qpos(), message.qpos);
  append(out.mutable_qvel(), message.qvel);
  out.set_keyframe(message.keyframe);
  if (message.keyframe_index) out.set_keyframeindex(*message.keyframe_index);
}
ResetMessage read(const pb::ResetMessage& in) {
  ResetMessage message{to_vector(in.qpos()), to_vector(in.qvel()), in.keyframe(), std::nullopt};
  if (in.has_keyframeindex()) message.keyframe_index = in.keyframeindex();
  return message;
}

void fill(pb::ErrorMessage& out, const ErrorMessage& message) {
  out.set_messagetype(pb::ErrorMessageType);
  out.set_error(static_cast<pb::ErrorType>(message.code));
  out.set_errormessage(message.text);
}
ErrorMessage read(const pb::ErrorMessage& in) { return {in.error(), in.errormessage()}; }

// ---- Generic part: one protobuf type per message kind

template <class T> struct ProtoOf;
template <> struct ProtoOf<HandshakeInitMessage> { using type = pb::HandshakeInitMessage; };
template <> struct ProtoOf<HandshakeMessage> { using type = pb::HandshakeMessage; };
template <> struct ProtoOf<ControlMessage> { using type = pb::ControlMessage; };
template <> struct ProtoOf<SensorMessage> { using type = pb::SensorMessage; };
template <> struct ProtoOf<SensorRequestMessage> { using type = pb::SensorRequestMessage; };
template <> struct ProtoOf<ResetMessage> { using type = pb::ResetMessage; };
template <> struct ProtoOf<ErrorMessage> { using type = pb::ErrorMessage; };

// Fills the message's protobuf counterpart and hands it to `use`.
template <class F>
auto with_proto(const Message& message, F&& use) {
  return std::visit(
      [&](const auto& typed) {
        typename ProtoOf<std::decay_t<decltype(typed)>>::type proto;
        fill(proto, typed);
        return use(proto);
      },
      message);
}

template <class T>
Message parse(std::string_view frame) {
  typename ProtoOf<T>::type proto;
  if (!proto.ParseFromArray(frame.data(), static_cast<int>(frame.size()))) {
    malformed("frame of " + std::to_string(frame.size()) + " bytes is not a valid " +
              std::string(to_string(type_of(Message(std::in_place_type<T>)))) + " message");
  }
  return read(proto);
}

}  // namespace

std::string encode_image_fields(const std::vector<Image>& images) {
  pb::SensorMessage message;
  append_images(message.mutable_images(), images);
  return detail::serialize_deterministic(message);
}

std::string encode(const Message& message) {
  return with_proto(message, [](const auto& proto) { return detail::serialize_deterministic(proto); });
}

std::string describe(const Message& message) {
  return std::string(to_string(type_of(message))) + " { " +
         with_proto(message, [](const auto& proto) { return proto.ShortDebugString(); }) + " }";
}

std::optional<MessageType> message_kind(std::string_view frame) { return detail::scan_message_kind(frame); }

Message decode(std::string_view frame) {
  if (frame.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) malformed("frame too large to parse");
  pb::Message header;
  if (!header.ParseFromArray(frame.data(), static_cast<int>(frame.size()))) {
    // Name the kind a broken frame claims to be when its first field says,
    // as every coupler and Click frame's does.
    const std::string prefix = "frame of " + std::to_string(frame.size()) + " bytes is not a ";
    if (frame.size() >= 2 && frame[0] == '\x08' && frame[1] >= 0 && frame[1] <= 6) {
      malformed(prefix + "valid " + std::string(to_string(static_cast<MessageType>(frame[1]))) +
                " message: truncated or corrupt");
    }
    malformed(prefix + "protobuf message");
  }
  switch (static_cast<MessageType>(header.messagetype())) {
    case MessageType::HandshakeInit: return parse<HandshakeInitMessage>(frame);
    case MessageType::Handshake: return parse<HandshakeMessage>(frame);
    case MessageType::Control:
      detail::check_world_fields(frame);
      return parse<ControlMessage>(frame);
    case MessageType::Sensor: return parse<SensorMessage>(frame);
    case MessageType::SensorRequest: return parse<SensorRequestMessage>(frame);
    case MessageType::Reset: return parse<ResetMessage>(frame);
    case MessageType::Error: return parse<ErrorMessage>(frame);
  }
  throw ProtocolError(ErrorCode::UnexpectedMessage, "unknown message type " + std::to_string(header.messagetype()));
}

}  // namespace coupler
