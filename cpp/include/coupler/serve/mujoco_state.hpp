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
};

// Appends the encoded state to `out` (cleared first).
void encode_mujoco_state(double time, std::uint64_t step, const MujocoStateArrays& arrays, std::string& out);

}  // namespace coupler
