#pragma once
// Protocol enums, with the wire values of Click protocol v1.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace coupler {

inline constexpr int kProtocolVersion = 1;

enum class MessageType : int {
  HandshakeInit = 0,
  Handshake = 1,
  Control = 2,
  Sensor = 3,
  Reset = 4,
  Error = 5,
  SensorRequest = 6,
};

// What a control or sensor value means; the unit is fixed per type.
enum class ValueType : int {
  Angle = 0,                   // rad
  AngularVelocity1D = 1,       // rad/s
  Torque1D = 2,                // Nm
  Position = 3,                // m, vec3
  RPY = 4,                     // rad, vec3
  Activated = 5,               // bool
  Acceleration3D = 6,          // m/s2, vec3
  Force3D = 7,                 // N, vec3
  Torque3D = 8,                // Nm, vec3
  AngularAcceleration3D = 9,   // rad/s2, vec3
  Velocity3D = 10,             // m/s, vec3
  AngularVelocity3D = 11,      // rad/s, vec3
  Force1D = 12,                // N
  Multiple = 15,               // only as the scene-wide control type
  // coupler extension "value-types":
  LinearPosition = 100,        // m
  LinearVelocity = 101,        // m/s
  ActuatorInput = 102,         // a MuJoCo actuator's own ctrl units (a control only)
  Number = 103,                // one number of a sensor Click has no type for, in its unit
  // coupler extension "mocap" (controls only): one number of a mocap body's pose.
  MocapPosition = 104,         // m, one world-frame coordinate
  MocapQuaternion = 105,       // one component (w, x, y, z) of the world-frame orientation
};

enum class ErrorCode : int {
  VersionNotSupported = 0,
  MalformedFrame = 100,
  UnexpectedMessage = 101,
  ControlMismatch = 102,
  ServerBusy = 103,
  FrameTooLarge = 104,
  InternalError = 105,
  SessionEnded = 106,
};

// Every value of each enum, in wire order: what a binding exports and a test iterates.
inline constexpr std::array<MessageType, 7> kMessageTypes = {
    MessageType::HandshakeInit, MessageType::Handshake, MessageType::Control, MessageType::Sensor,
    MessageType::Reset,         MessageType::Error,     MessageType::SensorRequest};
inline constexpr std::array<ValueType, 20> kValueTypes = {
    ValueType::Angle,          ValueType::AngularVelocity1D, ValueType::Torque1D,
    ValueType::Position,       ValueType::RPY,               ValueType::Activated,
    ValueType::Acceleration3D, ValueType::Force3D,           ValueType::Torque3D,
    ValueType::AngularAcceleration3D, ValueType::Velocity3D, ValueType::AngularVelocity3D,
    ValueType::Force1D,        ValueType::Multiple,          ValueType::LinearPosition,
    ValueType::LinearVelocity, ValueType::ActuatorInput,     ValueType::Number,
    ValueType::MocapPosition,  ValueType::MocapQuaternion};
inline constexpr std::array<ErrorCode, 8> kErrorCodes = {
    ErrorCode::VersionNotSupported, ErrorCode::MalformedFrame, ErrorCode::UnexpectedMessage,
    ErrorCode::ControlMismatch,     ErrorCode::ServerBusy,     ErrorCode::FrameTooLarge,
    ErrorCode::InternalError,       ErrorCode::SessionEnded};

// Numbers in one value of this type: 3 for vector types, 1 otherwise.
int width(ValueType type) noexcept;

// The SI unit of every value of this type ("N m", "rad/s^2"); "" where the type fixes none: on/off
// (Activated), the scene-wide Multiple, an actuator's own input, a Number (its sensor's unit is in the
// handshake) and a quaternion component.
std::string_view unit(ValueType type) noexcept;

// True for the values a peer may legally send (Multiple included).
bool is_known(ValueType type) noexcept;

std::string_view to_string(ValueType type) noexcept;
// The name the Python package gives the type (ValueType.name there): "ANGULAR_VELOCITY_1D".
std::string python_name(ValueType type);
std::string_view to_string(MessageType type) noexcept;
std::string_view to_string(ErrorCode code) noexcept;

}  // namespace coupler
