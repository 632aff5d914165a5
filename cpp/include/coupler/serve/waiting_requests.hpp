#pragma once
// Requests taken from the socket that wait for their turn, served controllers
// first as ReaderShare says (reader_share.hpp).
//
// A server takes requests from its socket faster than it serves them while a
// controller steps, and keeps those of the peers that do not drive (readers,
// newcomers) here until their share comes. The C++ hot path keeps the reads
// it answers itself here; Python's lockstep loop (coupler.serve.controller_first)
// keeps every request it serves here, a driving controller's too. So the order
// both serve in is this one class's.
//
// `Request` is whatever the queue's owner serves: the hot path's
// coupler::Request, a Python object in the binding. Never blocks; the owner
// receives, tells whose request it is, and gives the time.

#include <cstddef>
#include <deque>
#include <optional>
#include <utility>

#include <coupler/serve/reader_share.hpp>

namespace coupler {

template <class Request>
class WaitingRequests {
 public:
  using Clock = ReaderShare::Clock;

  // Requests of the others kept here by default; beyond it, the rest wait in ZeroMQ's queue (a peer that floods
  // with requests without waiting for answers only waits longer).
  static constexpr std::size_t kMaxWaiting = 4096;

  explicit WaitingRequests(ReaderShare share = ReaderShare(), std::size_t max_waiting = kMaxWaiting)
      : share_(share), max_waiting_(max_waiting) {}

  // Whether no request waits here.
  bool empty() const noexcept { return controllers_.empty() && others_.empty(); }
  // Whether requests of the others wait here.
  bool others_wait() const noexcept { return !others_.empty(); }
  // Whether as many of the others' requests wait as may: the owner leaves the rest on the socket.
  bool full() const noexcept { return others_.size() >= max_waiting_; }
  std::size_t max_waiting() const noexcept { return max_waiting_; }

  // A driving controller's request was served without waiting here: the others' share renews.
  void controller_served() noexcept { share_.controller_served(); }
  // One of the others' requests was served at `now` without waiting here (none did): it uses their share.
  void other_served(Clock::time_point now) noexcept { share_.served(now); }
  // Whether one of the others may be served at `now` ahead of the controller's next request: while their share
  // lasts, or once due() has passed.
  bool may_serve(Clock::time_point now) const noexcept { return share_.may_serve(now); }
  // Whether the others' share before the controller's next request is not used up.
  bool has_share() const noexcept { return share_.has_share(); }
  // When the next of the others' is served even without a share (meaningful once the share is used).
  Clock::time_point due() const noexcept { return share_.due(); }

  // A request that arrived at `now` waits behind those that came before it: a driving controller's behind the
  // controllers', another's behind the others'.
  void arrived(Request request, bool of_controller, Clock::time_point now) {
    queue_of(of_controller, now).push_back(std::move(request));
  }

  // A request taken from the socket elsewhere (before any waiting here came) waits ahead of them.
  void handed_back(Request request, bool of_controller, Clock::time_point now) {
    queue_of(of_controller, now).push_front(std::move(request));
  }

  // A controller's request, else one of the others' if their turn has come at `now` (always, while no controller
  // is `driving`); nothing otherwise.
  std::optional<Request> take(Clock::time_point now, bool driving) {
    if (!controllers_.empty()) {
      share_.controller_served();
      return pop(controllers_);
    }
    if (!others_.empty() && (!driving || share_.may_serve(now))) return serve_other(now);
    return std::nullopt;
  }

  // The next request in the same order, the others' share aside (their controller waits for an answer, not to
  // send); nothing when none waits.
  std::optional<Request> take_any() {
    if (!controllers_.empty()) return pop(controllers_);
    if (!others_.empty()) return pop(others_);
    return std::nullopt;
  }

  // The first of the others', served at `now` on their share (or past due()). Only while others_wait().
  Request serve_other(Clock::time_point now) {
    share_.served(now);
    return pop(others_);
  }

  // Every request of the others still waiting, in order; none waits after.
  std::deque<Request> take_others() { return std::exchange(others_, {}); }

 private:
  // The queue a request of its kind waits in, at `now`: one of the others' that starts to wait where none did
  // starts their patience.
  std::deque<Request>& queue_of(bool of_controller, Clock::time_point now) {
    if (of_controller) return controllers_;
    if (others_.empty()) share_.first_waits(now);
    return others_;
  }

  static Request pop(std::deque<Request>& queue) {
    Request request = std::move(queue.front());
    queue.pop_front();
    return request;
  }

  ReaderShare share_;
  std::size_t max_waiting_;
  std::deque<Request> controllers_;
  std::deque<Request> others_;
};

}  // namespace coupler
