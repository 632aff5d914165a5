#pragma once
// The C++ Client as coupler._native.Client holds it: its own, or a Session's
// (coupler._native.Session.client), which the Session keeps alive.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <pybind11/pybind11.h>

#include <coupler/transport/client.hpp>

#include "conversions.hpp"

namespace coupler::python {

// coupler::ClientOptions from coupler._native.Client's keywords (seconds).
ClientOptions client_options(double timeout, double linger, double heartbeat, double heartbeat_timeout,
                             std::int64_t max_frame_bytes, std::optional<std::string> curve_server_key,
                             std::optional<std::pair<std::string, std::string>> curve_key_pair);

class ClientHandle {
 public:
  ClientHandle(const std::string& address, ClientOptions options)
      : owned_(std::make_unique<Client>(address, std::move(options))), client_(owned_.get()) {}
  explicit ClientHandle(Client& borrowed) : client_(&borrowed) {}
  ClientHandle(ClientHandle&&) noexcept = default;

  ~ClientHandle() {
    if (!owned_) return;
    // Closing waits up to the linger for queued messages (a goodbye).
    pybind11::gil_scoped_release released;
    owned_.reset();
  }

  Client& get() { return *client_; }
  const Client& get() const { return *client_; }

  std::chrono::milliseconds timeout_or_default(const std::optional<double>& timeout) const {
    return timeout ? milliseconds(*timeout) : client_->options().timeout;
  }

 private:
  std::unique_ptr<Client> owned_;
  Client* client_;
};

}  // namespace coupler::python
