#pragma once
// Where a controller's time goes: send-to-reply intervals, the time spent
// inside receive calls, and (when polling) the time slept between polls.
//
// Round trips are counted in logarithmic bins 1 % wide rather than kept one
// by one, so the statistics of a controller that runs for days take the same
// 19 KiB as those of one that runs for a second; a percentile is exact to
// within 1 %. Python uses this class (coupler.controller.round_trip_stats).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace coupler {

class RoundTripStats {
 public:
  using Duration = std::chrono::duration<double>;

  RoundTripStats();

  void add_round_trip(Duration send_to_reply);
  void add_blocked(Duration blocked) { blocked_ += blocked; }
  void add_idle(Duration idle) { idle_ += idle; }
  void clear();

  std::uint64_t count() const noexcept { return count_; }
  Duration blocked() const noexcept { return blocked_; }
  Duration idle() const noexcept { return idle_; }
  Duration send_to_reply() const noexcept { return send_to_reply_; }
  // The fraction-th round trip (0.5 = median), in seconds, within 1 %; 0 when empty.
  double percentile(double fraction) const;

  // The figures as aligned text lines (no final newline); `total` is the wall time they cover.
  std::string report(Duration total, bool polling) const;

 private:
  std::vector<std::uint64_t> bins_;  // allocated once; never grows
  std::uint64_t count_ = 0;
  double min_ = 0.0;  // s
  double max_ = 0.0;  // s
  Duration send_to_reply_{0};
  Duration blocked_{0};
  Duration idle_{0};
};

}  // namespace coupler
