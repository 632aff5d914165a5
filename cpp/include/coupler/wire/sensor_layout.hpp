#pragma once
// Every number of the SensorMessages a server sends for one handshake, as one
// flat array of doubles, and the encoding of such a message straight from that
// array: a server loop can read its simulation into preallocated memory and
// answer without building a SensorMessage, and a controller can read the
// answer straight into such an array.

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <coupler/wire/messages.hpp>
#include <coupler/wire/types.hpp>

namespace coupler {

// Where one group of numbers of a SensorMessage sits in the flat array.
struct SensorSlot {
  enum class Part { Angles, AngularVelocities, Torques, Forces, ObjectSensor, NamedSensor };

  std::string object;
  Part part = Part::Angles;
  std::string sensor;           // NamedSensor: the sensor's name; empty otherwise
  std::size_t index = 0;        // ObjectSensor, NamedSensor: the reading's place in its list
  ValueType type = ValueType::Angle;  // the reading's type; for the per-joint parts, the jointSensors type
  std::size_t offset = 0;       // first number in the flat array
  std::size_t size = 0;         // numbers: one per joint (three for Forces), or the type's width
};

// Where one object's numbers sit, for lookups by name: its per-joint parts
// (null when jointSensors does not declare them), its object sensors' slots
// in order, and every named sensor the handshake gives it, in name order, with
// its readings' slots in order (none for a sensor without readings).
struct SensorPlaces {
  const SensorSlot* angles = nullptr;
  const SensorSlot* angular_velocities = nullptr;
  const SensorSlot* torques = nullptr;
  std::vector<const SensorSlot*> object_sensors;
  std::map<std::string, std::vector<const SensorSlot*>> sensors;
};

// The flat order, fixed by the handshake: objects in name order; per object
// its angles, angular velocities and torques (one per joint sensor, each when
// jointSensors declares it), its joint forces (three per joint, when
// declared), its object sensors in order, then its named sensors in name
// order with their readings in order. An Activated reading is one number,
// sent as true when it is not 0. The simulated time is not in the array.
//
// encode() and read() reuse protobuf messages, so a SensorLayout is not
// safe to use from two threads at once.
class SensorLayout {
 public:
  // Throws coupler::Error when the handshake names a type no sensor can carry.
  explicit SensorLayout(const HandshakeMessage& handshake);
  ~SensorLayout();
  SensorLayout(SensorLayout&&) noexcept;
  SensorLayout& operator=(SensorLayout&&) noexcept;
  SensorLayout(const SensorLayout&) = delete;
  SensorLayout& operator=(const SensorLayout&) = delete;

  // How many numbers the array holds.
  std::size_t size() const noexcept;
  // In array order.
  const std::vector<SensorSlot>& slots() const noexcept;
  // Every object of the handshake, by name.
  const std::map<std::string, SensorPlaces>& places() const noexcept;

  // The frame of message(values, simulated_time), byte for byte as
  // coupler::encode() writes it. `values` holds size() numbers.
  std::string encode(const double* values, double simulated_time);

  // The SensorMessage these numbers stand for (Activated readings as 1 or 0).
  SensorMessage message(const double* values, double simulated_time) const;

  // The inverse of encode(): for a frame that coupler::decode() reads as a
  // SensorMessage of exactly this layout's shape (the same objects, the same
  // number of readings in each part, the same named sensors, each reading of
  // its slot's type), writes its numbers to `values` (size() of them,
  // Activated readings as 1 or 0) and returns its simulated time.
  //
  // Returns nullopt for any other frame, having written some of `values`:
  // another message kind, a SensorMessage of another shape, or bytes that
  // are no valid message, which coupler::decode() then names. Never throws
  // for the frame's content.
  std::optional<double> read(std::string_view frame, double* values);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace coupler
