#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <coupler/wire/error.hpp>
#include <coupler/transport/frame_publisher.hpp>
#include <coupler/serve/mujoco_state.hpp>

#include "bindings.hpp"
#include "conversions.hpp"
#include "server_handle.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

// Any array of numbers as float64 in C order, converted (copied) only where it is not already.
using Doubles = py::array_t<double, py::array::c_style | py::array::forcecast>;

DoubleArray view(const Doubles& values) {
  return DoubleArray{values.data(), static_cast<std::size_t>(values.size())};
}

MujocoStateArrays arrays_of(const Doubles& qpos, const Doubles& qvel, const Doubles& act, const Doubles& ctrl,
                            const Doubles& mocap_pos, const Doubles& mocap_quat) {
  return MujocoStateArrays{view(qpos), view(qvel), view(act), view(ctrl), view(mocap_pos), view(mocap_quat)};
}

py::bytes encode_state(double time, std::uint64_t step, const Doubles& qpos, const Doubles& qvel, const Doubles& act,
                       const Doubles& ctrl, const Doubles& mocap_pos, const Doubles& mocap_quat, std::uint32_t world) {
  std::string out;
  encode_mujoco_state(time, step, arrays_of(qpos, qvel, act, ctrl, mocap_pos, mocap_quat), out, world);
  return py::bytes(out);
}

std::int64_t simulated_ns(std::optional<double> seconds) {
  return seconds ? header_nanoseconds(*seconds) : FramePublisher::kNoTime;
}

std::string bind(FramePublisher& publisher, const std::string& address, int hwm,
                 std::optional<std::pair<std::string, std::string>> curve_key_pair,
                 std::vector<std::string> curve_allowed_clients, py::object on_refused_client, double heartbeat,
                 double heartbeat_timeout, double handshake_timeout, bool counted) {
  PublisherBinding binding;
  binding.address = address;
  binding.hwm = hwm;
  binding.heartbeat_interval = milliseconds(heartbeat);
  binding.heartbeat_timeout = milliseconds(heartbeat_timeout);
  binding.handshake_timeout = milliseconds(handshake_timeout);
  binding.counted = counted;
  if (curve_key_pair) binding.curve_key_pair = CurveKeyPair{curve_key_pair->first, curve_key_pair->second};
  binding.curve_allowed_clients = std::move(curve_allowed_clients);
  if (!on_refused_client.is_none()) {
    // Called from the authentication thread.
    binding.on_refused_client = [callback = PythonCallback(std::move(on_refused_client))](const std::string& text) {
      callback(text, "coupler._native.FramePublisher on_refused_client");
    };
  }
  py::gil_scoped_release released;  // the authentication thread may be waiting for the GIL
  return publisher.bind(binding);
}

// Deletes a publisher without the GIL: its thread, which the destructor joins, may be waiting for the GIL to log.
struct DeleteWithoutGil {
  void operator()(FramePublisher* publisher) const {
    if (PyGILState_Check()) {
      py::gil_scoped_release released;
      delete publisher;
    } else {
      delete publisher;
    }
  }
};
using PublisherHolder = std::unique_ptr<FramePublisher, DeleteWithoutGil>;

}  // namespace

void bind_frame_publisher(py::module_& module) {
  module.def("encode_mujoco_state", &encode_state, py::arg("time"), py::arg("step"), py::arg("qpos"),
             py::arg("qvel"), py::arg("act"), py::arg("ctrl"), py::arg("mocap_pos") = Doubles(0),
             py::arg("mocap_quat") = Doubles(0), py::arg("world") = 0u,
             "The serialized coupler.record.v1.MujocoState of a MuJoCo state (coupler::encode_mujoco_state); "
             "`world`: which world of a batched server it is of.");

  py::class_<FramePublisher, PublisherHolder>(module, "FramePublisher",
                             "coupler::FramePublisher: publishes frame messages (topic, NUL, 32-byte header, payload) "
                             "on an XPUB socket without ever blocking; a subscriber whose queue is full loses "
                             "messages, for itself alone. `scene`: the parts of the scene message after its topic, "
                             "sent to each new subscriber; `linger`: seconds close() gives queued messages to leave.")
      .def(py::init([](const std::vector<py::bytes>& scene, double linger, std::size_t max_connections,
                       std::size_t max_topics, py::object on_refusal) {
             std::vector<std::string> parts(scene.begin(), scene.end());
             PublisherLimits limits;
             limits.max_connections = max_connections;
             limits.max_topics = max_topics;
             if (!on_refusal.is_none()) {
               // Called from the publisher's own thread.
               limits.on_refusal = [callback = PythonCallback(std::move(on_refusal))](const std::string& text) {
                 callback(text, "coupler._native.FramePublisher on_refusal");
               };
             }
             return PublisherHolder(new FramePublisher(std::move(parts), milliseconds(linger), std::move(limits)));
           }),
           py::arg("scene"), py::arg("linger") = seconds(FramePublisher::kDefaultLinger),
           py::arg("max_connections") = PublisherLimits::kDefaultMaxConnections,
           py::arg("max_topics") = PublisherLimits::kDefaultMaxTopics, py::arg("on_refusal") = py::none())
      .def("bind", &bind, py::arg("address"), py::arg("hwm") = PublisherBinding::kDefaultHwm,
           py::arg("curve_key_pair") = py::none(), py::arg("curve_allowed_clients") = std::vector<std::string>{},
           py::arg("on_refused_client") = py::none(),
           py::arg("heartbeat") = seconds(limits::kHeartbeatInterval),
           py::arg("heartbeat_timeout") = seconds(limits::kHeartbeatTimeout),
           py::arg("handshake_timeout") = seconds(limits::kHandshakeTimeout),
           py::arg("counted") = true,
           "Listen on `address` with a queue of `hwm` messages per subscriber; with `curve_key_pair` (Z85 public, "
           "secret), only CURVE clients whose key is in `curve_allowed_clients` may subscribe, and each refused one is "
           "passed to on_refused_client(text) (from the authentication thread). `heartbeat`, `heartbeat_timeout`, "
           "`handshake_timeout` (seconds) as on a Server; a `counted` address's subscribers count against "
           "max_connections. Returns the bound endpoint.")
      .def(
          "wait_for_subscribers",
          [](FramePublisher& p, std::uint64_t count, double timeout) {
            const auto wait = milliseconds(timeout);
            py::gil_scoped_release released;
            return p.wait_for_subscribers(count, wait);
          },
          py::arg("count"), py::arg("timeout"),
          "Wait up to `timeout` seconds until `count` subscriptions have arrived; True when they have.")
      .def(
          "publish",
          [](FramePublisher& p, std::string_view topic, std::string_view payload, double wall,
             std::optional<double> simulated_time) {
            p.publish(topic, payload, header_nanoseconds(wall), simulated_ns(simulated_time));
          },
          py::arg("topic"), py::arg("payload"), py::arg("wall"), py::arg("simulated_time") = py::none(),
          "Send one frame message; `wall` and `simulated_time` in seconds (simulated_time None: none). Never blocks.")
      .def(
          "publish_state",
          [](FramePublisher& p, std::string_view topic, double time, std::uint64_t step, const Doubles& qpos,
             const Doubles& qvel, const Doubles& act, const Doubles& ctrl, double wall, const Doubles& mocap_pos,
             const Doubles& mocap_quat) {
            std::string state;
            encode_mujoco_state(time, step, arrays_of(qpos, qvel, act, ctrl, mocap_pos, mocap_quat), state);
            p.publish(topic, state, header_nanoseconds(wall), header_nanoseconds(time));
          },
          py::arg("topic"), py::arg("time"), py::arg("step"), py::arg("qpos"), py::arg("qvel"), py::arg("act"),
          py::arg("ctrl"), py::arg("wall"), py::arg("mocap_pos") = Doubles(0), py::arg("mocap_quat") = Doubles(0),
          "Publish the MuJoCo state after step number `step` (as encode_mujoco_state writes it) under `topic`.")
      .def("send_end", &FramePublisher::send_end, "Send the end message (the number of frame messages sent).")
      .def(
          "close",
          [](FramePublisher& p) {
            py::gil_scoped_release released;  // the publisher's thread may be waiting for the GIL to log
            p.close();
          },
          "Send the end and close; safe to call twice.")
      .def_property_readonly("closed", &FramePublisher::closed)
      .def_property_readonly("sent", &FramePublisher::sent, "Frame messages sent.")
      .def_property_readonly("subscriptions", &FramePublisher::subscriptions, "Subscriptions seen in all.")
      .def_readonly_static("DEFAULT_HWM", &PublisherBinding::kDefaultHwm,
                           "Messages queued per subscriber before it loses messages (ZeroMQ's own default).")
      .def_property_readonly_static(
          "DEFAULT_LINGER", [](const py::object&) { return seconds(FramePublisher::kDefaultLinger); },
          "Seconds close() gives queued messages to leave.")
      .def_readonly_static("DEFAULT_MAX_CONNECTIONS", &PublisherLimits::kDefaultMaxConnections)
      .def_readonly_static("DEFAULT_MAX_TOPICS", &PublisherLimits::kDefaultMaxTopics)
      .def_readonly_static("MAX_PEER_MESSAGE_BYTES", &PublisherLimits::kMaxSubscriptionBytes)
      .def_property_readonly("refused", &FramePublisher::refused,
                             "Connections closed and messages dropped by the publisher's guards.")
      .def_property_readonly("connections", &FramePublisher::connections,
                             "Subscribers connected now on counted addresses.");
}

}  // namespace coupler::python
