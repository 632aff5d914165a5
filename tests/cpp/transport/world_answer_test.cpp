// encode_world_answer: the answer to a Control for every world, through the socket or the shared-memory ring.

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include <coupler/transport/shared_ring.hpp>
#include <coupler/transport/world_answer.hpp>
#include <coupler/wire/codec.hpp>
#include <coupler/wire/frame_bytes.hpp>

using coupler::SensorMessage;
using coupler::SharedRingReader;
using coupler::SharedRingWriter;
using coupler::WorldAnswerArrays;

namespace {

const std::vector<double> kSensors{1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
const std::vector<double> kTimes{0.5, 0.25};
const std::vector<double> kData{7.0, 8.0};

WorldAnswerArrays arrays() {
  return {kSensors.data(), kSensors.size(), kTimes.data(), kTimes.size(), kData.data(), kData.size()};
}

SensorMessage decoded(const std::string& frame) { return std::get<SensorMessage>(coupler::decode(frame)); }

std::vector<double> doubles(const SharedRingReader& reader, const coupler::SharedSlice& slice) {
  std::vector<double> out(slice.length / sizeof(double));
  std::memcpy(out.data(), reader.view(slice), slice.length);
  return out;
}

}  // namespace

TEST_CASE("without a ring the answer carries every world's arrays and world 0's time", "[world_answer]") {
  const SensorMessage message = decoded(coupler::encode_world_answer(arrays()));
  CHECK(message.world_sensors == kSensors);
  CHECK(message.world_times == kTimes);
  CHECK(message.world_data == kData);
  CHECK(message.simulated_time == 0.5);
}

TEST_CASE("through a ring the arrays lie in one buffer and the frame says where", "[world_answer]") {
  SharedRingWriter ring(2, 4096, 64);
  const SharedRingReader reader(ring.announced());
  const SensorMessage message = decoded(coupler::encode_world_answer(arrays(), {}, {}, &ring));
  CHECK(message.world_sensors.empty());
  REQUIRE(message.world_sensors_shared);
  REQUIRE(message.world_data_shared);
  CHECK(doubles(reader, *message.world_sensors_shared) == kSensors);
  CHECK(doubles(reader, *message.world_data_shared) == kData);
  CHECK(message.world_data_shared->offset % 64 == 0);
  CHECK(message.world_times == kTimes);
}

TEST_CASE("arrays smaller than the ring's min_bytes, or larger than a buffer, cross the socket", "[world_answer]") {
  SharedRingWriter small(2, 4096, 1 << 20);
  CHECK(decoded(coupler::encode_world_answer(arrays(), {}, {}, &small)).world_sensors == kSensors);
  const std::vector<double> many(1024, 1.0);  // 8 KiB: more than one 4 KiB buffer
  SharedRingWriter ring(2, 4096, 0);
  const WorldAnswerArrays large{many.data(), many.size(), kTimes.data(), kTimes.size(), nullptr, 0};
  CHECK(decoded(coupler::encode_world_answer(large, {}, {}, &ring)).world_sensors == many);
}

TEST_CASE("world_answer_bytes bounds the answer's frame however wide its worlds' readings and data are",
          "[world_answer]") {
  for (const std::size_t worlds : {1, 3, 1000}) {
    for (const std::size_t sensor_width : {0, 1, 7, 200}) {
      for (const std::size_t data_width : {0, 5}) {
        // Every number at its longest on the wire: times large enough to name world 0's in simVars too.
        const std::vector<double> sensors(worlds * sensor_width, -1.5e300);
        const std::vector<double> times(worlds, 1.0e300);
        const std::vector<double> data(worlds * data_width, 2.5e-300);
        const std::string frame = coupler::encode_world_answer(
            {sensors.data(), sensors.size(), times.data(), times.size(), data.data(), data.size()});
        CHECK(frame.size() <= coupler::world_answer_bytes(worlds, sensor_width, data_width));
      }
    }
  }
}
