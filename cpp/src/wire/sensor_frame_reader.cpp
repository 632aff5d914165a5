#include "wire/sensor_frame_reader.hpp"

#include <algorithm>
#include <cstring>

namespace coupler::detail {

namespace {

bool little_endian() {
  const std::uint16_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

// A finite, nonzero double whose eight bytes differ for every index: a number
// the encoder writes as it is, to be found again in the frame.
double sentinel(std::size_t index) {
  constexpr std::uint64_t kExponent = 0x4e5ULL << 52;  // about 1e23: finite, never left out as a zero
  constexpr std::uint64_t kMantissa = (1ULL << 52) - 1;
  const std::uint64_t bits = kExponent | (((index + 1) * 0x9e3779b97f4a7c15ULL) & kMantissa);
  double value = 0.0;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// Where the eight bytes of `value` occur in `bytes`, when they occur exactly once.
std::optional<std::size_t> only_place(std::string_view bytes, double value) {
  char pattern[sizeof value];
  std::memcpy(pattern, &value, sizeof value);
  const std::string_view needle(pattern, sizeof pattern);
  const std::size_t first = bytes.find(needle);
  if (first == std::string_view::npos || bytes.find(needle, first + 1) != std::string_view::npos) return std::nullopt;
  return first;
}

}  // namespace

void SensorFrameReader::learn(std::string_view frame, const double* values, double simulated_time,
                                const std::vector<bool>& activated, const Encode& encode) {
  if (failed_tries_ >= kTriesBeforeGivingUp) return;
  const Outcome outcome = try_learn(frame, values, simulated_time, activated, encode);
  if (outcome == Outcome::learned) {
    failed_tries_ = 0;
    return;
  }
  bytes_.clear();
  if (outcome == Outcome::not_this_peer) ++failed_tries_;
}

SensorFrameReader::Outcome SensorFrameReader::try_learn(std::string_view frame, const double* values, double simulated_time,
                                    const std::vector<bool>& activated, const Encode& encode) {
  // Wire doubles are little-endian; copying them as they are needs a host that is too.
  if (!little_endian()) return Outcome::not_this_peer;
  const std::size_t count = activated.size();
  // Only a frame the same encoder writes from these numbers: then one with other numbers is laid out alike.
  if (encode(values, simulated_time) != frame) return Outcome::not_this_peer;
  std::vector<double> marked(values, values + count);
  for (std::size_t i = 0; i < count; ++i) {
    if (!activated[i]) marked[i] = sentinel(i);
  }
  const double marked_time = sentinel(count);
  const std::string marked_frame = encode(marked.data(), marked_time);
  if (marked_frame.size() != frame.size()) return Outcome::not_this_frame;  // a time of 0, left out of this frame

  std::vector<std::pair<std::size_t, std::size_t>> numbers;
  std::vector<std::pair<std::size_t, double>> constants;
  for (std::size_t i = 0; i < count; ++i) {
    if (activated[i]) {
      constants.emplace_back(i, values[i]);
      continue;
    }
    const auto place = only_place(marked_frame, marked[i]);
    if (!place) return Outcome::not_this_frame;
    numbers.emplace_back(*place, i);
  }
  const auto time_place = only_place(marked_frame, marked_time);
  if (!time_place) return Outcome::not_this_frame;
  numbers.emplace_back(*time_place, kTime);
  std::sort(numbers.begin(), numbers.end());

  std::vector<std::pair<std::size_t, std::size_t>> fixed;
  std::size_t start = 0;
  for (const auto& [offset, index] : numbers) {
    if (offset < start) return Outcome::not_this_frame;  // overlapping places: not eight bytes each of their own
    if (offset > start) fixed.emplace_back(start, offset - start);
    start = offset + sizeof(double);
  }
  if (start > frame.size()) return Outcome::not_this_frame;
  if (start < frame.size()) fixed.emplace_back(start, frame.size() - start);
  // The bytes around the numbers must be the frame's own, not just of the same length.
  for (const auto& [offset, length] : fixed) {
    if (std::memcmp(marked_frame.data() + offset, frame.data() + offset, length) != 0) {
      return Outcome::not_this_frame;
    }
  }
  bytes_.assign(frame.data(), frame.size());
  numbers_ = std::move(numbers);
  fixed_ = std::move(fixed);
  constants_ = std::move(constants);
  return Outcome::learned;
}

std::optional<double> SensorFrameReader::read(std::string_view frame, double* values) const {
  if (bytes_.empty() || frame.size() != bytes_.size()) return std::nullopt;
  for (const auto& [offset, length] : fixed_) {
    if (std::memcmp(frame.data() + offset, bytes_.data() + offset, length) != 0) return std::nullopt;
  }
  double simulated_time = 0.0;
  for (const auto& [offset, index] : numbers_) {
    std::memcpy(index == kTime ? &simulated_time : values + index, frame.data() + offset, sizeof(double));
  }
  for (const auto& [index, value] : constants_) values[index] = value;
  return simulated_time;
}

}  // namespace coupler::detail
