#include <coupler/wire/control_layout.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

#include <coupler/wire/codec.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/wire/peer_text.hpp>

#include "coupler.pb.h"
#include "wire/deterministic_wire.hpp"

namespace coupler {
namespace {

// The texts are those of the Python server (python/coupler/control_check.py),
// so a controller reads the same refusal from either.
[[noreturn]] void mismatch(const std::string& text) {
  throw ProtocolError(ErrorCode::ControlMismatch, "control does not match the handshake: " + text);
}

// The single type each deprecated value list stands for, and its field name.
struct LegacyField {
  ValueType type;
  const char* name;
};

std::optional<LegacyField> legacy(ControlField field) {
  switch (field) {
    case ControlField::Angles: return LegacyField{ValueType::Angle, "angles"};
    case ControlField::AngularVelocities: return LegacyField{ValueType::AngularVelocity1D, "angularVelocities"};
    case ControlField::Torques: return LegacyField{ValueType::Torque1D, "torques"};
    case ControlField::Values: break;
  }
  return std::nullopt;
}

// Only non-finite values are ever named, as Python prints them.
std::string non_finite(double value) {
  if (std::isnan(value)) return "nan";
  return value > 0 ? "inf" : "-inf";
}

std::string object_list(const HandshakeMessage& handshake) {
  if (handshake.objects.empty()) return "no objects";
  std::string list;
  for (const auto& [name, object] : handshake.objects) list += (list.empty() ? "'" : ", '") + name + "'";
  return list;
}

bool controllable(const ControlLayout::Object& object) { return object.size > 0 || !object.events.empty(); }

}  // namespace

struct ControlLayout::Frame {
  // Where one object's values go in the message.
  struct Values {
    double* target;
    std::size_t offset;
    std::size_t count;
  };
  // Where one event's value goes in the message.
  struct Event {
    bool* target;
    std::size_t index;
  };

  // Built once with every field a frame carries; encode() only overwrites
  // values, so no frame allocates a message.
  coupler::v1::ControlMessage message;
  std::vector<Values> values;
  std::vector<Event> events;

  explicit Frame(const std::vector<Object>& objects) {
    message.set_messagetype(coupler::v1::ControlMessageType);
    auto& sent = *message.mutable_objects();
    for (const Object& object : objects) {
      if (!controllable(object)) continue;
      auto& o = sent[object.name];
      o.mutable_values()->Resize(static_cast<int>(object.size), 0.0);
      for (const std::string& event : object.events) (*o.mutable_controlevents())[event] = false;
    }
    // Addresses are taken once every field exists, so no insertion can move them.
    for (const Object& object : objects) {
      if (!controllable(object)) continue;
      auto& o = sent[object.name];
      values.push_back({o.mutable_values()->mutable_data(), object.offset, object.size});
      for (std::size_t i = 0; i < object.events.size(); ++i) {
        events.push_back({&(*o.mutable_controlevents())[object.events[i]], object.event_offset + i});
      }
    }
  }
};

ControlLayout::ControlLayout(const HandshakeMessage& handshake) : handshake_(handshake) {
  for (const auto& [name, object] : handshake.objects) {
    Object entry{name, size_, object.controls.size(), event_count_, {}};
    for (const auto& [event, type] : object.control_events) entry.events.push_back(event);
    size_ += entry.size;
    event_count_ += entry.events.size();
    objects_.push_back(std::move(entry));
  }
  frame_ = std::make_unique<Frame>(objects_);
}

ControlLayout::~ControlLayout() = default;
ControlLayout::ControlLayout(ControlLayout&&) noexcept = default;
ControlLayout& ControlLayout::operator=(ControlLayout&&) noexcept = default;

void ControlLayout::check(const ControlMessage& control) const {
  if (control.steps > kMaxSteps) {
    mismatch("steps " + std::to_string(control.steps) + " exceeds the maximum of " + std::to_string(kMaxSteps));
  }
  for (const auto& [name, sent] : control.objects) {
    const auto found = handshake_.objects.find(name);
    if (found == handshake_.objects.end()) {
      mismatch("unknown object '" + shown_peer_text(name) + "' (the scene has " + object_list(handshake_) + ")");
    }
    const ObjectDescription& described = found->second;
    if (sent.values.size() != described.controls.size()) {
      mismatch("object '" + name + "' has " + std::to_string(described.controls.size()) + " controls, got " +
               std::to_string(sent.values.size()) + " values");
    }
    if (const auto field = legacy(sent.field)) {
      const std::size_t typed = std::min(described.controls.size(), described.control_types.size());
      for (std::size_t i = 0; i < typed; ++i) {
        if (described.control_types[i] != field->type) {
          mismatch("'" + std::string(field->name) + "' sent for object '" + name + "', but control '" +
                   described.controls[i] + "' is " + python_name(described.control_types[i]));
        }
      }
    }
    for (std::size_t i = 0; i < sent.values.size(); ++i) {
      if (!std::isfinite(sent.values[i])) {
        mismatch("control '" + described.controls[i] + "' of object '" + name + "' is " + non_finite(sent.values[i]));
      }
    }
    for (const auto& [event, on] : sent.events) {
      if (described.control_events.count(event) == 0) {
        mismatch("unknown control event '" + shown_peer_text(event) + "' of object '" + name + "'");
      }
    }
  }
}

std::uint32_t ControlLayout::read(const ControlMessage& control, const ControlTargets& out) const {
  check(control);
  std::fill_n(out.events_set, event_count_, std::uint8_t{0});
  for (std::size_t k = 0; k < objects_.size(); ++k) {
    const Object& object = objects_[k];
    const auto sent = control.objects.find(object.name);
    out.values_set[k] = sent != control.objects.end() ? 1 : 0;
    if (sent == control.objects.end()) continue;
    std::copy(sent->second.values.begin(), sent->second.values.end(), out.values + object.offset);
    for (const auto& [event, on] : sent->second.events) {
      // Both lists are in name order and check() found every event declared.
      const auto place = std::lower_bound(object.events.begin(), object.events.end(), event);
      const std::size_t i = object.event_offset + static_cast<std::size_t>(place - object.events.begin());
      out.events_set[i] = 1;
      out.events_on[i] = on ? 1 : 0;
    }
  }
  return static_cast<std::uint32_t>(control.steps);  // at most kMaxSteps, checked above
}

std::uint32_t ControlLayout::decode(std::string_view frame, const ControlTargets& out) const {
  return read(decode_as<ControlMessage>(frame), out);
}

std::string ControlLayout::encode(const double* values, const std::uint8_t* events_on, std::uint64_t steps) {
  Frame& frame = *frame_;
  for (const Frame::Values& run : frame.values) std::copy_n(values + run.offset, run.count, run.target);
  for (const Frame::Event& event : frame.events) *event.target = events_on[event.index] != 0;
  frame.message.set_steps(steps);
  return detail::serialize_deterministic(frame.message);
}

}  // namespace coupler
