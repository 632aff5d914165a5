#include <coupler/wire/types.hpp>

#include <string>

namespace coupler {

int width(ValueType type) noexcept {
  switch (type) {
    case ValueType::Position:
    case ValueType::RPY:
    case ValueType::Acceleration3D:
    case ValueType::Force3D:
    case ValueType::Torque3D:
    case ValueType::AngularAcceleration3D:
    case ValueType::Velocity3D:
    case ValueType::AngularVelocity3D:
      return 3;
    default:
      return 1;
  }
}

std::string_view unit(ValueType type) noexcept {
  switch (type) {
    case ValueType::Angle:
    case ValueType::RPY:
      return "rad";
    case ValueType::AngularVelocity1D:
    case ValueType::AngularVelocity3D:
      return "rad/s";
    case ValueType::AngularAcceleration3D:
      return "rad/s^2";
    case ValueType::Torque1D:
    case ValueType::Torque3D:
      return "N m";
    case ValueType::Force1D:
    case ValueType::Force3D:
      return "N";
    case ValueType::Position:
    case ValueType::LinearPosition:
    case ValueType::MocapPosition:
      return "m";
    case ValueType::Velocity3D:
    case ValueType::LinearVelocity:
      return "m/s";
    case ValueType::Acceleration3D:
      return "m/s^2";
    default:
      return "";
  }
}

bool is_known(ValueType type) noexcept { return !to_string(type).empty(); }

std::string python_name(ValueType type) {
  switch (type) {
    case ValueType::Angle: return "ANGLE";
    case ValueType::AngularVelocity1D: return "ANGULAR_VELOCITY_1D";
    case ValueType::Torque1D: return "TORQUE_1D";
    case ValueType::Position: return "POSITION";
    case ValueType::RPY: return "RPY";
    case ValueType::Activated: return "ACTIVATED";
    case ValueType::Acceleration3D: return "ACCELERATION_3D";
    case ValueType::Force3D: return "FORCE_3D";
    case ValueType::Torque3D: return "TORQUE_3D";
    case ValueType::AngularAcceleration3D: return "ANGULAR_ACCELERATION_3D";
    case ValueType::Velocity3D: return "VELOCITY_3D";
    case ValueType::AngularVelocity3D: return "ANGULAR_VELOCITY_3D";
    case ValueType::Force1D: return "FORCE_1D";
    case ValueType::Multiple: return "MULTIPLE";
    case ValueType::LinearPosition: return "LINEAR_POSITION";
    case ValueType::LinearVelocity: return "LINEAR_VELOCITY";
    case ValueType::ActuatorInput: return "ACTUATOR_INPUT";
    case ValueType::Number: return "NUMBER";
    case ValueType::MocapPosition: return "MOCAP_POSITION";
    case ValueType::MocapQuaternion: return "MOCAP_QUATERNION";
  }
  return std::to_string(static_cast<int>(type));
}

std::string_view to_string(ValueType type) noexcept {
  switch (type) {
    case ValueType::Angle: return "Angle";
    case ValueType::AngularVelocity1D: return "AngularVelocity1D";
    case ValueType::Torque1D: return "Torque1D";
    case ValueType::Position: return "Position";
    case ValueType::RPY: return "RPY";
    case ValueType::Activated: return "Activated";
    case ValueType::Acceleration3D: return "Acceleration3D";
    case ValueType::Force3D: return "Force3D";
    case ValueType::Torque3D: return "Torque3D";
    case ValueType::AngularAcceleration3D: return "AngularAcceleration3D";
    case ValueType::Velocity3D: return "Velocity3D";
    case ValueType::AngularVelocity3D: return "AngularVelocity3D";
    case ValueType::Force1D: return "Force1D";
    case ValueType::Multiple: return "Multiple";
    case ValueType::LinearPosition: return "LinearPosition";
    case ValueType::LinearVelocity: return "LinearVelocity";
    case ValueType::ActuatorInput: return "ActuatorInput";
    case ValueType::Number: return "Number";
    case ValueType::MocapPosition: return "MocapPosition";
    case ValueType::MocapQuaternion: return "MocapQuaternion";
  }
  return {};
}

std::string_view to_string(MessageType type) noexcept {
  switch (type) {
    case MessageType::HandshakeInit: return "HandshakeInit";
    case MessageType::Handshake: return "Handshake";
    case MessageType::Control: return "Control";
    case MessageType::Sensor: return "Sensor";
    case MessageType::Reset: return "Reset";
    case MessageType::Error: return "Error";
    case MessageType::SensorRequest: return "SensorRequest";
  }
  return "unknown";
}

std::string_view to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::VersionNotSupported: return "VersionNotSupported";
    case ErrorCode::MalformedFrame: return "MalformedFrame";
    case ErrorCode::UnexpectedMessage: return "UnexpectedMessage";
    case ErrorCode::ControlMismatch: return "ControlMismatch";
    case ErrorCode::ServerBusy: return "ServerBusy";
    case ErrorCode::FrameTooLarge: return "FrameTooLarge";
    case ErrorCode::InternalError: return "InternalError";
    case ErrorCode::SessionEnded: return "SessionEnded";
  }
  return "unknown";
}

}  // namespace coupler
