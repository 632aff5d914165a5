#pragma once
// A SensorMessage frame of one layout, kept as bytes with the place of each
// number in it, so that the frames a server sends round after round are
// written by copying numbers into a copy of it instead of serializing a
// protobuf message. A layout's frame keeps its shape while the simulated
// time is sent: every reading is a fixed-width double (or a one-byte bool)
// that protobuf writes whatever its value.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace coupler::detail {

class SensorFrameTemplate {
 public:
  // `serialize(values, time)` writes a layout's frame as protobuf does;
  // `flags` are the places in `values` of the Activated readings (sent as
  // true when not 0). The places are found by serializing marked numbers;
  // nullopt when they cannot all be found, or when the template does not
  // write `values` at `time` (a time that is sent) byte for byte as
  // `serialize` does.
  using Serialize = std::function<std::string(const double* values, double time)>;
  static std::optional<SensorFrameTemplate> build(const Serialize& serialize, std::size_t size,
                                                  const std::vector<std::size_t>& flags, const double* values,
                                                  double time);

  // The frame of `values` at `time`, a time that is sent.
  std::string fill(const double* values, double time) const;

 private:
  std::string frame_;
  // Each number sent as a double (flags are not): its index in the values, its first byte in the frame.
  std::vector<std::pair<std::size_t, std::size_t>> doubles_;
  std::vector<std::size_t> flags_;    // the values sent as bools
  std::vector<std::size_t> flag_places_;
  std::size_t time_place_ = 0;
};

}  // namespace coupler::detail
