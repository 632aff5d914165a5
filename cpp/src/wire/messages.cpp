#include <algorithm>
#include <cstddef>

#include <coupler/wire/error.hpp>
#include <coupler/wire/messages.hpp>
#include <coupler/wire/name_list.hpp>

namespace coupler {
namespace {

template <class Map>
const typename Map::mapped_type& find_named(const Map& map, const std::string& name, const char* what) {
  auto it = map.find(name);
  if (it == map.end()) throw Error(std::string("no ") + what + " named '" + name + "'; " + valid_names(names_of(map)));
  return it->second;
}

}  // namespace

std::vector<ValueType> ObjectDescription::types_of_joint(std::size_t joint) const {
  const std::size_t width = joint_sensor_types.size();
  if (width == 0 || joint_types.size() != joint_sensors.size() * width || joint >= joint_sensors.size()) {
    return joint_sensor_types;
  }
  const auto first = joint_types.begin() + static_cast<std::ptrdiff_t>(joint * width);
  return {first, first + static_cast<std::ptrdiff_t>(width)};
}

const ObjectDescription& HandshakeMessage::object(const std::string& name) const {
  return find_named(objects, name, "object in the handshake");
}

bool HandshakeMessage::supports(const std::string& extension) const {
  return server && std::find(server->extensions.begin(), server->extensions.end(), extension) != server->extensions.end();
}

const ObjectSensors& SensorMessage::object(const std::string& name) const {
  return find_named(objects, name, "object in the sensor message");
}

const std::vector<Sensor>& ObjectSensors::sensor(const std::string& name) const {
  return find_named(sensors, name, "sensor");
}

ControlMessage::Builder ControlMessage::builder() { return Builder{}; }

ControlMessage::Builder& ControlMessage::Builder::object(const std::string& name) {
  message_.objects[name];
  current_ = name;
  has_current_ = true;
  return *this;
}

ObjectControl& ControlMessage::Builder::current() {
  if (!has_current_) throw Error("ControlMessage::Builder: call object(name) before values() or event()");
  return message_.objects[current_];
}

ControlMessage::Builder& ControlMessage::Builder::values(std::vector<double> values, ControlField field) {
  ObjectControl& object = current();
  object.values = std::move(values);
  object.field = field;
  return *this;
}

ControlMessage::Builder& ControlMessage::Builder::event(const std::string& name, bool activated) {
  current().events[name] = activated;
  return *this;
}

ControlMessage::Builder& ControlMessage::Builder::steps(std::uint64_t steps) {
  message_.steps = steps;
  return *this;
}

MessageType type_of(const Message& message) noexcept {
  // The variant's alternatives are listed in the order of this table.
  static constexpr MessageType kTypes[] = {
      MessageType::HandshakeInit, MessageType::Handshake,     MessageType::Control, MessageType::Sensor,
      MessageType::SensorRequest, MessageType::Reset,         MessageType::Error,
  };
  return kTypes[message.index()];
}

}  // namespace coupler
