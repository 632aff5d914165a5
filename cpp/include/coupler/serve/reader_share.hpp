#pragma once
// Controllers first: how the requests of peers that do not drive (readers,
// newcomers) share the serving thread with a controller that does.
//
// ZeroMQ hands requests over in arrival order, so a controller's Control
// would wait behind every reader's SensorRequest that came before it: thirty
// readers polling the state took a controller from 4,000 to 300 steps/s.
// Instead a controller's request is served before anyone else's, and the
// others get a share: at most `share` of their requests after each request
// of the controller; with that share used, one more once `patience` has
// passed without the controller's next request, so a controller that thinks
// between steps never stalls them. A reader then waits behind at most one
// request of each controller, and thirty readers cost a controller stepping
// as fast as it can about as much server time as its own requests take.
//
// This class is the rule alone; WaitingRequests (waiting_requests.hpp), the
// queue of the C++ hot path and of Python's lockstep loop, asks it whose turn
// it is.

#include <chrono>
#include <cstdint>

namespace coupler {

class ReaderShare {
 public:
  using Clock = std::chrono::steady_clock;

  // Requests of others served after each request of a driving controller, before waiting for its next one.
  static constexpr std::uint64_t kShare = 1;
  // How long the others wait for a driving controller's next request once their share is used: longer than a
  // controller's own round trip (~0.1-0.3 ms), far shorter than the 0.5 s a reader may wait.
  static constexpr std::chrono::microseconds kPatience{2000};

  explicit ReaderShare(std::uint64_t share = kShare, std::chrono::microseconds patience = kPatience) noexcept
      : share_(share), patience_(patience), credit_(share) {}

  // A controller's request was served: the others' share is renewed.
  void controller_served() noexcept { credit_ = share_; }
  // Whether the others' share of requests before the controller's next one is not used up.
  bool has_share() const noexcept { return credit_ > 0; }
  // Whether one of the others' requests is served at `now`, ahead of the controller's next one: while their
  // share lasts, or once due() has passed.
  bool may_serve(Clock::time_point now) const noexcept { return credit_ > 0 || now >= due_; }
  // One of the others' requests was served at `now`: it uses the share (if any is left), and the next one of
  // theirs is due no sooner than the patience from now.
  void served(Clock::time_point now) noexcept {
    if (credit_ > 0) --credit_;
    due_ = now + patience_;
  }
  // One of the others' requests starts waiting at `now` where none waited: with the share used, it is due
  // once the patience has passed.
  void first_waits(Clock::time_point now) noexcept {
    if (credit_ == 0) due_ = now + patience_;
  }
  // When the next of the others' requests is served even without a share (meaningful once the share is used).
  Clock::time_point due() const noexcept { return due_; }

  std::uint64_t share() const noexcept { return share_; }
  std::chrono::microseconds patience() const noexcept { return patience_; }

 private:
  std::uint64_t share_;
  std::chrono::microseconds patience_;
  std::uint64_t credit_;  // of the others' requests, until a controller's next one
  Clock::time_point due_{};
};

}  // namespace coupler
