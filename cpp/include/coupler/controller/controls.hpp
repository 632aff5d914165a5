#pragma once
// A Control shaped by a handshake, filled by object and control name, held as
// the flat arrays of its ControlLayout and sent straight from them.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <coupler/controller/values.hpp>
#include <coupler/wire/control_layout.hpp>
#include <coupler/wire/messages.hpp>

namespace coupler {

// Starts with every control of every object at 0 and every event off, so a
// step sends a complete, valid Control even before the controller sets
// anything. Unknown object, control or event names throw coupler::Error
// listing the valid ones.
//
// The values of all objects live in one array and the events in one flag
// array, in the order of its ControlLayout, so frame() encodes them without
// building a message. Copies share the layout, whose encoding is not safe
// from two threads at once: give each thread its own Controls.
class Controls {
 public:
  explicit Controls(const HandshakeMessage& handshake);

  // The object's values, in the handshake's control order: index, iterate or
  // assign a list of as many numbers.
  Values values(const std::string& object);
  ConstValues values(const std::string& object) const;
  void set(const std::string& object, const std::string& control, double value);
  double get(const std::string& object, const std::string& control) const;
  void event(const std::string& object, const std::string& name, bool activated);
  bool event(const std::string& object, const std::string& name) const;
  // Hold these controls for n simulation steps (the coupler steps extension); 0 means one.
  void steps(std::uint64_t n) noexcept { steps_ = n; }
  std::uint64_t steps() const noexcept { return steps_; }

  // The objects that have controls or events, in name order.
  std::vector<std::string> objects() const;
  // Every value and every event flag (1 on, 0 off), in the layout's order.
  std::vector<double>& all_values() noexcept { return values_; }
  const std::vector<double>& all_values() const noexcept { return values_; }
  std::vector<std::uint8_t>& events_on() noexcept { return events_on_; }
  const std::vector<std::uint8_t>& events_on() const noexcept { return events_on_; }
  const ControlLayout& layout() const noexcept { return *layout_; }

  // The Control these arrays hold: every object with controls or events,
  // with all its values and events, and steps().
  ControlMessage message() const;
  // encode(message()), byte for byte, written straight from the arrays.
  std::string frame() const;

 private:
  // An object with controls or events, as the layout places it, with its control names in handshake order.
  struct Placed {
    const ControlLayout::Object* layout;
    std::vector<std::string> controls;
  };

  const Placed& placed(const std::string& object) const;
  std::size_t index(const std::string& object, const std::string& control) const;
  std::size_t event_index(const std::string& object, const std::string& name) const;

  std::shared_ptr<ControlLayout> layout_;
  std::shared_ptr<const std::vector<Placed>> placed_;  // in name order, pointing into *layout_
  std::vector<double> values_;
  std::vector<std::uint8_t> events_on_;
  std::uint64_t steps_ = 0;
};

}  // namespace coupler
