#pragma once
// A ControlMessage shaped by a handshake, filled by object and control name.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <coupler/wire/messages.hpp>

namespace coupler {

// Starts with every control of every object at 0 and every event off, so a
// step sends a complete, valid Control even before the controller sets
// anything. Unknown object, control or event names throw coupler::Error.
class Controls {
 public:
  explicit Controls(const HandshakeMessage& handshake);

  // The object's values, in the handshake's control order.
  std::vector<double>& values(const std::string& object);
  const std::vector<double>& values(const std::string& object) const;
  void set(const std::string& object, const std::string& control, double value);
  double get(const std::string& object, const std::string& control) const;
  void event(const std::string& object, const std::string& name, bool activated);
  // Hold these controls for n simulation steps (the coupler steps extension).
  void steps(std::uint64_t n) { message_.steps = n; }

  const ControlMessage& message() const noexcept { return message_; }

 private:
  ObjectControl& object(const std::string& name);
  const ObjectControl& object(const std::string& name) const;
  std::size_t index(const std::string& object, const std::string& control) const;

  ControlMessage message_;
  std::map<std::string, std::map<std::string, std::size_t>> control_index_;
};

}  // namespace coupler
