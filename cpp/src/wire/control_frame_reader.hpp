#pragma once
// A ControlMessage frame read straight into a ControlLayout's arrays, for the
// frames a controller sends round after round (coupler::HotPath): no
// protobuf message and no coupler::ControlMessage is built. It takes only
// the plain encoding of a Control that matches the handshake and leaves
// every other frame (another message, a legacy value list, an unknown field,
// a repeated field, a mismatch) to the full decoder, whose answer then
// names the problem: whatever it takes, coupler::decode() reads the same.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <coupler/wire/control_layout.hpp>

namespace coupler::detail {

class ControlFrameReader {
 public:
  // `layout` must outlive the reader.
  explicit ControlFrameReader(const ControlLayout& layout);

  // For a Control frame of the plain encoding that matches the layout's
  // handshake and asks for at most `max_steps` steps, writes it to `out` as
  // ControlLayout::read() does and sets `steps`; returns false, having
  // written nothing, for any other frame.
  bool read(std::string_view frame, const ControlTargets& out, std::uint64_t max_steps, std::uint64_t& steps);

 private:
  struct Sent {
    const char* values = nullptr;  // the packed doubles, little-endian
    bool carried = false;
  };

  bool read_object(std::string_view bytes, std::size_t k);

  const ControlLayout& layout_;
  std::vector<Sent> sent_;              // per object, this frame's
  std::vector<std::int8_t> events_;     // per event: -1 not sent, else 0 or 1
};

}  // namespace coupler::detail
