#pragma once
// The simulation side of a connection: answers controllers' requests.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <coupler/transport/curve_keys.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/wire/limits.hpp>
#include <coupler/wire/messages.hpp>

namespace coupler {

struct ServerOptions {
  // Called with a description of every frame the server rejected and every
  // answer it could not deliver; the default writes one line to std::clog,
  // at most 10 a minute (then a count of those left out): peers choose how
  // many bad frames they send.
  std::function<void(const std::string&)> on_bad_frame;
  // ZMTP heartbeats (tcp://, ipc://): a PING after this much silence, and a
  // connection dropped when nothing came back within heartbeat_timeout, so
  // a killed controller is noticed (take_closed_peers) even while nobody
  // sends. An interval of 0 turns heartbeats off.
  std::chrono::milliseconds heartbeat_interval = limits::kHeartbeatInterval;
  std::chrono::milliseconds heartbeat_timeout = limits::kHeartbeatTimeout;
  // Frames larger than this never reach the decoder: ZeroMQ drops the
  // sender's connection instead. 0 means no limit.
  std::int64_t max_frame_bytes = limits::kMaxFrameBytes;
  // A connection that has not completed its ZMTP (and CURVE) handshake
  // within this time is dropped, so connections that send a greeting and
  // stall cannot pile up until the process runs out of file descriptors.
  // ZeroMQ's own default is 30 s; 0 means no limit.
  std::chrono::milliseconds handshake_timeout = limits::kHandshakeTimeout;
  // CurveZMQ: with a key pair set, every connection is encrypted and only
  // clients whose public key (Z85) is in curve_allowed_clients get in; each
  // refused client is reported (address and key) through on_refused_client,
  // from the authentication thread (default: one line to std::clog).
  std::optional<CurveKeyPair> curve_key_pair;
  std::vector<std::string> curve_allowed_clients;
  std::function<void(const std::string&)> on_refused_client;
  // Requests of these kinds are received undecoded: their kind is read from
  // the frame's top-level fields, a scan bounded by the frame's size, and the
  // rest is decoded by Server::complete when the caller needs it. A caller
  // that refuses most of them (a Control from a peer that may not drive) then
  // never pays for decoding a frame of pathological shape. A frame whose
  // top level does not scan is decoded on arrival, as any other.
  std::vector<MessageType> decode_on_demand;
};

// A message received by a Server, with the routing envelope its answer needs.
class Request {
 public:
  // Throws Error for a request not decoded yet (see Server::complete).
  const Message& message() const {
    if (!decoded_) throw Error("the request has not been decoded: Server::complete decodes it");
    return message_;
  }
  MessageType type() const noexcept { return type_; }
  // False for a request of a kind in ServerOptions::decode_on_demand until Server::complete decodes it.
  bool decoded() const noexcept { return decoded_; }
  // Identifies the connection it came from (stable while the peer stays connected).
  const std::string& peer() const noexcept { return envelope_.front(); }
  // The payload as it came off the wire, for code that logs, records or
  // decodes it with another codec.
  const std::string& frame() const noexcept { return frame_; }
  // A request of `peer` that came through the shared channel leased to it
  // (coupler/transport/shared_channel.hpp) rather than through the socket:
  // its answer goes back through that channel (the Server refuses to send it).
  static Request from_channel(std::string peer, Message message, std::string frame) {
    Request request({std::move(peer)}, std::move(message), std::move(frame));
    request.through_channel_ = true;
    return request;
  }
  bool through_channel() const noexcept { return through_channel_; }

 private:
  friend class Server;
  Request(std::vector<std::string> envelope, Message message, std::string frame)
      : envelope_(std::move(envelope)), message_(std::move(message)), frame_(std::move(frame)),
        type_(type_of(message_)) {}
  Request(std::vector<std::string> envelope, MessageType type, std::string frame)
      : envelope_(std::move(envelope)), frame_(std::move(frame)), type_(type), decoded_(false) {}

  std::vector<std::string> envelope_;
  Message message_;
  std::string frame_;
  MessageType type_;
  bool decoded_ = true;
  bool through_channel_ = false;
};

// What Server::receive_offering did with the request it waited for.
struct Offered {
  bool answered = false;           // the caller's answerer answered a request
  std::optional<Request> request;  // a valid request the answerer left, decoded
};

// Binds a ROUTER socket, so REQ peers (Click controllers among them) connect
// as to a REP server, while the server can leave a message unanswered and
// sees multi-frame messages for what they are.
//
// A bad frame never reaches the caller and never stops the server: it is
// answered with an ErrorMessage naming the problem (or dropped and reported
// when no answer is possible), and receiving goes on.
class Server {
 public:
  explicit Server(const std::string& address, ServerOptions options = {});
  ~Server();
  Server(Server&&) noexcept;
  Server& operator=(Server&&) noexcept;
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Blocks up to timeout for a valid request; throws TimeoutError otherwise.
  Request receive(std::chrono::milliseconds timeout);
  // The next valid request that comes within `timeout` (by default, only one already waiting); nullopt when none
  // did. An idle server's loop waits so, with no exception at each timeout.
  std::optional<Request> try_receive(std::chrono::milliseconds timeout = std::chrono::milliseconds(0));

  // Given a request's peer and payload, the frame to answer it with, or
  // nullopt to leave the request to the caller.
  using Answerer = std::function<std::optional<std::string>(const std::string& peer, std::string_view payload)>;

  // For a loop that answers some requests itself, before they are decoded
  // (coupler::HotPath): waits up to `timeout` for one request and offers its
  // payload to `answer`. A frame it returns is sent as the answer
  // (answered); a request it leaves is decoded and returned as receive()
  // returns it (a bad frame is answered, reported, and the wait goes on).
  // Neither, when the time runs out. Never throws TimeoutError.
  Offered receive_offering(std::chrono::milliseconds timeout, const Answerer& answer);
  // Decodes a request received undecoded (ServerOptions::decode_on_demand);
  // true when it is now decoded. A frame that does not decode is answered
  // and reported as on arrival (a bad frame, with an ErrorMessage naming the
  // problem) and false returned: the caller then leaves it unanswered.
  bool complete(Request& request);
  // Never blocks: an answer the peer is not ready to take, or a peer that has
  // gone, is reported through on_bad_frame and dropped.
  void reply(const Request& request, const Message& message);
  // Sends an answer already encoded (by SensorLayout::encode, say).
  void reply_frame(const Request& request, const std::string& frame);

  // The routing identities (Request::peer) of peers whose connection has
  // closed since the last call: a controller that was killed or left, or one
  // whose heartbeats stopped. Only peers that sent a valid request are
  // reported, each once. Never blocks.
  std::vector<std::string> take_closed_peers();

  // The bound address, with the port filled in when it was tcp://host:0 or *.
  std::string endpoint() const;
  std::uint64_t bad_frames() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace coupler
