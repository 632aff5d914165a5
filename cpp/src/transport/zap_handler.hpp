#pragma once
// The ZeroMQ authentication (ZAP) handler of the process: decides which CURVE
// clients a server accepts.

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace coupler::detail {

class ZapHandler;

// While alive, CURVE handshakes on a server socket whose ZAP domain is
// domain() are accepted only from clients whose public key is allowed; every
// refused client is passed to `log` (address and key), at most once a minute
// for the same address and key. The first registration in the process starts
// the handler (a REP socket on inproc://zeromq.zap.01 in the shared context,
// served by a thread of its own); the last one to go stops it.
class ZapRegistration {
 public:
  // `allowed_keys`: Z85 public keys. `log` is called from the handler's thread.
  ZapRegistration(const std::vector<std::string>& allowed_keys, std::function<void(const std::string&)> log);
  ~ZapRegistration();
  ZapRegistration(const ZapRegistration&) = delete;
  ZapRegistration& operator=(const ZapRegistration&) = delete;

  // Set as the server socket's ZMQ_ZAP_DOMAIN.
  const std::string& domain() const noexcept { return domain_; }

 private:
  std::shared_ptr<ZapHandler> handler_;
  std::string domain_;
};

}  // namespace coupler::detail
