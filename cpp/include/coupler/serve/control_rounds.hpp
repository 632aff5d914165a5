#pragma once
// The Controls of several controllers stepping together (coupler serve
// --controllers N): each controller's Control waits, applied, until every
// controller holding the simulation has sent one for the step; then the
// simulation takes the fewest steps any of them asked for (a Control without
// `steps` asks for one), so that one controller's large `steps` never carries
// the others further than they asked, and every waiting Control is answered
// with the same state. The one record of who waits: the serving loop (Python
// or coupler::HotPath) holds Controls here and takes rounds from here.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <coupler/transport/server.hpp>

namespace coupler {

class ControlRounds {
 public:
  // What one round answers: the waiting controllers' peers and requests
  // (a Control held without its request, by code that serves messages,
  // has none), and the steps the round takes.
  struct Round {
    std::vector<std::string> peers;
    std::vector<Request> requests;
    std::uint64_t steps = 0;
  };

  // `peer`'s Control waits, asking for `steps` (0: one). Throws Error when one of its Controls waits already.
  void hold(const std::string& peer, std::uint64_t steps);
  // The request to answer once the Control its peer holds is stepped. Throws Error when its peer holds none.
  void attach(Request request);
  bool holds(const std::string& peer) const;
  // How many Controls wait.
  std::size_t size() const noexcept { return held_.size(); }
  // The steps of the round once every one of `controllers` (at least one) has a Control waiting; nullopt before.
  std::optional<std::uint64_t> due(const std::vector<std::string>& controllers) const;
  // Takes the round of `controllers`' waiting Controls. Controls of other
  // peers (controllers that left) are dropped: no one waits for their answers.
  Round take(const std::vector<std::string>& controllers);
  // `peer` no longer drives: its waiting Control, if any, is dropped unanswered.
  void drop(const std::string& peer);
  // Every request waiting, for the caller to answer (the server stops); nothing waits afterwards.
  std::vector<Request> release();

 private:
  struct Held {
    std::string peer;
    std::uint64_t steps = 0;
    std::optional<Request> request;
  };
  std::vector<Held> held_;  // a handful of controllers: searched in order
};

}  // namespace coupler
