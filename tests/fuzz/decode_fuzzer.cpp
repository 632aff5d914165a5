// libFuzzer target for everything the C++ library does with bytes from a
// peer: decode(), then encode() and describe() of whatever decodes, a Control
// checked and read by a ControlLayout, and the layouts a decoded Handshake
// gives. Any bytes must either decode or be refused with ProtocolError;
// anything else escaping (another exception, a sanitizer report, a broken
// invariant below) is a crash.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <coupler/wire/codec.hpp>
#include <coupler/wire/control_layout.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/wire/sensor_layout.hpp>
#include <google/protobuf/stubs/logging.h>

namespace {

using namespace coupler;

void require(bool holds, const char* invariant) {
  if (holds) return;
  std::fprintf(stderr, "invariant broken: %s\n", invariant);
  std::abort();
}

std::optional<Message> decoded(std::string_view frame) {
  try {
    return decode(frame);
  } catch (const ProtocolError&) {
    return std::nullopt;
  }
}

// The scene a server checks Controls against: legacy-typed and mixed objects,
// events, and an object without controls, as in tests/vectors.
const ControlLayout& scene_controls() {
  static const ControlLayout layout = [] {
    HandshakeMessage handshake;
    ObjectDescription& arm = handshake.objects["panda"];
    arm.controls = {"joint1", "joint2", "joint3"};
    arm.control_types = {ValueType::Angle, ValueType::Angle, ValueType::Angle};
    arm.control_events = {{"gripper", ValueType::Activated}, {"light", ValueType::Activated}};
    ObjectDescription& rover = handshake.objects["rover"];
    rover.controls = {"wheel_left", "wheel_right", "lift"};
    rover.control_types = {ValueType::AngularVelocity1D, ValueType::AngularVelocity1D, ValueType::Force1D};
    handshake.objects["box"];
    return ControlLayout(handshake);
  }();
  return layout;
}

void read_control(std::string_view frame) {
  const ControlLayout& layout = scene_controls();
  std::vector<double> values(layout.size(), -1.0);
  std::vector<std::uint8_t> values_set(layout.objects().size(), 2);
  std::vector<std::uint8_t> events_set(layout.event_count(), 2);
  std::vector<std::uint8_t> events_on(layout.event_count(), 2);
  const ControlTargets targets{values.data(), values_set.data(), events_set.data(), events_on.data()};
  try {
    const std::uint32_t steps = layout.decode(frame, targets);
    require(steps <= ControlLayout::kMaxSteps, "a read Control holds at most kMaxSteps steps");
    for (std::uint8_t set : values_set) require(set <= 1, "read() writes every values_set flag");
    for (std::uint8_t set : events_set) require(set <= 1, "read() writes every events_set flag");
  } catch (const ProtocolError&) {
    // Refusing a Control is a valid outcome; what matters is that it is the only one.
  }
}

// A server builds both layouts from a handshake; a handshake a peer sent must
// not break them either.
void layouts_of(const HandshakeMessage& handshake) {
  const ControlLayout controls(handshake);
  std::size_t values = 0;
  for (const auto& object : controls.objects()) values += object.size;
  require(values == controls.size(), "a ControlLayout's objects cover its values");
  std::optional<SensorLayout> sensors;
  try {
    sensors.emplace(handshake);
  } catch (const Error&) {
    return;  // documented: a handshake naming a type no sensor can carry (MULTIPLE)
  }
  const std::vector<double> zeros(sensors->size(), 0.0);
  const std::string frame = sensors->encode(zeros.data(), 0.5);
  require(frame == encode(sensors->message(zeros.data(), 0.5)),
          "SensorLayout::encode writes what encode() writes for the same message");
  require(std::holds_alternative<SensorMessage>(decode(frame)), "a SensorLayout frame decodes as a SensorMessage");
}

}  // namespace

// protobuf logs every string field that is not UTF-8; at fuzzing speed that
// buries the fuzzer's own output.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view frame(reinterpret_cast<const char*>(data), size);
  read_control(frame);
  const std::optional<Message> message = decoded(frame);
  if (!message) return 0;
  const std::string encoded = encode(*message);
  const std::optional<Message> again = decoded(encoded);
  require(again.has_value(), "every encoded message decodes");
  require(type_of(*again) == type_of(*message), "re-decoding keeps the message kind");
  require(encode(*again) == encoded, "encode(decode(encode(m))) == encode(m)");
  require(!describe(*message).empty(), "describe() names every message");
  if (const auto* handshake = std::get_if<HandshakeMessage>(&*message)) layouts_of(*handshake);
  return 0;
}
