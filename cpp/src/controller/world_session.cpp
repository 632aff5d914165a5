#include <coupler/controller/world_session.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>

#include <coupler/wire/codec.hpp>
#include <coupler/wire/control_layout.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/wire/frame_bytes.hpp>
#include <coupler/wire/image_kinds.hpp>
#include <coupler/wire/peer_text.hpp>
#include <coupler/wire/sensor_layout.hpp>

namespace coupler {
namespace {

std::string server_of(const HandshakeMessage& handshake) {
  return handshake.server ? "the server '" + shown_peer_text(handshake.server->name) + "' " +
                                shown_peer_text(handshake.server->version)
                          : std::string("this Click server");
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + shown_peer_text(name);
  return out.empty() ? "none" : out;
}

// Throws coupler::Error unless `worlds` lists worlds below `count`, ascending, each once; `what` names the list.
void check_worlds(const std::vector<std::uint32_t>& worlds, std::uint32_t count, const std::string& what) {
  for (std::size_t k = 0; k < worlds.size(); ++k) {
    if (worlds[k] >= count) {
      throw Error(what + " names world " + std::to_string(worlds[k]) + ": this server has " + std::to_string(count) +
                  " worlds (0 to " + std::to_string(count == 0 ? 0 : count - 1) + ")");
    }
    if (k > 0 && worlds[k] <= worlds[k - 1]) {
      throw Error(what + " must list worlds in ascending order, each once; world " + std::to_string(worlds[k]) +
                  " follows world " + std::to_string(worlds[k - 1]));
    }
  }
}

const CameraDescription& camera_of(const HandshakeMessage& handshake, const std::string& name) {
  for (const CameraDescription& camera : handshake.cameras) {
    if (camera.name == name) return camera;
  }
  std::vector<std::string> names;
  for (const CameraDescription& camera : handshake.cameras) names.push_back(camera.name);
  throw Error("the server offers no camera named '" + shown_peer_text(name) + "'; it offers " + joined(names));
}

void check_images(const HandshakeMessage& handshake, const WorldStep& step) {
  if (step.images.empty()) {
    if (!step.image_worlds.empty()) throw Error("image_worlds names worlds to render, but no camera is asked for");
    return;
  }
  if (!handshake.supports(kExtensionImages)) {
    throw ExtensionNotSupportedError(kExtensionImages, "images of " + shown_peer_text(step.images.front().camera),
                                     server_of(handshake));
  }
  for (const ImageRequest& request : step.images) {
    const CameraDescription& camera = camera_of(handshake, request.camera);
    if (request.every) {
      throw Error("camera '" + shown_peer_text(request.camera) + "' asked for every " + std::to_string(*request.every) +
                  " steps: a Control for every world renders its images with each answer (give no rate)");
    }
    if (request.kinds.empty()) throw Error("camera '" + shown_peer_text(request.camera) + "' asked for no kind");
    for (const std::string& kind : request.kinds) {
      if (std::find(camera.kinds.begin(), camera.kinds.end(), kind) == camera.kinds.end()) {
        throw Error("camera '" + shown_peer_text(request.camera) + "' renders no '" + shown_peer_text(kind) +
                    "' images; it renders " + joined(camera.kinds));
      }
    }
  }
  check_worlds(step.image_worlds, handshake.worlds, "image_worlds");
}

// The float64 numbers of an array of the answer: in the frame, or where `slice` puts them in `shared`.
Span<double> doubles(const std::vector<double>& in_frame, const std::optional<SharedSlice>& slice,
                     const SharedRingReader* shared, const char* what) {
  if (!slice) return {in_frame.data(), in_frame.size()};
  if (shared == nullptr) {
    throw ProtocolError(std::string("the ") + what + " lie in shared memory this client did not map");
  }
  const std::uint8_t* bytes = shared->view(*slice);
  if (slice->length % sizeof(double) != 0 || reinterpret_cast<std::uintptr_t>(bytes) % alignof(double) != 0) {
    throw ProtocolError(std::string("the ") + what + " in shared memory take " + std::to_string(slice->length) +
                        " bytes at offset " + std::to_string(slice->offset) + ", not whole aligned float64 numbers");
  }
  return {reinterpret_cast<const double*>(bytes), static_cast<std::size_t>(slice->length / sizeof(double))};
}

Span<std::uint8_t> pixels_of(const Image& image, const SharedRingReader* shared) {
  if (!image.shared) return {reinterpret_cast<const std::uint8_t*>(image.data.data()), image.data.size()};
  if (shared == nullptr) {
    throw ProtocolError("the " + shown_peer_text(image.kind) + " images of camera '" + shown_peer_text(image.camera) +
                        "' lie in shared memory this client did not map");
  }
  return {shared->view(*image.shared), static_cast<std::size_t>(image.shared->length)};
}

}  // namespace

ImageView WorldImageStack::picture(std::size_t i) const {
  if (i >= worlds.size) {
    throw Error("picture " + std::to_string(i) + " of a stack of " + std::to_string(worlds.size) + " " + kind +
                " images");
  }
  const std::size_t size = worlds.size == 0 ? 0 : bytes.size / worlds.size;
  return ImageView{kind, width, height, {bytes.data + i * size, size}};
}

Span<double> WorldAnswer::sensors_of(std::size_t world) const {
  if (world >= worlds) {
    throw Error("no world " + std::to_string(world) + " in an answer for " + std::to_string(worlds) + " worlds");
  }
  return {sensors.data + world * sensor_width, sensor_width};
}

Span<double> WorldAnswer::data_of(std::size_t world) const {
  if (world >= worlds) {
    throw Error("no world " + std::to_string(world) + " in an answer for " + std::to_string(worlds) + " worlds");
  }
  return {data.data + world * data_width, data_width};
}

ControlMessage world_control(const HandshakeMessage& handshake, std::size_t control_width, Span<double> controls,
                             const WorldStep& step, bool shared_memory) {
  const std::size_t expected = static_cast<std::size_t>(handshake.worlds) * control_width;
  if (controls.size != 0 && controls.size != expected) {
    throw Error("controls hold " + std::to_string(controls.size) + " numbers; this server's " +
                std::to_string(handshake.worlds) + " worlds take " + std::to_string(handshake.worlds) + " x " +
                std::to_string(control_width) + " = " + std::to_string(expected) + ", world after world");
  }
  check_worlds(step.resets, handshake.worlds, "resets");
  check_images(handshake, step);
  ControlMessage control;
  control.worlds = handshake.worlds;
  control.world_controls.assign(controls.begin(), controls.end());
  control.steps = step.steps;
  control.reset_worlds = step.resets;
  control.reset_qpos = step.reset_qpos;
  control.reset_qvel = step.reset_qvel;
  control.images = step.images;
  control.image_worlds = step.image_worlds;
  control.shared_memory = shared_memory;
  return control;
}

WorldAnswer world_answer(const SensorMessage& answer, std::size_t worlds, std::size_t sensor_width,
                         const SharedRingReader* shared) {
  WorldAnswer out;
  out.worlds = worlds;
  out.sensor_width = sensor_width;
  out.sensors = doubles(answer.world_sensors, answer.world_sensors_shared, shared, "world sensors");
  out.times = {answer.world_times.data(), answer.world_times.size()};
  out.data = doubles(answer.world_data, answer.world_data_shared, shared, "world data");
  if (out.sensors.size != worlds * sensor_width || out.times.size != worlds ||
      (worlds == 0 ? out.data.size != 0 : out.data.size % worlds != 0)) {
    throw ProtocolError("the server answered with " + std::to_string(out.sensors.size) + " readings, " +
                        std::to_string(out.times.size) + " times and " + std::to_string(out.data.size) +
                        " numbers of world data for " + std::to_string(worlds) + " worlds of " +
                        std::to_string(sensor_width) + " readings");
  }
  out.data_width = worlds == 0 ? 0 : out.data.size / worlds;
  out.shared_memory = answer.world_sensors_shared || answer.world_data_shared;
  const Span<std::uint32_t> image_worlds{answer.image_worlds.data(), answer.image_worlds.size()};
  for (const Image& image : answer.world_images) {
    const std::size_t pixel = image_bytes_per_pixel(image.kind);
    if (pixel == 0) {
      throw ProtocolError("an image of camera '" + shown_peer_text(image.camera) + "' is of unknown kind '" +
                          shown_peer_text(image.kind) + "'; the kinds are rgb, depth, segmentation");
    }
    const Span<std::uint8_t> bytes = pixels_of(image, shared);
    const std::size_t expected = image_worlds.size * image.width * image.height * pixel;
    if (bytes.size != expected) {
      throw ProtocolError("the " + image.kind + " images of camera '" + shown_peer_text(image.camera) + "' have " +
                          std::to_string(bytes.size) + " bytes; " + std::to_string(image_worlds.size) + " of " +
                          std::to_string(image.width) + "x" + std::to_string(image.height) + " take " +
                          std::to_string(expected));
    }
    out.shared_memory = out.shared_memory || image.shared.has_value();
    WorldCameraImages& camera = out.images[image.camera];
    const WorldImageStack stack{image.kind, image.width, image.height, image_worlds, bytes};
    if (image.kind == "rgb") camera.rgb = stack;
    if (image.kind == "depth") camera.depth = stack;
    if (image.kind == "segmentation") camera.segmentation = stack;
  }
  return out;
}

WorldSession::WorldSession(const std::string& address, SessionOptions options)
    : owned_(std::make_unique<Session>(address, std::move(options))), session_(owned_.get()) {
  use_session();
}

WorldSession::WorldSession(Session& session) : session_(&session) { use_session(); }

void WorldSession::use_session() {
  const HandshakeMessage& handshake = session_->handshake();
  if (!handshake.supports(kExtensionWorlds) || handshake.worlds == 0) {
    throw ExtensionNotSupportedError(kExtensionWorlds, "a Control for every world", server_of(handshake));
  }
  worlds_ = handshake.worlds;
  const ControlLayout controls(handshake);
  control_width_ = controls.size() + controls.event_count();
  sensor_width_ = SensorLayout(handshake).size();
  // A larger answer would be dropped unread by ZeroMQ: the client would see only a timeout.
  const std::size_t answer = world_answer_bytes(worlds_, sensor_width_);
  const std::int64_t limit = session_->client().options().max_frame_bytes;
  if (limit > 0 && answer > static_cast<std::size_t>(limit)) {
    throw Error("an answer for this server's " + std::to_string(worlds_) + " worlds takes up to " +
                std::to_string(answer) + " bytes, beyond this client's frame limit of " + std::to_string(limit) +
                " bytes: open the Session with max_frame_bytes=" + std::to_string(answer) +
                " or more (0: no limit)");
  }
}

void WorldSession::check_frame_limit(const WorldStep& step) {
  const std::int64_t limit = session_->client().options().max_frame_bytes;
  if (limit <= 0 || step.images.empty()) return;
  const HandshakeMessage& handshake = session_->handshake();
  const std::size_t worlds = step.image_worlds.empty() ? worlds_ : step.image_worlds.size();
  std::size_t answer = world_answer_bytes(worlds_, sensor_width_);
  std::size_t kinds = 0;
  for (const ImageRequest& request : step.images) {
    const CameraDescription& camera = camera_of(handshake, request.camera);
    for (const std::string& kind : request.kinds) {
      answer += kImageOverhead + worlds * camera.width * camera.height * image_bytes_per_pixel(kind);
      ++kinds;
    }
  }
  // Through shared memory the arrays do not cross the socket, when they fit a buffer (as the server checks).
  const SharedRingReader* ring = session_->shared_memory();
  const bool shared = ring != nullptr && answer + 64 * (2 + kinds) <= ring->announced().slot_bytes;
  if (answer > static_cast<std::size_t>(limit) && !shared) {
    throw Error("the images asked for make an answer of about " + std::to_string(answer) +
                " bytes, beyond this client's frame limit of " + std::to_string(limit) +
                " bytes: open the Session with max_frame_bytes=" + std::to_string(answer) +
                " or more (0: no limit), or ask for fewer worlds or images");
  }
}

void WorldSession::send(Span<double> controls, const WorldStep& step) {
  if (waiting_) throw Error("the answer to the previous Control for every world was not received yet");
  const ControlMessage control =
      world_control(session_->handshake(), control_width_, controls, step, session_->shared_memory() != nullptr);
  check_frame_limit(step);
  answer_ = WorldAnswer{};  // the views of the last answer end here
  const Message request(control);
  if (session_->options().trace) session_->options().trace("send", request);
  sent_ = std::chrono::steady_clock::now();
  session_->client().send_frame(encode(request));
  waiting_ = true;
}

const WorldAnswer& WorldSession::receive() {
  if (!waiting_) throw Error("no Control for every world was sent: nothing to receive");
  const auto start = std::chrono::steady_clock::now();
  std::string frame = session_->client().receive_frame(session_->client().options().timeout);
  waiting_ = false;
  const auto received = std::chrono::steady_clock::now();
  session_->stats().add_blocked(received - start);
  session_->stats().add_round_trip(received - sent_);
  Message message = decode(frame);
  if (session_->options().trace) session_->options().trace("recv", message);
  if (const auto* error = std::get_if<ErrorMessage>(&message)) {
    throw RemoteError(error->code, error->text);
  }
  auto* sensors = std::get_if<SensorMessage>(&message);
  if (sensors == nullptr) {
    throw ProtocolError(ErrorCode::UnexpectedMessage, "expected Sensor for a Control for every world, got " +
                                                          std::string(to_string(type_of(message))));
  }
  auto answer = std::make_shared<const SensorMessage>(std::move(*sensors));
  answer_ = world_answer(*answer, worlds_, sensor_width_, session_->shared_memory());
  answer_.holds = std::make_shared<std::pair<std::shared_ptr<const SensorMessage>,
                                             std::shared_ptr<const SharedRingReader>>>(
      std::move(answer), session_->shared_memory_held());
  return answer_;
}

const WorldAnswer& WorldSession::step(Span<double> controls, const WorldStep& step) {
  send(controls, step);
  return receive();
}

}  // namespace coupler
