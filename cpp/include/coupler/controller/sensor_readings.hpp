#pragma once
// A SensorMessage read through the handshake: values by object and name.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <coupler/controller/camera_images.hpp>
#include <coupler/wire/messages.hpp>
#include <coupler/wire/sensor_layout.hpp>

namespace coupler {

// Lookups throw coupler::Error naming what is missing, so a controller that
// asks for a joint or sensor the scene does not have learns which.
//
// Readings taken as a SensorLayout's flat array (as Session::step takes a
// Sensor frame of the handshake's shape) are looked up in that array, where
// the layout places each reading; their SensorMessage is built only when
// message() is asked for. Lookups return copies of the numbers.
class SensorReadings {
 public:
  // `shared`: the ring of shared memory its images may lie in (the "shm" extension), kept mapped while they live.
  // The handshake must outlive the readings.
  SensorReadings(const HandshakeMessage& handshake, SensorMessage message, bool after_reset = false,
                 std::shared_ptr<const SharedRingReader> shared = nullptr);
  // `values` holds layout->size() numbers in the layout's order. The handshake must outlive the readings.
  SensorReadings(const HandshakeMessage& handshake, std::shared_ptr<const SensorLayout> layout,
                 std::vector<double> values, double simulated_time);
  // As above, the readings sharing the handshake.
  SensorReadings(std::shared_ptr<const HandshakeMessage> handshake, SensorMessage message, bool after_reset = false);
  SensorReadings(std::shared_ptr<const HandshakeMessage> handshake, std::shared_ptr<const SensorLayout> layout,
                 std::vector<double> values, double simulated_time);

  double time() const noexcept { return time_; }
  // True when the server answered with Reset: the simulation was reset
  // from its side, and these readings are the state after the reset.
  bool after_reset() const noexcept { return after_reset_; }

  // Per-joint values, in the handshake's joint sensor order.
  std::vector<double> angles(const std::string& object) const;
  std::vector<double> angular_velocities(const std::string& object) const;
  std::vector<double> torques(const std::string& object) const;
  double angle(const std::string& object, const std::string& joint) const;
  double angular_velocity(const std::string& object, const std::string& joint) const;
  double torque(const std::string& object, const std::string& joint) const;
  // The types of a joint's readings, in the order angle, angular velocity, torque above: for a
  // slide joint of a coupler server, LinearPosition (m), LinearVelocity (m/s), Force1D (N).
  std::vector<ValueType> joint_types(const std::string& object, const std::string& joint) const;

  // The readings of a named sensor, one per type the handshake lists for it.
  std::vector<Sensor> sensor(const std::string& object, const std::string& name) const;
  // The numbers of the sensor's reading of the given type.
  std::vector<double> sensor(const std::string& object, const std::string& name, ValueType type) const;
  // The object's own reading of the given type (Position, RPY, ...).
  std::vector<double> object_sensor(const std::string& object, ValueType type) const;

  // The images asked for (the "images" extension) by camera: images().at("overview").rgb and so on,
  // views of these readings' bytes or of the shared memory they came through (camera_images.hpp).
  std::map<std::string, CameraImages> images() const;

  const SensorMessage& message() const;
  // The numbers of readings taken as a SensorLayout's flat array, in the
  // layout's order; empty for readings of a message.
  const std::vector<double>& values() const noexcept { return values_; }
  // True for readings taken as a SensorLayout's flat array.
  bool of_array() const noexcept { return layout_ != nullptr; }

 private:
  // Which per-joint vector a lookup reads.
  enum class Part { Angles, AngularVelocities, Torques };

  std::vector<double> part(const std::string& object, Part part) const;
  const ObjectSensors& in_message(const std::string& object) const;
  const SensorPlaces& in_layout(const std::string& object) const;
  std::vector<double> numbers(const SensorSlot* slot) const;
  double joint_value(Part part, const std::string& object, const std::string& joint, const char* kind) const;
  std::size_t joint_index(const std::string& object, const std::string& joint) const;

  std::shared_ptr<const HandshakeMessage> handshake_;
  double time_;
  std::shared_ptr<const SensorLayout> layout_;  // with values_, where lookups read
  std::vector<double> values_;
  mutable std::optional<SensorMessage> message_;
  bool after_reset_;
  std::shared_ptr<const SharedRingReader> shared_;
};

}  // namespace coupler
