#include <coupler/controller/sensor_readings.hpp>

#include <algorithm>

#include <coupler/wire/error.hpp>
#include <coupler/wire/name_list.hpp>
#include <coupler/wire/sensor_layout.hpp>

namespace coupler {

SensorReadings::SensorReadings(const HandshakeMessage& handshake, SensorMessage message, bool after_reset,
                               std::shared_ptr<const SharedRingReader> shared)
    : handshake_(&handshake),
      time_(message.simulated_time),
      message_(std::move(message)),
      after_reset_(after_reset),
      shared_(std::move(shared)) {}

SensorReadings::SensorReadings(const HandshakeMessage& handshake, std::shared_ptr<const SensorLayout> layout,
                               std::vector<double> values, double simulated_time)
    : handshake_(&handshake),
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

const std::vector<double>& SensorReadings::angles(const std::string& object) const {
  return message().object(object).angles;
}
const std::vector<double>& SensorReadings::angular_velocities(const std::string& object) const {
  return message().object(object).angular_velocities;
}
const std::vector<double>& SensorReadings::torques(const std::string& object) const {
  return message().object(object).torques;
}

std::size_t SensorReadings::joint_index(const std::string& object, const std::string& joint) const {
  const auto& joints = handshake_->object(object).joint_sensors;
  const auto it = std::find(joints.begin(), joints.end(), joint);
  if (it == joints.end()) {
    throw Error("object '" + object + "' has no joint sensor named '" + joint + "'; " + valid_names(joints));
  }
  return static_cast<std::size_t>(it - joints.begin());
}

std::vector<ValueType> SensorReadings::joint_types(const std::string& object, const std::string& joint) const {
  return handshake_->object(object).types_of_joint(joint_index(object, joint));
}

double SensorReadings::joint_value(const std::vector<double>& values, const std::string& object,
                                   const std::string& joint, const char* kind) const {
  const std::size_t i = joint_index(object, joint);
  if (i >= values.size()) {
    throw Error("sensor message has no " + std::string(kind) + " for joint '" + joint + "' of '" + object + "'");
  }
  return values[i];
}

double SensorReadings::angle(const std::string& object, const std::string& joint) const {
  return joint_value(angles(object), object, joint, "angle");
}
double SensorReadings::angular_velocity(const std::string& object, const std::string& joint) const {
  return joint_value(angular_velocities(object), object, joint, "angular velocity");
}
double SensorReadings::torque(const std::string& object, const std::string& joint) const {
  return joint_value(torques(object), object, joint, "torque");
}

const std::vector<Sensor>& SensorReadings::sensor(const std::string& object, const std::string& name) const {
  return message().object(object).sensor(name);
}

namespace {

const std::vector<double>& find_type(const std::vector<Sensor>& readings, ValueType type, const std::string& where) {
  for (const Sensor& reading : readings) {
    if (reading.type == type) return reading.value;
  }
  throw Error(where + " has no " + std::string(to_string(type)) + " reading");
}

}  // namespace

const std::vector<double>& SensorReadings::sensor(const std::string& object, const std::string& name,
                                                  ValueType type) const {
  return find_type(sensor(object, name), type, "sensor '" + name + "' of '" + object + "'");
}

const std::vector<double>& SensorReadings::object_sensor(const std::string& object, ValueType type) const {
  return find_type(message().object(object).object_sensors, type, "object '" + object + "'");
}

std::map<std::string, CameraImages> SensorReadings::images() const {
  // Readings read straight into the layout's array came from a frame without images.
  if (layout_ && !message_) return {};
  return camera_images(message().images, shared_.get());
}

}  // namespace coupler
