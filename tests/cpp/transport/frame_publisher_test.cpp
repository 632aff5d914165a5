// coupler::FramePublisher: the one-frame message layout, sequence numbers over
// all topics and within each, the scene for a new subscriber, the end message,
// and a caller that never waits for a subscriber that does not read.

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <zmq.hpp>

#include <coupler/wire/error.hpp>
#include <coupler/transport/frame_publisher.hpp>
#include <coupler/serve/mujoco_state.hpp>

#include "test_endpoints.hpp"

using coupler::FramePublisher;
using coupler::PublisherBinding;

namespace {

template <class T>
T field_at(const zmq::message_t& message, std::size_t at) {
  T value;
  std::memcpy(&value, message.data<char>() + at, sizeof value);
  return value;
}

std::string topic_of(const zmq::message_t& message) {
  const std::string text(message.data<char>(), message.size());
  return text.substr(0, text.find('\0'));
}

struct Subscriber {
  zmq::context_t context;
  zmq::socket_t socket{context, zmq::socket_type::sub};

  explicit Subscriber(const std::string& endpoint) {
    socket.set(zmq::sockopt::linger, 0);
    socket.set(zmq::sockopt::rcvtimeo, 5000);
    socket.set(zmq::sockopt::subscribe, "/coupler/");
    socket.connect(endpoint);
  }

  zmq::message_t next() {
    zmq::message_t message;
    REQUIRE(socket.recv(message));
    return message;
  }
};

PublisherBinding on(const std::string& address, int hwm = PublisherBinding::kDefaultHwm) {
  PublisherBinding binding;
  binding.address = address;
  binding.hwm = hwm;
  return binding;
}

}  // namespace

TEST_CASE("a subscriber gets the scene, then each frame as topic, NUL, header and payload, then the end") {
  FramePublisher publisher({"{}", "model.xml", "application/xml", "<mujoco/>"});
  Subscriber subscriber(publisher.bind(on(fresh_address("ipc"))));
  REQUIRE(publisher.wait_for_subscribers(1, std::chrono::seconds(10)));
  publisher.publish("/coupler/requests/Control", "ab", 11, FramePublisher::kNoTime);
  publisher.publish("/coupler/answers/Sensor", "cde", 12, 2000000);
  publisher.publish("/coupler/requests/Control", "", 13, FramePublisher::kNoTime);
  publisher.close();

  // One frame: topic, NUL, then each part's length (uint64) and bytes.
  const zmq::message_t scene = subscriber.next();
  CHECK_FALSE(scene.more());
  CHECK(topic_of(scene) == "/coupler/scene");
  std::vector<std::string> parts;
  for (std::size_t at = topic_of(scene).size() + 1; at + 8 <= scene.size();) {
    const auto length = field_at<std::uint64_t>(scene, at);
    REQUIRE(at + 8 + length <= scene.size());
    parts.emplace_back(scene.data<char>() + at + 8, length);
    at += 8 + length;
  }
  CHECK(parts == std::vector<std::string>{"{}", "model.xml", "application/xml", "<mujoco/>"});

  const std::uint64_t topic_sequences[] = {0, 0, 1};
  const std::int64_t simulated[] = {-1, 2000000, -1};
  const std::string payloads[] = {"ab", "cde", ""};
  for (std::uint64_t i = 0; i < 3; ++i) {
    const zmq::message_t frame = subscriber.next();
    const std::size_t header = topic_of(frame).size() + 1;
    REQUIRE(frame.size() == header + FramePublisher::kHeaderBytes + payloads[i].size());
    CHECK(field_at<std::uint64_t>(frame, header) == i);
    CHECK(field_at<std::uint64_t>(frame, header + 8) == topic_sequences[i]);
    CHECK(field_at<std::int64_t>(frame, header + 16) == static_cast<std::int64_t>(11 + i));
    CHECK(field_at<std::int64_t>(frame, header + 24) == simulated[i]);
    CHECK(std::string(frame.data<char>() + header + FramePublisher::kHeaderBytes, payloads[i].size()) == payloads[i]);
  }
  const zmq::message_t end = subscriber.next();
  CHECK(topic_of(end) == "/coupler/end");
  CHECK(field_at<std::uint64_t>(end, end.size() - 8) == 3);
}

TEST_CASE("publishing never waits for a subscriber that reads nothing") {
  FramePublisher publisher({"{}"});
  Subscriber stuck(publisher.bind(on(fresh_address("ipc"), 10)));
  REQUIRE(publisher.wait_for_subscribers(1, std::chrono::seconds(10)));
  const std::string payload(1000, 'x');
  for (int i = 0; i < 100000; ++i) publisher.publish("/coupler/answers/Sensor", payload, 0, 0);
  CHECK(publisher.sent() == 100000);
}

TEST_CASE("an address that cannot be bound is an error naming it") {
  FramePublisher publisher({"{}"});
  try {
    publisher.bind(on("tcp://192.0.2.1:5556"));
    FAIL("bound an address of no interface here");
  } catch (const coupler::Error& e) {
    CHECK(std::string(e.what()).find("cannot publish on tcp://192.0.2.1:5556") == 0);
  }
}

TEST_CASE("the state is protobuf's encoding of MujocoState: zero fields left out, doubles packed") {
  const double qpos[] = {1.0, 2.0};
  const double ctrl[] = {0.5};
  coupler::MujocoStateArrays arrays;
  arrays.qpos = {qpos, 2};
  arrays.ctrl = {ctrl, 1};
  std::string out;
  coupler::encode_mujoco_state(0.0, 300, arrays, out);
  std::string expected = "\x10\xac\x02\x1a\x10";  // step 300 (varint), then qpos: 16 bytes
  expected.append(reinterpret_cast<const char*>(qpos), 16);
  expected += "\x32\x08";  // ctrl: 8 bytes
  expected.append(reinterpret_cast<const char*>(ctrl), 8);
  CHECK(out == expected);
}

TEST_CASE("the state's world and mocap poses follow ctrl in field order, the poses as packed doubles") {
  const double ctrl[] = {0.5};
  const double mocap_pos[] = {0.1, 0.2, 0.3};
  const double mocap_quat[] = {1.0, 0.0, 0.0, 0.0};
  coupler::MujocoStateArrays arrays;
  arrays.ctrl = {ctrl, 1};
  arrays.mocap_pos = {mocap_pos, 3};
  arrays.mocap_quat = {mocap_quat, 4};
  std::string out;
  coupler::encode_mujoco_state(0.0, 0, arrays, out, 2);
  std::string expected = "\x32\x08";  // ctrl: 8 bytes
  expected.append(reinterpret_cast<const char*>(ctrl), 8);
  expected += "\x38\x02";  // world 2 (varint)
  expected += "\x42\x18";  // mocap_pos: 24 bytes
  expected.append(reinterpret_cast<const char*>(mocap_pos), 24);
  expected += "\x4a\x20";  // mocap_quat: 32 bytes
  expected.append(reinterpret_cast<const char*>(mocap_quat), 32);
  CHECK(out == expected);
}
