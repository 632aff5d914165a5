#pragma once
// Driving every world of a batched server (`coupler serve --worlds N`, the
// "worlds" extension) with one round trip per step.
//
//   coupler::WorldSession worlds("ipc:///tmp/coupler.sock");
//   std::vector<double> controls(worlds.worlds() * worlds.control_width());   // world-major
//   coupler::WorldStep step;
//   step.images = {{"overview", {"rgb"}}};
//   const coupler::WorldAnswer& answer = worlds.step(controls, step);
//   answer.sensors_of(2);                          // world 2's readings, in the sensor layout's order
//   answer.images.at("overview").rgb->picture(2);  // world 2's picture, an ImageView
//
// The answer is a view, no copy: its spans point into the last answer this
// session received, or, for arrays that came through shared memory (the "shm"
// extension, at an ipc:// or inproc:// address), into the mapped ring. They
// stay valid until the next send() or step() (and the ring's pixels stay as
// sent until the server has sent `slots - 1` more answers through it, to any
// client: 3 with its default of 4 buffers; see camera_images.hpp). Copy what
// you keep longer.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <coupler/controller/camera_images.hpp>
#include <coupler/controller/session.hpp>
#include <coupler/transport/shared_ring.hpp>
#include <coupler/wire/messages.hpp>

namespace coupler {

// What a Control for every world asks besides the control values.
struct WorldStep {
  // Hold the controls for this many steps; 0 means one.
  std::uint64_t steps = 0;
  // These worlds (ascending, each once) restart instead of stepping: from one whole qpos (qvel) per world listed,
  // world after world, or from the scene's initial state when empty.
  std::vector<std::uint32_t> resets;
  std::vector<double> reset_qpos;
  std::vector<double> reset_qvel;
  // Images of the state after the step (the "images" extension): camera and kinds, without a rate.
  std::vector<ImageRequest> images;
  // The worlds to render them in (ascending, each once); empty: every world.
  std::vector<std::uint32_t> image_worlds;
};

// One camera's pictures of one kind in several worlds, stacked in the order of `worlds`: each picture
// width x height pixels, rows from the top of the picture down, as ImageView describes them.
struct WorldImageStack {
  std::string kind;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  Span<std::uint32_t> worlds;  // ascending
  Span<std::uint8_t> bytes;    // worlds.size pictures, one after another

  // The i-th picture of the stack (of world worlds[i]). Throws coupler::Error past the last.
  ImageView picture(std::size_t i) const;
};

// One camera's stacks; a kind not asked for is empty.
struct WorldCameraImages {
  std::optional<WorldImageStack> rgb;
  std::optional<WorldImageStack> depth;
  std::optional<WorldImageStack> segmentation;
};

// The answer to a Control for every world, as views (see the top of this file for how long they hold).
struct WorldAnswer {
  std::size_t worlds = 0;
  std::size_t sensor_width = 0;  // readings per world
  std::size_t data_width = 0;    // numbers of world data per world (`coupler serve --world-data`; 0: none)
  Span<double> sensors;          // worlds x sensor_width, world-major, in the sensor layout's order
  Span<double> times;            // each world's simulated time, s
  Span<double> data;             // worlds x data_width, world-major
  std::map<std::string, WorldCameraImages> images;
  bool shared_memory = false;    // whether any of these arrays lie in the ring rather than in the frame
  // What the views point into (the decoded answer, the mapped ring): held, they point into memory that stays,
  // past the next send() (a ring buffer's contents still change as the top of this file says).
  std::shared_ptr<const void> holds;

  // World `world`'s readings, and its world data. Throw coupler::Error for a world out of range.
  Span<double> sensors_of(std::size_t world) const;
  Span<double> data_of(std::size_t world) const;
};

// The Control for every world of a server that handshook `handshake`, checked before anything is sent: `controls`
// holds worlds x control_width numbers (world-major; none steps no world), resets, image worlds in range and
// ascending, cameras and kinds the server offers, no rate. Throws coupler::Error (ExtensionNotSupportedError for
// images of a server without cameras), one line, naming the first problem. `shared_memory`: the answer's arrays
// through the announced ring.
ControlMessage world_control(const HandshakeMessage& handshake, std::size_t control_width, Span<double> controls,
                             const WorldStep& step, bool shared_memory);

// `answer` as views, its arrays read from `shared` where they lie there. Throws ProtocolError for arrays that do
// not match `worlds` worlds of `sensor_width` readings, an image stack of an unknown kind or whose bytes do not
// fill its pictures, and arrays in shared memory without `shared`; coupler::Error for a ring buffer since rewritten.
WorldAnswer world_answer(const SensorMessage& answer, std::size_t worlds, std::size_t sensor_width,
                         const SharedRingReader* shared = nullptr);

// A Session whose server announced "worlds". Per world a Control carries control_width() numbers: the control
// values in the ControlLayout's order, then one per control event (nonzero: on); the answer holds sensor_width()
// readings per world, in the SensorLayout's order. Every wait is bounded by the session's timeout
// (ClientOptions::timeout) and blocks (SessionOptions::polling does not apply); each round trip counts in
// session().stats(), and SessionOptions::trace sees both messages. A RemoteError (a Control the server refused)
// leaves the session usable.
class WorldSession {
 public:
  // Connects and does the handshake. Throws ExtensionNotSupportedError for a server without "worlds", and
  // coupler::Error when an answer for its worlds could exceed the client's max_frame_bytes.
  explicit WorldSession(const std::string& address, SessionOptions options = {});
  // Drives `session`, already connected, which must outlive this object; throws as the constructor above.
  explicit WorldSession(Session& session);
  // Neither copied nor moved: the answer's views point into this object.
  WorldSession(const WorldSession&) = delete;
  WorldSession& operator=(const WorldSession&) = delete;

  std::uint32_t worlds() const noexcept { return worlds_; }
  std::size_t control_width() const noexcept { return control_width_; }
  std::size_t sensor_width() const noexcept { return sensor_width_; }
  const HandshakeMessage& handshake() const noexcept { return session_->handshake(); }
  Session& session() noexcept { return *session_; }

  // Sends the Control for every world (world_control() checks it first); receive() answers it. Apart, so that a
  // controller of several servers sends to all before it waits for any. Throws coupler::Error while an answer is
  // still to be received.
  void send(Span<double> controls, const WorldStep& step = {});
  void send(const std::vector<double>& controls, const WorldStep& step = {}) {
    send(Span<double>{controls.data(), controls.size()}, step);
  }
  // The answer to send(). Throws TimeoutError past the session's timeout, RemoteError for a Control the server
  // refused, coupler::Error when nothing was sent. After a TimeoutError the answer is still awaited: receive()
  // again waits for it.
  const WorldAnswer& receive();
  // send(), then receive().
  const WorldAnswer& step(Span<double> controls, const WorldStep& step = {});
  const WorldAnswer& step(const std::vector<double>& controls, const WorldStep& step = {}) {
    return this->step(Span<double>{controls.data(), controls.size()}, step);
  }

 private:
  void check_frame_limit(const WorldStep& step);
  void use_session();

  std::unique_ptr<Session> owned_;  // null when driving a session owned elsewhere
  Session* session_;
  std::chrono::steady_clock::time_point sent_;
  std::uint32_t worlds_ = 0;
  std::size_t control_width_ = 0;
  std::size_t sensor_width_ = 0;
  bool waiting_ = false;
  WorldAnswer answer_;  // views of the last answer, which answer_.holds
};

}  // namespace coupler
