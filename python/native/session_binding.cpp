#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <coupler/controller/session.hpp>
#include <coupler/wire/error.hpp>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "client_handle.hpp"
#include "conversions.hpp"
#include "image_requests_of.hpp"
#include "message_objects.hpp"

namespace py = pybind11;

namespace coupler::python {

std::vector<ImageRequest> image_requests_of(const py::object& images) {
  if (images.is_none()) return {};
  py::object request = py::module_::import("coupler.wire.messages").attr("SensorRequestMessage")(py::arg("images") = images);
  return std::get<SensorRequestMessage>(to_message(request)).images;
}

namespace {

// A Python trace callable that C++ may call, copy and drop without the GIL:
// it takes the GIL for each, and an exception it raises goes on to the caller.
class Trace {
 public:
  explicit Trace(py::object callable) : callable_(new py::object(std::move(callable)), release) {}

  void operator()(std::string_view direction, const Message& message) const {
    py::gil_scoped_acquire gil;
    (*callable_)(std::string(direction), to_python(message));
  }

 private:
  static void release(py::object* callable) {
    py::gil_scoped_acquire gil;
    delete callable;
  }

  std::shared_ptr<py::object> callable_;
};

// One line of the session's (SessionOptions::log) to the Python logger coupler.controller.session, at INFO.
void log_to_python(const std::string& line) {
  py::gil_scoped_acquire gil;
  py::module_::import("logging").attr("getLogger")("coupler.controller.session").attr("info")("%s", line);
}

std::unique_ptr<Session> make_session(const std::string& address, double timeout, bool polling, py::object trace,
                                      int reconnect_attempts, bool shared_memory, bool shared_channel, double linger,
                                      double heartbeat, double heartbeat_timeout, std::int64_t max_frame_bytes,
                                      std::optional<std::string> curve_server_key,
                                      std::optional<std::pair<std::string, std::string>> curve_key_pair) {
  SessionOptions options;
  options.client = client_options(timeout, linger, heartbeat, heartbeat_timeout, max_frame_bytes,
                                  std::move(curve_server_key), std::move(curve_key_pair));
  options.polling = polling;
  if (!trace.is_none()) options.trace = Trace(std::move(trace));
  options.reconnect_attempts = reconnect_attempts;
  options.shared_memory = shared_memory;
  options.shared_channel = shared_channel;
  options.log = log_to_python;
  py::gil_scoped_release released;  // the handshake blocks; a trace takes the GIL back
  return std::make_unique<Session>(address, std::move(options));
}

}  // namespace

void bind_session(py::module_& module) {
  const SessionOptions defaults;
  py::class_<Session>(module, "Session",
                      "coupler::Session, for coupler.controller.Session, which builds its Controls and "
                      "SensorReadings around it. Blocking calls release the GIL; a trace takes it back for each call.")
      .def(py::init(&make_session), py::arg("address"), py::arg("timeout") = seconds(defaults.client.timeout),
           py::arg("polling") = defaults.polling, py::arg("trace") = py::none(),
           py::arg("reconnect_attempts") = defaults.reconnect_attempts,
           py::arg("shared_memory") = defaults.shared_memory, py::arg("shared_channel") = defaults.shared_channel,
           py::arg("linger") = seconds(defaults.client.linger),
           py::arg("heartbeat") = seconds(defaults.client.heartbeat_interval),
           py::arg("heartbeat_timeout") = seconds(defaults.client.heartbeat_timeout),
           py::arg("max_frame_bytes") = defaults.client.max_frame_bytes, py::arg("curve_server_key") = py::none(),
           py::arg("curve_key_pair") = py::none(),
           "coupler::SessionOptions as keywords (the client's as coupler._native.Client takes them); connects and "
           "does the handshake.")
      .def_property_readonly("handshake", [](const Session& s) { return to_python(Message(s.handshake())); })
      .def(
          "controls",
          [](Session& s) {
            py::gil_scoped_release released;
            return s.controls();
          },
          "coupler::Session::controls(): a coupler._native.Controls holding every control at its current state.")
      .def(
          "step",
          [](Session& s, const py::bytes& frame, std::uint64_t steps, const py::object& images) {
            const std::vector<ImageRequest> requests = image_requests_of(images);
            const std::string control(frame);
            std::optional<SensorReadings> readings;
            {
              py::gil_scoped_release released;
              readings.emplace(s.step_frame(control, steps, requests));
            }
            return std::move(*readings);
          },
          py::arg("frame"), py::arg("steps"), py::arg("images") = py::none(), py::keep_alive<0, 1>(),
          "Session::step_frame: the encoded Control (holding `steps` steps), with `images` (ImageRequest values); "
          "a coupler._native.SensorReadings, which keeps the session (whose handshake it reads through) alive.")
      .def(
          "sensors",
          [](Session& s, const py::object& images) {
            const std::vector<ImageRequest> requests = image_requests_of(images);
            std::optional<SensorReadings> readings;
            {
              py::gil_scoped_release released;
              readings.emplace(requests.empty() ? s.sensors() : s.sensors(requests));
            }
            return std::move(*readings);
          },
          py::arg("images") = py::none(), py::keep_alive<0, 1>(), "Session::sensors, the readings as step gives them.")
      .def(
          "reset",
          [](Session& s, std::vector<double> qpos, std::vector<double> qvel,
             std::optional<std::variant<std::uint32_t, std::string>> keyframe) {
            py::gil_scoped_release released;
            if (!keyframe) {
              s.reset(std::move(qpos), std::move(qvel));
            } else if (const auto* index = std::get_if<std::uint32_t>(&*keyframe)) {
              s.reset_to_keyframe(*index, std::move(qpos), std::move(qvel));
            } else {
              s.reset_to_keyframe(std::get<std::string>(*keyframe), std::move(qpos), std::move(qvel));
            }
          },
          py::arg("qpos"), py::arg("qvel"), py::arg("keyframe") = py::none(),
          "Session::reset, or reset_to_keyframe by index (int) or name (str).")
      .def(
          "reconnect",
          [](Session& s, bool accept_scene_change) {
            py::gil_scoped_release released;
            s.reconnect(accept_scene_change);
          },
          py::arg("accept_scene_change") = false)
      .def(
          "close",
          [](Session& s) {
            py::gil_scoped_release released;
            s.close();
          },
          "Session::close: the goodbye, then disconnect. Safe to call twice.")
      .def_property_readonly("stats", &Session::stats, py::return_value_policy::reference_internal)
      .def_property_readonly("shared_channel", &Session::shared_channel)
      .def_property_readonly(
          "shared_memory",
          [](const Session& s) { return std::const_pointer_cast<SharedRingReader>(s.shared_memory_held()); },
          "The session's mapping of its server's ring (a SharedRingReader, the one the readings' images are views "
          "of), or None when images come through the socket.")
      .def_property_readonly(
          "client", [](Session& s) { return ClientHandle(s.client()); }, py::keep_alive<0, 1>(),
          "The session's connection, as coupler._native.Client (kept alive by it).");
}

}  // namespace coupler::python
