#include <coupler/serve/mujoco_state.hpp>

#include <cstring>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the state is written by copying doubles, which protobuf stores little-endian"
#endif

namespace coupler {
namespace {

constexpr char kTimeTag = 0x09;  // field 1, fixed64
constexpr char kStepTag = 0x10;  // field 2, varint
constexpr char kArrayTags[] = {0x1a, 0x22, 0x2a, 0x32};  // fields 3..6 (qpos, qvel, act, ctrl), length-delimited
constexpr char kWorldTag = 0x38;  // field 7, varint
constexpr char kMocapTags[] = {0x42, 0x4a};  // fields 8, 9 (mocap_pos, mocap_quat), length-delimited

void append_varint(std::uint64_t value, std::string& out) {
  while (value > 0x7f) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void append_doubles(const void* data, std::size_t count, std::string& out) {
  const std::size_t at = out.size();
  out.resize(at + count * sizeof(double));
  std::memcpy(&out[at], data, count * sizeof(double));
}

void append_array(char tag, const DoubleArray& array, std::string& out) {
  if (array.size == 0) return;
  out.push_back(tag);
  append_varint(array.size * sizeof(double), out);
  append_doubles(array.data, array.size, out);
}

}  // namespace

void encode_mujoco_state(double time, std::uint64_t step, const MujocoStateArrays& arrays, std::string& out,
                         std::uint32_t world) {
  out.clear();
  if (time != 0.0) {
    out.push_back(kTimeTag);
    append_doubles(&time, 1, out);
  }
  if (step != 0) {
    out.push_back(kStepTag);
    append_varint(step, out);
  }
  const DoubleArray* fields[] = {&arrays.qpos, &arrays.qvel, &arrays.act, &arrays.ctrl};
  for (std::size_t i = 0; i < 4; ++i) append_array(kArrayTags[i], *fields[i], out);
  if (world != 0) {
    out.push_back(kWorldTag);
    append_varint(world, out);
  }
  append_array(kMocapTags[0], arrays.mocap_pos, out);
  append_array(kMocapTags[1], arrays.mocap_quat, out);
}

}  // namespace coupler
