#pragma once
// A controller's connection to a simulation server.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <coupler/transport/curve_keys.hpp>
#include <coupler/wire/limits.hpp>
#include <coupler/wire/messages.hpp>

namespace coupler {

struct ClientOptions {
  // How long receive() and request() wait for an answer by default.
  std::chrono::milliseconds timeout = limits::kRequestTimeout;
  // How long closing waits to deliver messages still queued (a goodbye to
  // a server that is slow to read), before dropping them.
  std::chrono::milliseconds linger{200};
  // ZMTP heartbeats (tcp://, ipc://): a PING after this much silence, and
  // the connection dropped when nothing at all came back within
  // heartbeat_timeout, so a dead server is noticed even while nobody sends.
  // An interval of 0 turns heartbeats off.
  std::chrono::milliseconds heartbeat_interval = limits::kHeartbeatInterval;
  std::chrono::milliseconds heartbeat_timeout = limits::kHeartbeatTimeout;
  // Frames larger than this are never read: ZeroMQ drops the connection
  // instead. 0 means no limit.
  std::int64_t max_frame_bytes = limits::kMaxFrameBytes;
  // CurveZMQ: with both set, the connection is encrypted and this client
  // authenticates with its own key pair to a server holding
  // server_public_key (Z85; load_curve_public_key reads a NAME.key file).
  std::optional<CurveKeyPair> curve_key_pair;
  std::string curve_server_key;
};

// Connects to a server's REP or ROUTER socket over tcp://, ipc:// or
// inproc://. Strictly in turn: send one message, then receive its answer.
// A request that timed out does not wedge the client: the next send()
// starts a new request and a late answer to the old one is discarded.
//
// Clients and servers in one process share one ZeroMQ context, so inproc://
// addresses work between them.
class Client {
 public:
  explicit Client(const std::string& address, ClientOptions options = {});
  ~Client();
  Client(Client&&) noexcept;
  Client& operator=(Client&&) noexcept;
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  void send(const Message& message);
  // Sends a raw frame, for tools that replay captured traffic.
  void send_frame(const std::string& frame);

  // Blocks up to the default timeout; throws TimeoutError when nothing came,
  // ProtocolError when the answer is not a valid message.
  Message receive();
  Message receive(std::chrono::milliseconds timeout);
  // Non-blocking: nullopt when no answer has arrived yet.
  std::optional<Message> try_receive();
  // Like receive(timeout), but hands back the answer's frame undecoded, for
  // tools that record or compare traffic.
  std::string receive_frame(std::chrono::milliseconds timeout);
  // Like try_receive(), undecoded.
  std::optional<std::string> try_receive_frame();
  // Blocks until an answer is ready to read or the timeout passes; true when ready.
  bool wait(std::chrono::milliseconds timeout);

  // send() then receive().
  Message request(const Message& message);

  // Closes the socket, dropping whatever was queued or under way, and opens
  // a fresh one to the same address with the same options: after a server
  // restart, to abandon a request for good, or to open a closed client again.
  void reconnect();
  // Disconnects, waiting at most the linger to deliver what is queued (a
  // goodbye). Every later call but reconnect() throws Error. Safe to call twice.
  void close();
  // The security mechanism the socket uses: "CURVE" or "NULL".
  std::string mechanism() const;

  const std::string& address() const noexcept;
  const ClientOptions& options() const noexcept;
  // Changes options().timeout: how long later sends and receive() wait.
  void set_timeout(std::chrono::milliseconds timeout);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace coupler
