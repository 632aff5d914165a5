#pragma once
// What a controller author uses: connect and handshake once, then step.

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <coupler/transport/client.hpp>
#include <coupler/transport/shared_channel.hpp>
#include <coupler/transport/shared_ring.hpp>
#include <coupler/controller/controls.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/wire/messages.hpp>
#include <coupler/controller/round_trip_stats.hpp>
#include <coupler/wire/sensor_layout.hpp>
#include <coupler/controller/sensor_readings.hpp>

namespace coupler {

struct SessionOptions {
  ClientOptions client;
  // Wait for answers by polling without blocking, sleeping in zmq_poll
  // between polls, as a controller with other work would; default blocks.
  bool polling = false;
  // Called with "send" or "recv" and each message, for tracing.
  std::function<void(std::string_view direction, const Message&)> trace;
  // When a request times out, reconnect and handshake again up to this many
  // times (0: never; the TimeoutError is thrown). A request that changes
  // nothing (SensorRequest) is then sent again; a Control or Reset is not,
  // since the server may have applied it: ReconnectedError says so.
  int reconnect_attempts = 0;
  // At an ipc:// or inproc:// address, take images through the shared memory
  // the server announces (the "shm" extension): ImageViews then point into
  // that mapping (see camera_images.hpp for how long they hold). False: through
  // the socket, as over tcp. A ring that cannot be mapped (another user, another
  // container) is left alone, and `log` told why.
  bool shared_memory = true;
  // Told, in one line, when the session falls back on the socket for what the
  // server offered through shared memory: a ring that cannot be mapped. Default: nothing.
  std::function<void(const std::string& line)> log;
  // At an ipc:// or inproc:// address, lease the server's shared channel
  // (the "shm" extension; coupler/transport/shared_channel.hpp) in the
  // handshake: then Controls and reads go through shared memory with futex
  // wake-ups instead of the socket, from the second step after the handshake
  // or a reset on (the first one starts the simulation through the socket);
  // those asking for images too when their images come through the ring.
  // Everything else still goes through the socket, and so does a request the
  // server's channel hands back (an empty answer). A wait through the channel
  // that times out gives the channel up (a late answer would be read as the
  // next one's). Another controller holding the channel makes the handshake
  // throw RemoteError; a server that offers none leaves everything on the socket.
  bool shared_channel = false;
};

// Every call waits at most the client's timeout (ClientOptions, default 5 s)
// and throws TimeoutError past it; an ErrorMessage from the server throws
// RemoteError; an answer of the wrong kind throws ProtocolError. A session
// whose request timed out stays usable; reconnect() (or
// SessionOptions::reconnect_attempts) resumes after a server restart. A
// request that timed out because the server was unreachable stays queued and
// is delivered if that server comes back; reconnect() drops it.
class Session {
 public:
  // Connects and does the handshake.
  explicit Session(const std::string& address, SessionOptions options = {});
  ~Session();
  Session(Session&& other) noexcept;
  Session& operator=(Session&& other) noexcept;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const HandshakeMessage& handshake() const noexcept { return handshake_; }
  // A fresh Controls for this scene that holds its current state, events
  // off: a position control (Angle, LinearPosition) whose controlTargets
  // entry names one of its object's joint sensors starts at that joint's
  // current position, read with one SensorRequest (so sending it moves
  // nothing); a mocap body's MocapPosition and MocapQuaternion controls
  // start at its current position and orientation (the orientation from its
  // RPY reading, to within rounding); every other control starts at 0 (no
  // torque, no speed). Without such controls nothing is asked of the server.
  Controls controls();

  // Sends the controls, lets the simulation step, returns the new state.
  // Throws ExtensionNotSupportedError, sending nothing, for steps above 1
  // when the server did not announce the "steps" extension.
  SensorReadings step(const Controls& controls);
  // step(), asking for camera images of the new state too (the "images" extension): for instance
  // {{"overview", {"rgb", "depth"}}}; readings.images() holds them. Throws RemoteError naming an unknown
  // camera or kind (the Control is then not applied), and ExtensionNotSupportedError, sending nothing,
  // when the server did not announce "images".
  SensorReadings step(const Controls& controls, const std::vector<ImageRequest>& images);
  // step(), for a Control already encoded (a ControlLayout's frame, holding
  // `steps` steps), with `images` as the overload above takes them: the same
  // exchange without building the Control's message.
  SensorReadings step_frame(const std::string& control, std::uint64_t steps,
                            const std::vector<ImageRequest>& images = {});
  // The current state, without stepping.
  SensorReadings sensors();
  // sensors(), with camera images of that state, as step() asks for them.
  SensorReadings sensors(const std::vector<ImageRequest>& images);
  // Restores the initial state; the simulation waits for the next step().
  // `qpos`, `qvel` (the "reset-state" extension of MuJoCo scenes): then
  // starts from these generalised positions and velocities, all of the
  // model's, in its order; RemoteError when the server cannot.
  void reset(std::vector<double> qpos = {}, std::vector<double> qvel = {});
  // Restores a keyframe of handshake().keyframes instead, by name or index
  // (the "keyframes" extension), `qpos` and `qvel` as reset() takes them.
  // Throws ExtensionNotSupportedError, sending nothing, when the server did
  // not announce it, and RemoteError naming the valid keyframes for one the
  // model does not have.
  void reset_to_keyframe(const std::string& name, std::vector<double> qpos = {}, std::vector<double> qvel = {});
  void reset_to_keyframe(std::uint32_t index, std::vector<double> qpos = {}, std::vector<double> qvel = {});
  // Opens a fresh connection to the same address and does the handshake
  // again. Throws SceneChangedError, keeping the old handshake, when the
  // server now describes a different scene, unless accept_scene_change.
  void reconnect(bool accept_scene_change = false);
  // Tells the server this controller is leaving, when it announced the
  // "goodbye" extension (a Click server cannot take a message it does not
  // answer), then disconnects (waiting at most the client's linger for the
  // goodbye). A closed session throws Error for every request; reconnect()
  // opens it again. Called by the destructor.
  void close();

  // Timing of every exchange so far (the handshake included); clear() it to
  // time a phase of its own.
  RoundTripStats& stats() noexcept { return stats_; }
  // The server's ring of shared memory, mapped; null when images come through the socket.
  const SharedRingReader* shared_memory() const noexcept { return shared_.get(); }
  // The same ring, shared: views of it held past a reconnect() (which maps the new server's) stay mapped.
  std::shared_ptr<const SharedRingReader> shared_memory_held() const noexcept { return shared_; }
  const SessionOptions& options() const noexcept { return options_; }
  // True when the server leased this session its shared channel (SessionOptions::shared_channel) and no wait
  // through it timed out.
  bool shared_channel() const noexcept { return channel_ != nullptr; }
  Client& client() noexcept { return client_; }

 private:
  Message exchange(const Message& request);
  Message exchange_once(const Message& request);
  std::string exchange_frame(const std::string& request);
  // exchange_frame() for a plain Control or read: through the shared channel once it serves them.
  std::string exchange_plain(const std::string& request);
  HandshakeInitMessage handshake_init() const;
  // Called while handling a request's timeout: rethrows it unless
  // reconnect_attempts asks to reconnect; after reconnecting, throws
  // ReconnectedError for a request the server may have applied, and returns
  // for one that may be sent again.
  void recover(const TimeoutError& timeout, MessageType request);
  void reestablish(const TimeoutError& cause);
  std::string receive_polling(std::chrono::steady_clock::time_point sent);
  SensorReadings expect_sensors(const Message& request);
  // Throws ExtensionNotSupportedError for steps above 1 from a server without the "steps" extension.
  void check_steps(std::uint64_t steps) const;
  // A plain Control's frame exchanged, its answer read through the layout when it can be.
  SensorReadings step_plain(const std::string& control);
  SensorReadings step_with_images(ControlMessage control, const std::vector<ImageRequest>& images);
  void check_images(const std::vector<ImageRequest>& images) const;
  SensorReadings sensors_from(Message answer);
  // `keyframe` names the keyframe asked for, for the message when the server cannot; "" for none.
  void reset_with(const ResetMessage& request, const std::string& keyframe = "");
  void use_handshake(HandshakeMessage handshake);

  SessionOptions options_;
  Client client_;
  RoundTripStats stats_;
  HandshakeMessage handshake_;
  // Reads Sensor frames of the handshake's shape without building messages;
  // null for a handshake it cannot lay out (then every answer is decoded).
  std::shared_ptr<SensorLayout> layout_;
  // The "shm" extension's ring, mapped; readings with images keep it alive.
  std::shared_ptr<const SharedRingReader> shared_;
  // The "shm" extension's channel leased to this session, and whether the server takes requests through it yet.
  // Whether requests for images go through the shared channel: leased, ready, and their images through the ring.
  bool images_through_channel() const noexcept;
  std::unique_ptr<SharedChannelClient> channel_;
  bool channel_ready_ = false;
  bool open_ = true;
};

}  // namespace coupler
