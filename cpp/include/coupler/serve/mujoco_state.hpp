#pragma once
// The MuJoCo state after a step as a serialized coupler.record.v1.MujocoState
// (proto/coupler_record.proto), written straight from mjData's arrays: the
// bytes protobuf writes (proto3: fields in number order, zero and empty
// fields left out, repeated doubles packed), without building a message.

#include <cstddef>
#include <cstdint>
#include <string>

namespace coupler {

// Numbers MuJoCo keeps in one place (mjData's arrays): the state's arrays.
struct DoubleArray {
  const double* data = nullptr;
  std::size_t size = 0;
};

struct MujocoStateArrays {
  DoubleArray qpos, qvel, act, ctrl;
  // The mocap bodies' poses (mjData's mocap_pos, 3 per body, and mocap_quat, 4 per body): no joint moves those
  // bodies, so qpos alone leaves them where the model put them. Empty for a model without mocap bodies.
  DoubleArray mocap_pos, mocap_quat;
};

// Appends the encoded state to `out` (cleared first); `world`: which world of a batched server it is of (0: left
// out, as for a server of one world).
void encode_mujoco_state(double time, std::uint64_t step, const MujocoStateArrays& arrays, std::string& out,
                         std::uint32_t world = 0);

}  // namespace coupler
