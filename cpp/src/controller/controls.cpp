#include <coupler/controller/controls.hpp>

#include <algorithm>

#include <coupler/wire/error.hpp>
#include <coupler/wire/name_list.hpp>

namespace coupler {

Controls::Controls(const HandshakeMessage& handshake) : layout_(std::make_shared<ControlLayout>(handshake)) {
  auto placed = std::make_shared<std::vector<Placed>>();
  for (const ControlLayout::Object& object : layout_->objects()) {
    if (object.size == 0 && object.events.empty()) continue;  // not controllable
    placed->push_back({&object, handshake.objects.at(object.name).controls});
  }
  placed_ = std::move(placed);
  values_.assign(layout_->size(), 0.0);
  events_on_.assign(layout_->event_count(), 0);
}

std::vector<std::string> Controls::objects() const {
  std::vector<std::string> names;
  names.reserve(placed_->size());
  for (const Placed& object : *placed_) names.push_back(object.layout->name);
  return names;
}

const Controls::Placed& Controls::placed(const std::string& name) const {
  const auto it = std::lower_bound(placed_->begin(), placed_->end(), name,
                                   [](const Placed& object, const std::string& n) { return object.layout->name < n; });
  if (it == placed_->end() || it->layout->name != name) {
    throw Error("no controllable object named '" + name + "'; " + valid_names(objects()));
  }
  return *it;
}

std::size_t Controls::index(const std::string& object, const std::string& control) const {
  const Placed& found = placed(object);
  const auto it = std::find(found.controls.begin(), found.controls.end(), control);
  if (it == found.controls.end()) {
    throw Error("object '" + object + "' has no control named '" + control + "'; " + valid_names(found.controls));
  }
  return found.layout->offset + static_cast<std::size_t>(it - found.controls.begin());
}

std::size_t Controls::event_index(const std::string& object, const std::string& name) const {
  const Placed& found = placed(object);
  const auto& events = found.layout->events;
  const auto it = std::find(events.begin(), events.end(), name);
  if (it == events.end()) {
    throw Error("object '" + object + "' has no control event named '" + name + "'; " + valid_names(events));
  }
  return found.layout->event_offset + static_cast<std::size_t>(it - events.begin());
}

Values Controls::values(const std::string& object) {
  const ControlLayout::Object& found = *placed(object).layout;
  return Values(found.name, values_.data() + found.offset, found.size);
}

ConstValues Controls::values(const std::string& object) const {
  const ControlLayout::Object& found = *placed(object).layout;
  return ConstValues(found.name, values_.data() + found.offset, found.size);
}

void Controls::set(const std::string& object, const std::string& control, double value) {
  values_[index(object, control)] = value;
}

double Controls::get(const std::string& object, const std::string& control) const {
  return values_[index(object, control)];
}

void Controls::event(const std::string& object, const std::string& name, bool activated) {
  events_on_[event_index(object, name)] = activated ? 1 : 0;
}

bool Controls::event(const std::string& object, const std::string& name) const {
  return events_on_[event_index(object, name)] != 0;
}

ControlMessage Controls::message() const {
  ControlMessage message;
  for (const Placed& placed : *placed_) {
    const ControlLayout::Object& object = *placed.layout;
    ObjectControl& control = message.objects[object.name];
    control.values.assign(values_.begin() + object.offset, values_.begin() + object.offset + object.size);
    for (std::size_t i = 0; i < object.events.size(); ++i) {
      control.events[object.events[i]] = events_on_[object.event_offset + i] != 0;
    }
  }
  message.steps = steps_;
  return message;
}

std::string Controls::frame() const { return layout_->encode(values_.data(), events_on_.data(), steps_); }

}  // namespace coupler
