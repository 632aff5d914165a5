#pragma once
// Where a controller's time goes: each send-to-reply interval, the time spent
// inside receive calls, and (when polling) the time slept between polls.

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <vector>

namespace coupler {

class RoundTripStats {
 public:
  using Duration = std::chrono::duration<double>;

  void add_round_trip(Duration send_to_reply) { round_trips_.push_back(send_to_reply.count()); }
  void add_blocked(Duration blocked) { blocked_ += blocked; }
  void add_idle(Duration idle) { idle_ += idle; }
  void clear() { *this = RoundTripStats{}; }

  std::size_t count() const noexcept { return round_trips_.size(); }
  Duration blocked() const noexcept { return blocked_; }
  Duration idle() const noexcept { return idle_; }
  Duration send_to_reply() const noexcept;
  // The fraction-th smallest round trip (0.5 = median), in seconds; 0 when empty.
  double percentile(double fraction) const;

  // The figures as aligned text lines; `total` is the wall time they cover.
  void print(std::ostream& out, Duration total, bool polling) const;

 private:
  std::vector<double> round_trips_;  // s
  Duration blocked_{0};
  Duration idle_{0};
};

}  // namespace coupler
