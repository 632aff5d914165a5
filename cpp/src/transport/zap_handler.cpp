#include "transport/zap_handler.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <zmq.hpp>

#include "transport/zmq_socket.hpp"

namespace coupler::detail {
namespace {

using Clock = std::chrono::steady_clock;
// A refused client retries every reconnect interval; one line a minute says enough.
constexpr auto kRepeatLogAfter = std::chrono::seconds(60);

std::string z85(const std::string& binary_key) {
  if (binary_key.size() != 32) return "(not a 32-byte key)";
  std::array<char, 41> text{};
  zmq_z85_encode(text.data(), reinterpret_cast<const std::uint8_t*>(binary_key.data()), binary_key.size());
  return text.data();
}

std::string binary(const std::string& z85_key) {
  std::array<std::uint8_t, 32> key{};
  if (z85_key.size() != 40 || zmq_z85_decode(key.data(), z85_key.c_str()) == nullptr) {
    throw Error("'" + z85_key + "' is not a 40-character Z85 CURVE public key");
  }
  return std::string(key.begin(), key.end());
}

}  // namespace

class ZapHandler {
 public:
  struct Domain {
    std::set<std::string> allowed;  // binary keys
    std::shared_ptr<std::function<void(const std::string&)>> log;
    std::map<std::string, Clock::time_point> last_logged;  // "address key" -> when
  };

  // Guards starting and stopping, so a new handler never binds the ZAP
  // endpoint while the previous one still holds it.
  static std::mutex& lifetime_mutex() {
    static std::mutex mutex;
    return mutex;
  }

  static std::shared_ptr<ZapHandler> instance() {
    static std::weak_ptr<ZapHandler> current;
    std::lock_guard<std::mutex> lock(lifetime_mutex());
    std::shared_ptr<ZapHandler> handler = current.lock();
    if (!handler) {
      handler = std::make_shared<ZapHandler>();
      current = handler;
    }
    return handler;
  }

  ZapHandler() {
    static std::atomic<int> serial{0};
    const std::string stop_address = "inproc://coupler-zap-stop-" + std::to_string(serial++);
    checked("starting the ZAP handler", [&] {
      for (zmq::socket_t* s : {&socket_, &stop_receiver_, &stop_sender_}) s->set(zmq::sockopt::linger, 0);
      socket_.bind("inproc://zeromq.zap.01");
      stop_receiver_.bind(stop_address);
      stop_sender_.connect(stop_address);
      return 0;
    });
    thread_ = std::thread([this] { serve(); });
  }

  ~ZapHandler() {
    try {
      stop_sender_.send(zmq::str_buffer("stop"), zmq::send_flags::none);
    } catch (const zmq::error_t&) {
      // The context is going away; the thread ends on ETERM.
    }
    thread_.join();
  }

  std::string add(const std::vector<std::string>& allowed_keys, std::function<void(const std::string&)> log) {
    Domain domain;
    for (const std::string& key : allowed_keys) domain.allowed.insert(binary(key));
    domain.log = std::make_shared<std::function<void(const std::string&)>>(std::move(log));
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string name = "coupler-" + std::to_string(next_domain_++);
    domains_.emplace(name, std::move(domain));
    return name;
  }

  void remove(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    domains_.erase(name);
  }

 private:
  void serve() {
    try {
      for (;;) {
        std::array<zmq::pollitem_t, 2> items{{{socket_.handle(), 0, ZMQ_POLLIN, 0},
                                              {stop_receiver_.handle(), 0, ZMQ_POLLIN, 0}}};
        zmq::poll(items.data(), items.size(), std::chrono::milliseconds(-1));
        if (items[1].revents & ZMQ_POLLIN) return;
        if (items[0].revents & ZMQ_POLLIN) answer_one();
      }
    } catch (const zmq::error_t&) {
      // ETERM: the process is ending.
    }
  }

  // ZAP request frames (RFC 27): version, request id, domain, address,
  // routing id, mechanism, credentials (for CURVE: the client's public key).
  void answer_one() {
    std::vector<std::string> frames;
    zmq::message_t part;
    do {
      if (!socket_.recv(part, zmq::recv_flags::none)) return;
      frames.push_back(part.to_string());
    } while (part.more());
    // A REP socket must answer whatever came; a short request finds no domain and is refused.
    if (frames.size() < 7) frames.resize(7);
    const std::string& version = frames[0];
    const std::string& request_id = frames[1];
    const std::string& domain_name = frames[2];
    const std::string& address = frames[3];
    const std::string& mechanism = frames[5];
    const std::string& key = frames[6];

    bool accepted = false;
    std::shared_ptr<std::function<void(const std::string&)>> log;
    std::string refusal;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto found = domains_.find(domain_name);
      if (found != domains_.end()) {
        Domain& domain = found->second;
        accepted = mechanism == "CURVE" && domain.allowed.count(key) > 0;
        if (!accepted) {
          refusal = "refused " + mechanism + " client at " + address + " with public key " + z85(key) +
                    ": not in the allow-list";
          const auto now = Clock::now();
          auto& last = domain.last_logged[address + " " + key];
          if (last == Clock::time_point{} || now - last >= kRepeatLogAfter) {
            last = now;
            log = domain.log;
          }
          if (domain.last_logged.size() > 1024) domain.last_logged.clear();  // bounded against key-spraying peers
        }
      }
    }
    // Logged outside the lock: the callback may take its time (a Python logger).
    if (log && *log) {
      try {
        (*log)(refusal);
      } catch (...) {
        // A failing logger must not stop authentication: every later client would hang in its handshake.
      }
    }

    const std::string status = accepted ? "200" : "400";
    const std::string text = accepted ? "OK" : "client key not allowed";
    const std::array<std::string, 6> reply{version, request_id, status, text, "", ""};
    for (std::size_t i = 0; i < reply.size(); ++i) {
      socket_.send(zmq::buffer(reply[i]), i + 1 < reply.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
    }
  }

  zmq::socket_t socket_{shared_context(), zmq::socket_type::rep};
  zmq::socket_t stop_receiver_{shared_context(), zmq::socket_type::pair};
  zmq::socket_t stop_sender_{shared_context(), zmq::socket_type::pair};
  std::mutex mutex_;
  std::map<std::string, Domain> domains_;
  int next_domain_ = 0;
  std::thread thread_;
};

ZapRegistration::ZapRegistration(const std::vector<std::string>& allowed_keys,
                                 std::function<void(const std::string&)> log)
    : handler_(ZapHandler::instance()), domain_(handler_->add(allowed_keys, std::move(log))) {}

ZapRegistration::~ZapRegistration() {
  handler_->remove(domain_);
  std::lock_guard<std::mutex> lock(ZapHandler::lifetime_mutex());
  handler_.reset();  // the last one stops the handler here, before another can start
}

}  // namespace coupler::detail
