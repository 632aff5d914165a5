#pragma once
// The message structs of coupler/wire/messages.hpp field by field, in
// declaration order: coupler.wire.messages builds its dataclasses from this
// table, and python/native/message_objects.cpp converts messages by it, so a
// field is named for Python once, here, next to nothing but its struct.
// A field added to a struct is added to its row.

#include <tuple>

#include <coupler/wire/messages.hpp>

namespace coupler::python {

// How a field looks in Python where its C++ type alone does not say.
enum class Shape {
  Plain,      // numbers, str, list, dict, None for an empty optional, value types as ValueType
  Bytes,      // raw bytes held in a std::string
  Tuples,     // numbers as tuples: a reading's value, each of a joint's forces
  ByName,     // cameras: a dict by each one's name, as a handshake is looked up
  ErrorCode,  // an int shown as its ErrorCode member when it is one
};

template <class Struct, class Member>
struct Field {
  const char* name;
  Member Struct::*member;
  Shape shape;
};

template <class Struct, class Member>
constexpr Field<Struct, Member> field(const char* name, Member Struct::*member, Shape shape = Shape::Plain) {
  return {name, member, shape};
}

// Specialized for each struct that crosses into Python: its class's name and its fields.
template <class T>
struct Described;

template <>
struct Described<HandshakeInitMessage> {
  static constexpr const char* name = "HandshakeInitMessage";
  static constexpr auto fields = std::make_tuple(field("version", &HandshakeInitMessage::version),
                                                 field("shared_channel", &HandshakeInitMessage::shared_channel));
};

template <>
struct Described<CameraDescription> {
  using T = CameraDescription;
  static constexpr const char* name = "CameraDescription";
  static constexpr auto fields =
      std::make_tuple(field("name", &T::name), field("width", &T::width), field("height", &T::height),
                      field("kinds", &T::kinds), field("fx", &T::fx), field("fy", &T::fy), field("cx", &T::cx),
                      field("cy", &T::cy), field("near", &T::near), field("far", &T::far), field("body", &T::body),
                      field("position", &T::position), field("quaternion", &T::quaternion));
};

template <>
struct Described<ImageRequest> {
  static constexpr const char* name = "ImageRequest";
  static constexpr auto fields = std::make_tuple(field("camera", &ImageRequest::camera),
                                                 field("kinds", &ImageRequest::kinds),
                                                 field("every", &ImageRequest::every));
};

template <>
struct Described<SharedSlice> {
  using T = SharedSlice;
  static constexpr const char* name = "SharedSlice";
  static constexpr auto fields = std::make_tuple(field("slot", &T::slot), field("sequence", &T::sequence),
                                                 field("offset", &T::offset), field("length", &T::length));
};

template <>
struct Described<Image> {
  using T = Image;
  static constexpr const char* name = "Image";
  static constexpr auto fields =
      std::make_tuple(field("camera", &T::camera), field("kind", &T::kind), field("width", &T::width),
                      field("height", &T::height), field("time", &T::time), field("data", &T::data, Shape::Bytes),
                      field("shared", &T::shared));
};

template <>
struct Described<SharedMemoryRing> {
  using T = SharedMemoryRing;
  static constexpr const char* name = "SharedMemoryRing";
  static constexpr auto fields =
      std::make_tuple(field("path", &T::path), field("slots", &T::slots), field("slot_bytes", &T::slot_bytes),
                      field("data_offset", &T::data_offset), field("min_bytes", &T::min_bytes));
};

template <>
struct Described<Range> {
  static constexpr const char* name = "Range";
  static constexpr auto fields =
      std::make_tuple(field("min", &Range::min), field("max", &Range::max), field("limited", &Range::limited));
};

template <>
struct Described<ServerInfo> {
  static constexpr const char* name = "ServerInfo";
  static constexpr auto fields = std::make_tuple(field("name", &ServerInfo::name),
                                                 field("version", &ServerInfo::version),
                                                 field("extensions", &ServerInfo::extensions));
};

template <>
struct Described<ObjectDescription> {
  using T = ObjectDescription;
  static constexpr const char* name = "ObjectDescription";
  static constexpr auto fields = std::make_tuple(
      field("controls", &T::controls), field("control_types", &T::control_types),
      field("joint_sensors", &T::joint_sensors), field("joint_sensor_types", &T::joint_sensor_types),
      field("control_events", &T::control_events), field("sensors", &T::sensors),
      field("object_sensors", &T::object_sensors), field("control_targets", &T::control_targets),
      field("control_ranges", &T::control_ranges), field("joint_limits", &T::joint_limits),
      field("sensor_units", &T::sensor_units), field("joint_types", &T::joint_types),
      field("control_meanings", &T::control_meanings));
};

template <>
struct Described<HandshakeMessage> {
  using T = HandshakeMessage;
  static constexpr const char* name = "HandshakeMessage";
  static constexpr auto fields = std::make_tuple(
      field("objects", &T::objects), field("time_step", &T::time_step), field("version", &T::version),
      field("control_type", &T::control_type), field("server", &T::server), field("worlds", &T::worlds),
      field("keyframes", &T::keyframes), field("cameras", &T::cameras, Shape::ByName),
      field("max_image_width", &T::max_image_width), field("max_image_height", &T::max_image_height),
      field("shared_memory", &T::shared_memory), field("shared_channel", &T::shared_channel));
};

template <>
struct Described<ObjectControl> {
  static constexpr const char* name = "ObjectControl";
  static constexpr auto fields = std::make_tuple(field("values", &ObjectControl::values),
                                                 field("events", &ObjectControl::events),
                                                 field("field", &ObjectControl::field));
};

template <>
struct Described<ControlMessage> {
  using T = ControlMessage;
  static constexpr const char* name = "ControlMessage";
  static constexpr auto fields = std::make_tuple(
      field("objects", &T::objects), field("steps", &T::steps), field("worlds", &T::worlds),
      field("world_controls", &T::world_controls), field("reset_worlds", &T::reset_worlds),
      field("reset_qpos", &T::reset_qpos), field("reset_qvel", &T::reset_qvel), field("images", &T::images),
      field("shared_memory", &T::shared_memory), field("image_worlds", &T::image_worlds));
};

template <>
struct Described<Sensor> {
  static constexpr const char* name = "Sensor";
  static constexpr auto fields =
      std::make_tuple(field("type", &Sensor::type), field("value", &Sensor::value, Shape::Tuples));
};

template <>
struct Described<ObjectSensors> {
  using T = ObjectSensors;
  static constexpr const char* name = "ObjectSensors";
  static constexpr auto fields = std::make_tuple(
      field("angles", &T::angles), field("angular_velocities", &T::angular_velocities), field("torques", &T::torques),
      field("forces", &T::forces, Shape::Tuples), field("object_sensors", &T::object_sensors),
      field("sensors", &T::sensors));
};

template <>
struct Described<SensorMessage> {
  using T = SensorMessage;
  static constexpr const char* name = "SensorMessage";
  static constexpr auto fields = std::make_tuple(
      field("objects", &T::objects), field("simulated_time", &T::simulated_time),
      field("world_sensors", &T::world_sensors), field("world_times", &T::world_times),
      field("world_data", &T::world_data), field("images", &T::images), field("world_images", &T::world_images),
      field("image_worlds", &T::image_worlds), field("world_sensors_shared", &T::world_sensors_shared),
      field("world_data_shared", &T::world_data_shared));
};

template <>
struct Described<SensorRequestMessage> {
  static constexpr const char* name = "SensorRequestMessage";
  static constexpr auto fields = std::make_tuple(field("images", &SensorRequestMessage::images),
                                                 field("shared_memory", &SensorRequestMessage::shared_memory));
};

template <>
struct Described<ResetMessage> {
  using T = ResetMessage;
  static constexpr const char* name = "ResetMessage";
  static constexpr auto fields = std::make_tuple(field("qpos", &T::qpos), field("qvel", &T::qvel),
                                                 field("keyframe", &T::keyframe),
                                                 field("keyframe_index", &T::keyframe_index));
};

template <>
struct Described<ErrorMessage> {
  static constexpr const char* name = "ErrorMessage";
  static constexpr auto fields = std::make_tuple(field("code", &ErrorMessage::code, Shape::ErrorCode),
                                                 field("text", &ErrorMessage::text));
};

// Every struct above, in an order where each one's fields name only structs before it.
using DescribedStructs =
    std::tuple<Range, ServerInfo, ObjectDescription, CameraDescription, SharedMemoryRing, HandshakeInitMessage,
               HandshakeMessage, ImageRequest, ObjectControl, ControlMessage, Sensor, ObjectSensors, SharedSlice,
               Image, SensorMessage, SensorRequestMessage, ResetMessage, ErrorMessage>;

}  // namespace coupler::python
