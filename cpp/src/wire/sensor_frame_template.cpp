#include "wire/sensor_frame_template.hpp"

#include <algorithm>
#include <cstring>

namespace coupler::detail {
namespace {

// Quiet NaNs with a payload no reading has: the mark of the number at `index`.
std::uint64_t mark(std::size_t index) { return 0x7ff8000000000000ull | (0x00c0ffee00000ull + index + 1); }

double from_bits(std::uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// protobuf writes a double as its bits, little-endian.
void put(std::string& frame, std::size_t place, double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  for (int i = 0; i < 8; ++i) frame[place + i] = static_cast<char>((bits >> (8 * i)) & 0xff);
}

std::string bytes_of(std::uint64_t bits) {
  std::string out(8, '\0');
  put(out, 0, from_bits(bits));
  return out;
}

// The one place of `pattern` in `frame`; nullopt when it is not there exactly once.
std::optional<std::size_t> only_place(const std::string& frame, const std::string& pattern) {
  const std::size_t first = frame.find(pattern);
  if (first == std::string::npos || frame.find(pattern, first + 1) != std::string::npos) return std::nullopt;
  return first;
}

}  // namespace

std::optional<SensorFrameTemplate> SensorFrameTemplate::build(const Serialize& serialize, std::size_t size,
                                                              const std::vector<std::size_t>& flags,
                                                              const double* values, double time) {
  SensorFrameTemplate t;
  t.flags_ = flags;
  std::vector<double> marked(size);
  for (std::size_t k = 0; k < size; ++k) marked[k] = from_bits(mark(k));
  for (const std::size_t f : flags) marked[f] = 0.0;
  const std::string base = serialize(marked.data(), from_bits(mark(size)));
  for (std::size_t k = 0; k < size; ++k) {
    if (std::find(flags.begin(), flags.end(), k) != flags.end()) continue;
    const auto place = only_place(base, bytes_of(mark(k)));
    if (!place) return std::nullopt;
    t.doubles_.push_back({k, *place});
  }
  const auto time_place = only_place(base, bytes_of(mark(size)));
  if (!time_place) return std::nullopt;
  t.time_place_ = *time_place;
  for (const std::size_t f : flags) {
    marked[f] = 1.0;
    const std::string flipped = serialize(marked.data(), from_bits(mark(size)));
    marked[f] = 0.0;
    if (flipped.size() != base.size()) return std::nullopt;
    std::optional<std::size_t> place;
    for (std::size_t i = 0; i < base.size(); ++i) {
      if (base[i] == flipped[i]) continue;
      if (place || base[i] != '\0' || flipped[i] != '\1') return std::nullopt;
      place = i;
    }
    if (!place) return std::nullopt;
    t.flag_places_.push_back(*place);
  }
  t.frame_ = base;
  // The shape argument above, checked on real numbers.
  if (t.fill(values, time) != serialize(values, time)) return std::nullopt;
  return t;
}

std::string SensorFrameTemplate::fill(const double* values, double time) const {
  std::string frame = frame_;
  for (const auto& [index, place] : doubles_) put(frame, place, values[index]);
  for (std::size_t i = 0; i < flags_.size(); ++i) frame[flag_places_[i]] = values[flags_[i]] != 0.0 ? '\1' : '\0';
  put(frame, time_place_, time);
  return frame;
}

}  // namespace coupler::detail
