#include <coupler/wire/sensor_layout.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include <google/protobuf/arena.h>

#include <coupler/wire/error.hpp>

#include "coupler.pb.h"
#include "wire/deterministic_wire.hpp"
#include "wire/sensor_frame_reader.hpp"
#include "wire/sensor_frame_template.hpp"

namespace coupler {
namespace {

namespace pb = coupler::v1;
using Part = SensorSlot::Part;

// The per-joint vectors a SensorMessage can carry, in the flat order.
constexpr std::pair<ValueType, Part> kJointParts[] = {
    {ValueType::Angle, Part::Angles},
    {ValueType::AngularVelocity1D, Part::AngularVelocities},
    {ValueType::Torque1D, Part::Torques},
    {ValueType::Force3D, Part::Forces},
};

bool declares(const ObjectDescription& object, ValueType type) {
  const auto& types = object.joint_sensor_types;
  return std::find(types.begin(), types.end(), type) != types.end();
}

// Gives the Sensor its oneof case for `type`, with zeros; the numbers are
// written per frame.
void shape(pb::SensorMessage_Sensor& sensor, ValueType type) {
  auto vec3 = [](pb::SensorMessage_Vec3* vec) { vec->mutable_arr()->Resize(3, 0.0); };
  switch (type) {
    case ValueType::Angle: sensor.set_angle(0.0); return;
    case ValueType::AngularVelocity1D: sensor.set_angularvelocity1d(0.0); return;
    case ValueType::Torque1D: sensor.set_torque1d(0.0); return;
    case ValueType::Force1D: sensor.set_force1d(0.0); return;
    case ValueType::Activated: sensor.set_activated(false); return;
    case ValueType::LinearPosition: sensor.set_linearposition(0.0); return;
    case ValueType::LinearVelocity: sensor.set_linearvelocity(0.0); return;
    case ValueType::Number: sensor.set_number(0.0); return;
    case ValueType::Position: vec3(sensor.mutable_position()); return;
    case ValueType::RPY: vec3(sensor.mutable_rpy()); return;
    case ValueType::Acceleration3D: vec3(sensor.mutable_acceleration3d()); return;
    case ValueType::Force3D: vec3(sensor.mutable_force3d()); return;
    case ValueType::Torque3D: vec3(sensor.mutable_torque3d()); return;
    case ValueType::AngularAcceleration3D: vec3(sensor.mutable_angularacceleration3d()); return;
    case ValueType::Velocity3D: vec3(sensor.mutable_velocity3d()); return;
    case ValueType::AngularVelocity3D: vec3(sensor.mutable_angularvelocity3d()); return;
    case ValueType::Multiple:
    case ValueType::ActuatorInput:
    case ValueType::MocapPosition:
    case ValueType::MocapQuaternion: break;
  }
  throw Error("sensor type " + std::to_string(static_cast<int>(type)) + " cannot be sent");
}

// The three numbers of a vector reading, whichever oneof case holds them.
double* vec3_numbers(pb::SensorMessage_Sensor& sensor) {
  using Case = pb::SensorMessage_Sensor::ValueCase;
  switch (sensor.value_case()) {
    case Case::kPosition: return sensor.mutable_position()->mutable_arr()->mutable_data();
    case Case::kRpy: return sensor.mutable_rpy()->mutable_arr()->mutable_data();
    case Case::kAcceleration3D: return sensor.mutable_acceleration3d()->mutable_arr()->mutable_data();
    case Case::kForce3D: return sensor.mutable_force3d()->mutable_arr()->mutable_data();
    case Case::kTorque3D: return sensor.mutable_torque3d()->mutable_arr()->mutable_data();
    case Case::kAngularAcceleration3D: return sensor.mutable_angularacceleration3d()->mutable_arr()->mutable_data();
    case Case::kVelocity3D: return sensor.mutable_velocity3d()->mutable_arr()->mutable_data();
    case Case::kAngularVelocity3D: return sensor.mutable_angularvelocity3d()->mutable_arr()->mutable_data();
    default: throw Error("internal: sensor reading is not a vector");
  }
}

void set_scalar(pb::SensorMessage_Sensor& sensor, ValueType type, double value) {
  switch (type) {
    case ValueType::Angle: sensor.set_angle(value); return;
    case ValueType::AngularVelocity1D: sensor.set_angularvelocity1d(value); return;
    case ValueType::Torque1D: sensor.set_torque1d(value); return;
    case ValueType::Force1D: sensor.set_force1d(value); return;
    case ValueType::Activated: sensor.set_activated(value != 0.0); return;
    case ValueType::LinearPosition: sensor.set_linearposition(value); return;
    case ValueType::LinearVelocity: sensor.set_linearvelocity(value); return;
    case ValueType::Number: sensor.set_number(value); return;
    default: throw Error("internal: sensor reading is not a scalar");
  }
}

bool take_scalar(bool expected, double number, double* out) {
  if (!expected) return false;
  *out = number;
  return true;
}

bool take_vec3(bool expected, const pb::SensorMessage_Vec3& vec, double* out) {
  if (!expected || vec.arr_size() != 3) return false;
  std::copy_n(vec.arr().data(), 3, out);
  return true;
}

// Writes the reading's numbers, as coupler::decode() reads them, when it
// carries `type`; false when it carries another type or a malformed vector.
bool take(const pb::SensorMessage_Sensor& sensor, ValueType type, double* out) {
  using Case = pb::SensorMessage_Sensor::ValueCase;
  using V = ValueType;
  switch (sensor.value_case()) {
    case Case::kAngle: return take_scalar(type == V::Angle, sensor.angle(), out);
    case Case::kAngularVelocity1D: return take_scalar(type == V::AngularVelocity1D, sensor.angularvelocity1d(), out);
    case Case::kTorque1D: return take_scalar(type == V::Torque1D, sensor.torque1d(), out);
    case Case::kForce1D: return take_scalar(type == V::Force1D, sensor.force1d(), out);
    case Case::kActivated: return take_scalar(type == V::Activated, sensor.activated() ? 1.0 : 0.0, out);
    case Case::kLinearPosition: return take_scalar(type == V::LinearPosition, sensor.linearposition(), out);
    case Case::kLinearVelocity: return take_scalar(type == V::LinearVelocity, sensor.linearvelocity(), out);
    case Case::kNumber: return take_scalar(type == V::Number, sensor.number(), out);
    case Case::kPosition: return take_vec3(type == V::Position, sensor.position(), out);
    case Case::kRpy: return take_vec3(type == V::RPY, sensor.rpy(), out);
    case Case::kAcceleration3D: return take_vec3(type == V::Acceleration3D, sensor.acceleration3d(), out);
    case Case::kForce3D: return take_vec3(type == V::Force3D, sensor.force3d(), out);
    case Case::kTorque3D: return take_vec3(type == V::Torque3D, sensor.torque3d(), out);
    case Case::kAngularAcceleration3D:
      return take_vec3(type == V::AngularAcceleration3D, sensor.angularacceleration3d(), out);
    case Case::kVelocity3D: return take_vec3(type == V::Velocity3D, sensor.velocity3d(), out);
    case Case::kAngularVelocity3D: return take_vec3(type == V::AngularVelocity3D, sensor.angularvelocity3d(), out);
    case Case::VALUE_NOT_SET: break;
  }
  return false;
}

template <class Repeated>
void take_all(const Repeated& numbers, double* out) {
  std::copy(numbers.begin(), numbers.end(), out);
}

Sensor reading(ValueType type, const double* numbers) {
  if (type == ValueType::Activated) return {type, {numbers[0] != 0.0 ? 1.0 : 0.0}};
  return {type, std::vector<double>(numbers, numbers + width(type))};
}

}  // namespace

struct SensorLayout::Impl {
  // Numbers copied as they are into a repeated double field.
  struct Run {
    double* target;
    std::size_t offset;
    std::size_t count;
  };
  // A one-number reading, set through its oneof setter.
  struct Scalar {
    pb::SensorMessage_Sensor* sensor;
    ValueType type;
    std::size_t offset;
  };

  std::vector<SensorSlot> slots;
  std::map<std::string, SensorPlaces> places;
  std::size_t size = 0;
  // Every object and named sensor, with no readings: what message() fills.
  SensorMessage skeleton;
  // Built once with every field a frame carries; encode() only overwrites
  // numbers, so no frame allocates a message.
  pb::SensorMessage frame;
  std::vector<Run> runs;
  std::vector<Scalar> scalars;
  // The frame as bytes with its numbers' places (detail::SensorFrameTemplate).
  std::optional<detail::SensorFrameTemplate> frame_template;
  bool template_tried = false;

  // `values` at `time` through protobuf, the frame every other one is held to.
  std::string serialize(const double* values, double time) {
    for (const Run& run : runs) std::copy_n(values + run.offset, run.count, run.target);
    for (const Scalar& scalar : scalars) set_scalar(*scalar.sensor, scalar.type, values[scalar.offset]);
    if (detail::is_sent(time)) {
      frame.mutable_simvars()->set_simulatedtime(time);
    } else {
      frame.clear_simvars();
    }
    return detail::serialize_deterministic(frame);
  }

  // How many readings of each kind a frame of this layout carries per
  // object: read() takes no frame of another shape.
  struct Shape {
    std::string object;
    int angles = 0;
    int angular_velocities = 0;
    int torques = 0;
    int forces = 0;
    int object_sensors = 0;
    std::vector<std::pair<std::string, int>> sensors;  // in name order
  };
  std::vector<Shape> shapes;
  // read() parses each frame's message on this arena, emptied first: it
  // keeps its first block, so a frame of usual size allocates nothing, and
  // parsing on an arena is much faster than node by node on the heap.
  static constexpr std::size_t kFirstArenaBlock = 32 * 1024;
  std::vector<char> first_arena_block = std::vector<char>(kFirstArenaBlock);
  google::protobuf::Arena arena{arena_options(first_arena_block)};
  pb::Message header;
  // read()'s shortcut for a frame that differs from the last one read in full only in its numbers.
  detail::SensorFrameReader frame_reader;
  std::vector<bool> activated;  // per value: an Activated reading

  static google::protobuf::ArenaOptions arena_options(std::vector<char>& first_block) {
    google::protobuf::ArenaOptions options;
    options.initial_block = first_block.data();
    options.initial_block_size = first_block.size();
    return options;
  }

  void add_slot(const std::string& object, Part part, const std::string& sensor, std::size_t index, ValueType type,
                std::size_t numbers) {
    slots.push_back({object, part, sensor, index, type, size, numbers});
    size += numbers;
  }

  void lay_out(const HandshakeMessage& handshake) {
    for (const auto& [name, object] : handshake.objects) {
      ObjectSensors& skeleton_object = skeleton.objects[name];
      const std::size_t joints = object.joint_sensors.size();
      Shape& shape = shapes.emplace_back();
      shape.object = name;
      shape.object_sensors = static_cast<int>(object.object_sensors.size());
      for (const auto& [type, part] : kJointParts) {
        if (!declares(object, type)) continue;
        add_slot(name, part, {}, 0, type, joints * static_cast<std::size_t>(width(type)));
        const int count = static_cast<int>(joints);
        switch (part) {
          case Part::Angles: shape.angles = count; break;
          case Part::AngularVelocities: shape.angular_velocities = count; break;
          case Part::Torques: shape.torques = count; break;
          case Part::Forces: shape.forces = count; break;
          default: break;
        }
      }
      for (std::size_t i = 0; i < object.object_sensors.size(); ++i) {
        const ValueType type = object.object_sensors[i];
        add_slot(name, Part::ObjectSensor, {}, i, type, static_cast<std::size_t>(width(type)));
      }
      for (const auto& [sensor, types] : object.sensors) {
        skeleton_object.sensors[sensor];
        shape.sensors.emplace_back(sensor, static_cast<int>(types.size()));
        for (std::size_t i = 0; i < types.size(); ++i) {
          add_slot(name, Part::NamedSensor, sensor, i, types[i], static_cast<std::size_t>(width(types[i])));
        }
      }
    }
  }

  // Adds every field to the frame. All fields exist before any writer takes
  // their address, so no later insertion can move them.
  void build_frame(const HandshakeMessage& handshake) {
    frame.set_messagetype(pb::SensorMessageType);
    for (const auto& [name, object] : handshake.objects) {
      pb::SensorMessage_Object& o = (*frame.mutable_objects())[name];
      for (const auto& [sensor, types] : object.sensors) (*o.mutable_sensors())[sensor];
    }
    for (const SensorSlot& slot : slots) {
      pb::SensorMessage_Object& o = (*frame.mutable_objects())[slot.object];
      const int count = static_cast<int>(slot.size);
      switch (slot.part) {
        case Part::Angles: o.mutable_anglesensors()->Resize(count, 0.0); break;
        case Part::AngularVelocities: o.mutable_angularvelocitysensors()->Resize(count, 0.0); break;
        case Part::Torques: o.mutable_torquesensors()->Resize(count, 0.0); break;
        case Part::Forces:
          for (int j = 0; j < count / 3; ++j) o.add_forcesensors()->mutable_arr()->Resize(3, 0.0);
          break;
        case Part::ObjectSensor: shape(*o.add_objectsensors(), slot.type); break;
        case Part::NamedSensor: shape(*(*o.mutable_sensors())[slot.sensor].add_sensor(), slot.type); break;
      }
    }
  }

  void find_numbers() {
    for (const SensorSlot& slot : slots) {
      pb::SensorMessage_Object& o = (*frame.mutable_objects())[slot.object];
      auto reading = [&](pb::SensorMessage_Sensor* sensor) {
        if (width(slot.type) == 3) {
          runs.push_back({vec3_numbers(*sensor), slot.offset, 3});
        } else {
          scalars.push_back({sensor, slot.type, slot.offset});
        }
      };
      switch (slot.part) {
        case Part::Angles: runs.push_back({o.mutable_anglesensors()->mutable_data(), slot.offset, slot.size}); break;
        case Part::AngularVelocities:
          runs.push_back({o.mutable_angularvelocitysensors()->mutable_data(), slot.offset, slot.size});
          break;
        case Part::Torques: runs.push_back({o.mutable_torquesensors()->mutable_data(), slot.offset, slot.size}); break;
        case Part::Forces:
          for (int j = 0; j < o.forcesensors_size(); ++j) {
            runs.push_back({o.mutable_forcesensors(j)->mutable_arr()->mutable_data(), slot.offset + 3 * j, 3});
          }
          break;
        case Part::ObjectSensor: reading(o.mutable_objectsensors(static_cast<int>(slot.index))); break;
        case Part::NamedSensor:
          reading((*o.mutable_sensors())[slot.sensor].mutable_sensor(static_cast<int>(slot.index)));
          break;
      }
    }
  }

  bool has_shape(const pb::SensorMessage& received) const {
    const auto& objects = received.objects();
    if (objects.size() != shapes.size()) return false;
    for (const Shape& shape : shapes) {
      const auto found = objects.find(shape.object);
      if (found == objects.end()) return false;
      const pb::SensorMessage_Object& o = found->second;
      if (o.anglesensors_size() != shape.angles || o.angularvelocitysensors_size() != shape.angular_velocities ||
          o.torquesensors_size() != shape.torques || o.forcesensors_size() != shape.forces ||
          o.objectsensors_size() != shape.object_sensors || o.sensors().size() != shape.sensors.size()) {
        return false;
      }
      for (const auto& [sensor, count] : shape.sensors) {
        const auto named = o.sensors().find(sensor);
        if (named == o.sensors().end() || named->second.sensor_size() != count) return false;
      }
    }
    return true;
  }

  // For a received frame of the layout's shape: false at a reading of
  // another type than its slot's, or a vector without three numbers.
  bool take_numbers(const pb::SensorMessage& received, double* values) const {
    const pb::SensorMessage_Object* o = nullptr;
    const std::string* object = nullptr;
    for (const SensorSlot& slot : slots) {
      if (object == nullptr || *object != slot.object) {
        object = &slot.object;
        o = &received.objects().at(slot.object);
      }
      double* out = values + slot.offset;
      switch (slot.part) {
        case Part::Angles: take_all(o->anglesensors(), out); break;
        case Part::AngularVelocities: take_all(o->angularvelocitysensors(), out); break;
        case Part::Torques: take_all(o->torquesensors(), out); break;
        case Part::Forces:
          for (const pb::SensorMessage_Vec3& force : o->forcesensors()) {
            if (!take_vec3(true, force, out)) return false;
            out += 3;
          }
          break;
        case Part::ObjectSensor:
          if (!take(o->objectsensors(static_cast<int>(slot.index)), slot.type, out)) return false;
          break;
        case Part::NamedSensor:
          if (!take(o->sensors().at(slot.sensor).sensor(static_cast<int>(slot.index)), slot.type, out)) return false;
          break;
      }
    }
    return true;
  }
};

SensorLayout::SensorLayout(const HandshakeMessage& handshake) : impl_(std::make_unique<Impl>()) {
  impl_->lay_out(handshake);
  impl_->build_frame(handshake);
  impl_->find_numbers();
  for (const auto& [name, object] : handshake.objects) {
    SensorPlaces& places = impl_->places[name];
    for (const auto& [sensor, types] : object.sensors) places.sensors[sensor];
  }
  for (const SensorSlot& slot : impl_->slots) {
    SensorPlaces& places = impl_->places[slot.object];
    switch (slot.part) {
      case SensorSlot::Part::Angles: places.angles = &slot; break;
      case SensorSlot::Part::AngularVelocities: places.angular_velocities = &slot; break;
      case SensorSlot::Part::Torques: places.torques = &slot; break;
      case SensorSlot::Part::Forces: break;
      case SensorSlot::Part::ObjectSensor: places.object_sensors.push_back(&slot); break;
      case SensorSlot::Part::NamedSensor: places.sensors[slot.sensor].push_back(&slot); break;
    }
  }
  impl_->activated.assign(impl_->size, false);
  for (const SensorSlot& slot : impl_->slots) {
    if (slot.type != ValueType::Activated) continue;
    std::fill_n(impl_->activated.begin() + static_cast<std::ptrdiff_t>(slot.offset), slot.size, true);
  }
}

SensorLayout::~SensorLayout() = default;
SensorLayout::SensorLayout(SensorLayout&&) noexcept = default;
SensorLayout& SensorLayout::operator=(SensorLayout&&) noexcept = default;

std::size_t SensorLayout::size() const noexcept { return impl_->size; }
const std::vector<SensorSlot>& SensorLayout::slots() const noexcept { return impl_->slots; }
const std::map<std::string, SensorPlaces>& SensorLayout::places() const noexcept { return impl_->places; }

std::string SensorLayout::encode(const double* values, double simulated_time) {
  Impl& impl = *impl_;
  const bool timed = detail::is_sent(simulated_time);
  if (timed && impl.frame_template) return impl.frame_template->fill(values, simulated_time);
  if (timed && !impl.template_tried) {
    // Once, at the first frame that sends its time: from then on frames are copies with their numbers in place.
    impl.template_tried = true;
    std::vector<std::size_t> flags;
    for (const Impl::Scalar& scalar : impl.scalars) {
      if (scalar.type == ValueType::Activated) flags.push_back(scalar.offset);
    }
    impl.frame_template = detail::SensorFrameTemplate::build(
        [&impl](const double* v, double t) { return impl.serialize(v, t); }, impl.size, flags, values, simulated_time);
  }
  return impl.serialize(values, simulated_time);
}

std::optional<double> SensorLayout::read(std::string_view frame, double* values) {
  Impl& impl = *impl_;
  if (frame.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) return std::nullopt;
  const int size = static_cast<int>(frame.size());
  if (const std::optional<double> time = impl.frame_reader.read(frame, values)) return time;
  // Exactly the frames coupler::decode() takes as a SensorMessage.
  if (!impl.header.ParseFromArray(frame.data(), size) || impl.header.messagetype() != pb::SensorMessageType) {
    return std::nullopt;
  }
  impl.arena.Reset();
  auto* received = google::protobuf::Arena::CreateMessage<pb::SensorMessage>(&impl.arena);
  if (!received->ParseFromArray(frame.data(), size) || !impl.has_shape(*received) || !impl.take_numbers(*received, values)) {
    return std::nullopt;
  }
  const double simulated_time = received->simvars().simulatedtime();
  impl.frame_reader.learn(frame, values, simulated_time, impl.activated,
                            [this](const double* numbers, double time) { return encode(numbers, time); });
  return simulated_time;
}

SensorMessage SensorLayout::message(const double* values, double simulated_time) const {
  SensorMessage message = impl_->skeleton;
  message.simulated_time = simulated_time;
  for (const SensorSlot& slot : impl_->slots) {
    ObjectSensors& o = message.objects[slot.object];
    const double* numbers = values + slot.offset;
    switch (slot.part) {
      case Part::Angles: o.angles.assign(numbers, numbers + slot.size); break;
      case Part::AngularVelocities: o.angular_velocities.assign(numbers, numbers + slot.size); break;
      case Part::Torques: o.torques.assign(numbers, numbers + slot.size); break;
      case Part::Forces:
        for (std::size_t j = 0; j < slot.size; j += 3) o.forces.emplace_back(numbers + j, numbers + j + 3);
        break;
      case Part::ObjectSensor: o.object_sensors.push_back(reading(slot.type, numbers)); break;
      case Part::NamedSensor: o.sensors[slot.sensor].push_back(reading(slot.type, numbers)); break;
    }
  }
  return message;
}

}  // namespace coupler
