#pragma once
// A SensorMessage read through the handshake: values by object and name.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <coupler/controller/camera_images.hpp>
#include <coupler/wire/messages.hpp>

namespace coupler {

class SensorLayout;

// Lookups throw coupler::Error naming what is missing, so a controller that
// asks for a joint or sensor the scene does not have learns which.
//
// Readings taken as a SensorLayout's flat array (as Session::step takes a
// Sensor frame of the handshake's shape) build their SensorMessage on the
// first lookup: a controller that only steps pays nothing for it.
class SensorReadings {
 public:
  // `shared`: the ring of shared memory its images may lie in (the "shm" extension), kept mapped while they live.
  SensorReadings(const HandshakeMessage& handshake, SensorMessage message, bool after_reset = false,
                 std::shared_ptr<const SharedRingReader> shared = nullptr);
  // `values` holds layout->size() numbers in the layout's order.
  SensorReadings(const HandshakeMessage& handshake, std::shared_ptr<const SensorLayout> layout,
                 std::vector<double> values, double simulated_time);

  double time() const noexcept { return time_; }
  // True when the server answered with Reset: the simulation was reset
  // from its side, and these readings are the state after the reset.
  bool after_reset() const noexcept { return after_reset_; }

  // Per-joint values, in the handshake's joint sensor order.
  const std::vector<double>& angles(const std::string& object) const;
  const std::vector<double>& angular_velocities(const std::string& object) const;
  const std::vector<double>& torques(const std::string& object) const;
  double angle(const std::string& object, const std::string& joint) const;
  double angular_velocity(const std::string& object, const std::string& joint) const;
  double torque(const std::string& object, const std::string& joint) const;
  // The types of a joint's readings, in the order angle, angular velocity, torque above: for a
  // slide joint of a coupler server, LinearPosition (m), LinearVelocity (m/s), Force1D (N).
  std::vector<ValueType> joint_types(const std::string& object, const std::string& joint) const;

  // The readings of a named sensor, one per type the handshake lists for it.
  const std::vector<Sensor>& sensor(const std::string& object, const std::string& name) const;
  // The numbers of the sensor's reading of the given type.
  const std::vector<double>& sensor(const std::string& object, const std::string& name, ValueType type) const;
  // The object's own reading of the given type (Position, RPY, ...).
  const std::vector<double>& object_sensor(const std::string& object, ValueType type) const;

  // The images asked for (the "images" extension) by camera: images().at("overview").rgb and so on,
  // views of these readings' bytes or of the shared memory they came through (camera_images.hpp).
  std::map<std::string, CameraImages> images() const;

  const SensorMessage& message() const;
  // The numbers of readings taken as a SensorLayout's flat array, in the
  // layout's order; empty for readings of a message.
  const std::vector<double>& values() const noexcept { return values_; }

 private:
  double joint_value(const std::vector<double>& values, const std::string& object, const std::string& joint,
                     const char* kind) const;
  std::size_t joint_index(const std::string& object, const std::string& joint) const;

  const HandshakeMessage* handshake_;
  double time_;
  std::shared_ptr<const SensorLayout> layout_;  // with values_, for building message_
  std::vector<double> values_;
  mutable std::optional<SensorMessage> message_;
  bool after_reset_;
  std::shared_ptr<const SharedRingReader> shared_;
};

}  // namespace coupler
