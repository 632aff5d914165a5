#include <coupler/controller/controls.hpp>

#include <coupler/wire/error.hpp>
#include <coupler/wire/name_list.hpp>

namespace coupler {

Controls::Controls(const HandshakeMessage& handshake) {
  for (const auto& [name, described] : handshake.objects) {
    if (described.controls.empty() && described.control_events.empty()) continue;  // not controllable
    ObjectControl& object = message_.objects[name];
    object.values.assign(described.controls.size(), 0.0);
    for (const auto& [event, type] : described.control_events) object.events[event] = false;
    auto& index = control_index_[name];
    for (std::size_t i = 0; i < described.controls.size(); ++i) index[described.controls[i]] = i;
  }
}

ObjectControl& Controls::object(const std::string& name) {
  return const_cast<ObjectControl&>(static_cast<const Controls&>(*this).object(name));
}

const ObjectControl& Controls::object(const std::string& name) const {
  auto it = message_.objects.find(name);
  if (it == message_.objects.end()) {
    throw Error("no controllable object named '" + name + "'; " + valid_names(names_of(message_.objects)));
  }
  return it->second;
}

std::size_t Controls::index(const std::string& object_name, const std::string& control) const {
  object(object_name);  // names the object when it is the unknown part
  const auto& index = control_index_.at(object_name);
  auto it = index.find(control);
  if (it == index.end()) {
    // In handshake order, as the controller's values are.
    std::vector<std::string> names(index.size());
    for (const auto& [name, i] : index) names[i] = name;
    throw Error("object '" + object_name + "' has no control named '" + control + "'; " + valid_names(names));
  }
  return it->second;
}

std::vector<double>& Controls::values(const std::string& name) { return object(name).values; }
const std::vector<double>& Controls::values(const std::string& name) const { return object(name).values; }

void Controls::set(const std::string& name, const std::string& control, double value) {
  values(name)[index(name, control)] = value;
}

double Controls::get(const std::string& name, const std::string& control) const {
  return values(name)[index(name, control)];
}

void Controls::event(const std::string& name, const std::string& event, bool activated) {
  ObjectControl& controlled = object(name);
  auto it = controlled.events.find(event);
  if (it == controlled.events.end()) {
    throw Error("object '" + name + "' has no control event named '" + event + "'; " +
                valid_names(names_of(controlled.events)));
  }
  it->second = activated;
}

}  // namespace coupler
