// The byte counts of coupler/wire/frame_bytes.hpp bound the frames the codec writes, as a server sizing its limits
// and a client checking its own rely on.

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <coupler/wire/codec.hpp>
#include <coupler/wire/frame_bytes.hpp>
#include <coupler/wire/limits.hpp>
#include <coupler/wire/messages.hpp>

using namespace coupler;

TEST_CASE("world_control_bytes bounds a Control for every world, every world stepped or every world reset") {
  for (const std::uint32_t worlds : {1u, 3u, 1000u, 70000u}) {
    for (const std::size_t width : {0, 1, 9, 40}) {
      ControlMessage stepped;
      stepped.worlds = worlds;
      stepped.steps = limits::kMaxStepsPerControl;
      stepped.world_controls.assign(worlds * width, -1.5e300);
      CHECK(encode(stepped).size() <= world_control_bytes(worlds, width));
      ControlMessage reset;
      reset.worlds = worlds;
      for (std::uint32_t world = 0; world < worlds; ++world) reset.reset_worlds.push_back(world);
      CHECK(encode(reset).size() <= world_control_bytes(worlds, width));
    }
  }
}
