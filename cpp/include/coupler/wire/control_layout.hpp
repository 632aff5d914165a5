#pragma once
// Every value and event a ControlMessage can carry for one handshake, as flat
// arrays, and the check that a Control matches the handshake: a server loop
// can take a Control straight into preallocated memory, and a controller can
// send one from such memory.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <coupler/wire/limits.hpp>
#include <coupler/wire/messages.hpp>

namespace coupler {

// Caller-owned arrays that ControlLayout::read() writes, sized by the layout.
struct ControlTargets {
  double* values = nullptr;                // size(): the objects' values, in layout order
  std::uint8_t* values_set = nullptr;      // objects().size(): 1 where the Control carried the object
  std::uint8_t* events_set = nullptr;      // event_count(): 1 where the Control carried the event
  std::uint8_t* events_on = nullptr;       // event_count(): the event's value, where set
};

// The flat order, fixed by the handshake: objects in name order, each with
// its controls in handshake order; events per object in name order.
//
// encode() reuses one prebuilt protobuf message, so a ControlLayout is not
// safe to encode from two threads at once.
class ControlLayout {
 public:
  struct Object {
    std::string name;
    std::size_t offset = 0;        // its first value in the values array
    std::size_t size = 0;          // its number of controls
    std::size_t event_offset = 0;  // its first event in the event arrays
    std::vector<std::string> events;  // in name order
  };

  static constexpr std::uint32_t kMaxSteps = limits::kMaxStepsPerControl;

  explicit ControlLayout(const HandshakeMessage& handshake);
  ~ControlLayout();
  ControlLayout(ControlLayout&&) noexcept;
  ControlLayout& operator=(ControlLayout&&) noexcept;
  ControlLayout(const ControlLayout&) = delete;
  ControlLayout& operator=(const ControlLayout&) = delete;

  std::size_t size() const noexcept { return size_; }
  std::size_t event_count() const noexcept { return event_count_; }
  const std::vector<Object>& objects() const noexcept { return objects_; }

  // Checks the Control against the handshake, then writes it to `out`: the
  // values of the objects it carries (objects left out keep what the arrays
  // hold), values_set and events_set in full, events_on where set. Returns
  // its `steps` field (0 means one step).
  //
  // Throws ProtocolError (ControlMismatch) naming the first problem, in
  // object and event name order, having written nothing: an unknown object,
  // a value count other than the object's controls, a deprecated value list
  // whose type does not fit every control, a value that is not finite, an
  // unknown event, or more than kMaxSteps steps.
  std::uint32_t read(const ControlMessage& control, const ControlTargets& out) const;

  // decode_as<ControlMessage>(frame), then read().
  std::uint32_t decode(std::string_view frame, const ControlTargets& out) const;

  // The ControlMessage frame a coupler::Controls of this handshake sends:
  // every object with controls or events, with all its values (`values`
  // holds size() numbers) and all its events (`events_on` holds
  // event_count(), each on when not 0), and `steps`. Byte for byte as
  // coupler::encode() writes that message. Checks nothing: the server does.
  std::string encode(const double* values, const std::uint8_t* events_on, std::uint64_t steps);

 private:
  struct Frame;

  void check(const ControlMessage& control) const;

  HandshakeMessage handshake_;
  std::vector<Object> objects_;
  std::size_t size_ = 0;
  std::size_t event_count_ = 0;
  std::unique_ptr<Frame> frame_;
};

}  // namespace coupler
