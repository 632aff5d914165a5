#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coupler::detail {

// The bytes of a SensorMessage frame a layout has read in full, with where
// each of its numbers sits. A server answering step after step sends frames
// that differ only in those numbers; such a frame is read by comparing the
// bytes around the numbers and copying the numbers out, without a parse.
//
// It learns only from a frame this layout's own encoder writes byte for
// byte from the numbers it holds, so every frame it takes is one the full
// read takes with the same numbers. Any other frame (another shape, a flag
// flipped, a time of 0 left out, a peer that encodes differently) it leaves
// to the full read. A peer whose frames its encoder does not write alike is
// given up on after a few tries, so the full read costs no more than before.
class SensorFrameReader {
 public:
  using Encode = std::function<std::string(const double* values, double simulated_time)>;

  // After a full read of `frame` gave `values` (`activated[i]` says whether
  // value i is an Activated reading, 1 or 0) and `simulated_time`.
  void learn(std::string_view frame, const double* values, double simulated_time, const std::vector<bool>& activated,
             const Encode& encode);

  // The numbers of a frame of the learned shape, written to `values`, and its
  // time; nothing when the frame differs anywhere but in its numbers.
  std::optional<double> read(std::string_view frame, double* values) const;

  bool learned() const noexcept { return !bytes_.empty(); }

 private:
  enum class Outcome { learned, not_this_frame, not_this_peer };
  Outcome try_learn(std::string_view frame, const double* values, double simulated_time,
                    const std::vector<bool>& activated, const Encode& encode);

  static constexpr int kTriesBeforeGivingUp = 3;
  static constexpr std::size_t kTime = static_cast<std::size_t>(-1);  // the index standing for the time

  std::string bytes_;
  std::vector<std::pair<std::size_t, std::size_t>> numbers_;  // (byte offset, value index or kTime)
  std::vector<std::pair<std::size_t, std::size_t>> fixed_;    // (byte offset, length) that must match
  std::vector<std::pair<std::size_t, double>> constants_;     // Activated readings: (value index, 1 or 0)
  int failed_tries_ = 0;
};

}  // namespace coupler::detail
