#include <coupler/controller/sensor_readings.hpp>

#include <algorithm>

#include <coupler/wire/error.hpp>
#include <coupler/wire/name_list.hpp>

namespace coupler {
namespace {

// A handshake the caller keeps alive, held without owning it.
std::shared_ptr<const HandshakeMessage> borrowed(const HandshakeMessage& handshake) {
  return std::shared_ptr<const HandshakeMessage>(std::shared_ptr<const HandshakeMessage>(), &handshake);
}

template <class Map>
Error no_object(const std::string& object, const Map& objects) {
  return Error("no object named '" + object + "' in the sensor message; " + valid_names(names_of(objects)));
}

Error no_sensor(const std::string& object, const std::string& name, const std::vector<std::string>& names) {
  return Error("object '" + object + "' has no sensor named '" + name + "'; " + valid_names(names));
}

Error no_reading(const std::string& where, ValueType type) {
  return Error(where + " has no " + python_name(type) + " reading");
}

}  // namespace

SensorReadings::SensorReadings(const HandshakeMessage& handshake, SensorMessage message, bool after_reset,
                               std::shared_ptr<const SharedRingReader> shared)
    : SensorReadings(borrowed(handshake), std::move(message), after_reset) {
  shared_ = std::move(shared);
}

SensorReadings::SensorReadings(const HandshakeMessage& handshake, std::shared_ptr<const SensorLayout> layout,
                               std::vector<double> values, double simulated_time)
    : SensorReadings(borrowed(handshake), std::move(layout), std::move(values), simulated_time) {}

SensorReadings::SensorReadings(std::shared_ptr<const HandshakeMessage> handshake, SensorMessage message,
                               bool after_reset)
    : handshake_(std::move(handshake)),
      time_(message.simulated_time),
      message_(std::move(message)),
      after_reset_(after_reset) {}

SensorReadings::SensorReadings(std::shared_ptr<const HandshakeMessage> handshake,
                               std::shared_ptr<const SensorLayout> layout, std::vector<double> values,
                               double simulated_time)
    : handshake_(std::move(handshake)),
      time_(simulated_time),
      layout_(std::move(layout)),
      values_(std::move(values)),
      after_reset_(false) {
  if (!layout_ || values_.size() != layout_->size()) {
    throw Error("sensor readings need the layout's " + std::to_string(layout_ ? layout_->size() : 0) +
                " numbers, got " + std::to_string(values_.size()));
  }
}

const SensorMessage& SensorReadings::message() const {
  if (!message_) {
    message_ = layout_->message(values_.data(), time_);
  }
  return *message_;
}

const ObjectSensors& SensorReadings::in_message(const std::string& object) const {
  const auto it = message_->objects.find(object);
  if (it == message_->objects.end()) throw no_object(object, message_->objects);
  return it->second;
}

const SensorPlaces& SensorReadings::in_layout(const std::string& object) const {
  const auto& places = layout_->places();
  const auto it = places.find(object);
  if (it == places.end()) throw no_object(object, places);
  return it->second;
}

std::vector<double> SensorReadings::numbers(const SensorSlot* slot) const {
  if (slot == nullptr) return {};
  const auto first = values_.begin() + static_cast<std::ptrdiff_t>(slot->offset);
  return {first, first + static_cast<std::ptrdiff_t>(slot->size)};
}

std::vector<double> SensorReadings::part(const std::string& object, Part part) const {
  if (layout_) {
    const SensorPlaces& places = in_layout(object);
    switch (part) {
      case Part::Angles: return numbers(places.angles);
      case Part::AngularVelocities: return numbers(places.angular_velocities);
      case Part::Torques: return numbers(places.torques);
    }
  }
  const ObjectSensors& sensors = in_message(object);
  switch (part) {
    case Part::Angles: return sensors.angles;
    case Part::AngularVelocities: return sensors.angular_velocities;
    case Part::Torques: return sensors.torques;
  }
  return {};
}

std::vector<double> SensorReadings::angles(const std::string& object) const { return part(object, Part::Angles); }
std::vector<double> SensorReadings::angular_velocities(const std::string& object) const {
  return part(object, Part::AngularVelocities);
}
std::vector<double> SensorReadings::torques(const std::string& object) const { return part(object, Part::Torques); }

std::size_t SensorReadings::joint_index(const std::string& object, const std::string& joint) const {
  const auto found = handshake_->objects.find(object);
  if (found == handshake_->objects.end()) {
    throw Error("no object named '" + object + "' in the handshake; " + valid_names(names_of(handshake_->objects)));
  }
  const auto& joints = found->second.joint_sensors;
  const auto it = std::find(joints.begin(), joints.end(), joint);
  if (it == joints.end()) {
    throw Error("object '" + object + "' has no joint sensor named '" + joint + "'; " + valid_names(joints));
  }
  return static_cast<std::size_t>(it - joints.begin());
}

std::vector<ValueType> SensorReadings::joint_types(const std::string& object, const std::string& joint) const {
  const std::size_t i = joint_index(object, joint);
  return handshake_->objects.at(object).types_of_joint(i);
}

double SensorReadings::joint_value(Part which, const std::string& object, const std::string& joint,
                                   const char* kind) const {
  const std::vector<double> values = part(object, which);
  const std::size_t i = joint_index(object, joint);
  if (i >= values.size()) {
    throw Error("sensor message has no " + std::string(kind) + " for joint '" + joint + "' of '" + object + "'");
  }
  return values[i];
}

double SensorReadings::angle(const std::string& object, const std::string& joint) const {
  return joint_value(Part::Angles, object, joint, "angle");
}
double SensorReadings::angular_velocity(const std::string& object, const std::string& joint) const {
  return joint_value(Part::AngularVelocities, object, joint, "angular velocity");
}
double SensorReadings::torque(const std::string& object, const std::string& joint) const {
  return joint_value(Part::Torques, object, joint, "torque");
}

std::vector<Sensor> SensorReadings::sensor(const std::string& object, const std::string& name) const {
  if (layout_) {
    const auto& named = in_layout(object).sensors;
    const auto it = named.find(name);
    if (it == named.end()) throw no_sensor(object, name, names_of(named));
    std::vector<Sensor> readings;
    for (const SensorSlot* slot : it->second) readings.push_back(Sensor{slot->type, numbers(slot)});
    return readings;
  }
  const auto& named = in_message(object).sensors;
  const auto it = named.find(name);
  if (it == named.end()) throw no_sensor(object, name, names_of(named));
  return it->second;
}

std::vector<double> SensorReadings::sensor(const std::string& object, const std::string& name, ValueType type) const {
  const std::string where = "sensor '" + name + "' of '" + object + "'";
  if (layout_) {
    const auto& named = in_layout(object).sensors;
    const auto it = named.find(name);
    if (it == named.end()) throw no_sensor(object, name, names_of(named));
    for (const SensorSlot* slot : it->second) {
      if (slot->type == type) return numbers(slot);
    }
    throw no_reading(where, type);
  }
  for (const Sensor& reading : sensor(object, name)) {
    if (reading.type == type) return reading.value;
  }
  throw no_reading(where, type);
}

std::vector<double> SensorReadings::object_sensor(const std::string& object, ValueType type) const {
  if (layout_) {
    for (const SensorSlot* slot : in_layout(object).object_sensors) {
      if (slot->type == type) return numbers(slot);
    }
  } else {
    for (const Sensor& reading : in_message(object).object_sensors) {
      if (reading.type == type) return reading.value;
    }
  }
  throw no_reading("object '" + object + "'", type);
}

std::map<std::string, CameraImages> SensorReadings::images() const {
  // Readings read straight into the layout's array came from a frame without images.
  if (layout_) return {};
  return camera_images(message().images, shared_.get());
}

}  // namespace coupler
