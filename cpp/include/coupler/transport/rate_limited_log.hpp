#pragma once
// Log lines that peers trigger, at a bounded rate.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

namespace coupler {

// A peer can send as many bad frames, refused Controls or goodbyes as it
// likes, and each would write a line. Lines are counted per kind: the first
// `burst` of a kind in each `interval` are written, the rest only counted,
// and the next line of that kind written is preceded by one saying how many
// were left out. Python's coupler.serve.rate_limited_log binds this class.
// Kinds are a fixed, small set (a format string, a level): one window each.
class RateLimitedLog {
 public:
  using Clock = std::chrono::steady_clock;
  using Seconds = std::chrono::duration<double>;

  static constexpr std::size_t kDefaultBurst = 10;
  static constexpr std::chrono::seconds kDefaultInterval{60};

  // Throws coupler::Error unless burst >= 1 and interval > 0.
  explicit RateLimitedLog(std::size_t burst = kDefaultBurst, Seconds interval = kDefaultInterval);

  // Whether a line of `kind` is written at `now`, counting it either way: nothing when it is left
  // out, else how many lines of its kind were left out before it (when more than 0, write
  // left_out_line() of that count first).
  std::optional<std::uint64_t> admit(const std::string& kind, Clock::time_point now = Clock::now());

  // The line saying that `left_out` lines like the next were not written.
  std::string left_out_line(std::uint64_t left_out) const;

  std::size_t burst() const noexcept { return burst_; }
  Seconds interval() const noexcept { return interval_; }

 private:
  struct Window {
    Clock::time_point started;
    std::size_t written = 0;
    std::uint64_t left_out = 0;
  };

  std::size_t burst_;
  Seconds interval_;
  std::unordered_map<std::string, Window> windows_;
};

}  // namespace coupler
