#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <coupler/wire/error.hpp>
#include <coupler/wire/limits.hpp>
#include <coupler/transport/server.hpp>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "conversions.hpp"
#include "message_objects.hpp"
#include "server_handle.hpp"

namespace py = pybind11;

namespace coupler::python {

void bind_server(py::module_& module) {
  py::class_<Request>(module, "Request", "A request received by a Server, with the envelope its answer needs.")
      .def_property_readonly("type", [](const Request& r) { return static_cast<int>(r.type()); },
                             "The message type (a coupler.wire.messages.MessageType value).")
      .def_property_readonly("frame", [](const Request& r) { return py::bytes(r.frame()); },
                             "The payload as received.")
      .def_property_readonly("message", [](const Request& r) { return to_python(r.message()); },
                             "The message the server decoded, as a coupler.wire.messages value; coupler.Error for a "
                             "request not decoded yet (Server.complete).")
      .def_property_readonly("size", [](const Request& r) { return r.frame().size(); }, "Bytes of the payload.")
      .def_property_readonly("peer", [](const Request& r) { return py::bytes(r.peer()); },
                             "Identifies the connection it came from.")
      .def_property_readonly("through_channel", &Request::through_channel,
                             "True for a request that came through the shared channel leased to its peer: it is "
                             "answered there (SharedChannelServer.reply), never through the Server.")
      .def_property_readonly("decoded", &Request::decoded,
                             "False for a request of a kind the server decodes on demand (Server.complete), until then.")
      .def_property_readonly(
          "image_requests",
          [](const Request& r) {
            // Read without building the message in Python: a request asking for none costs a check.
            const std::vector<ImageRequest>* requests = nullptr;
            if (!r.decoded()) return py::list();
            if (const auto* control = std::get_if<ControlMessage>(&r.message())) requests = &control->images;
            if (const auto* read = std::get_if<SensorRequestMessage>(&r.message())) requests = &read->images;
            py::list out;
            if (requests == nullptr) return out;
            for (const ImageRequest& request : *requests) {
              py::object every = request.every ? py::object(py::int_(*request.every)) : py::object(py::none());
              out.append(py::make_tuple(request.camera, py::tuple(py::cast(request.kinds)), every));
            }
            return out;
          },
          "The images a decoded Control or SensorRequest asks for (the \"images\" extension): (camera, kinds, every "
          "or None) each; empty for any other request.")
      .def_property_readonly(
          "shared_memory",
          [](const Request& r) {
            if (!r.decoded()) return false;
            if (const auto* control = std::get_if<ControlMessage>(&r.message())) return control->shared_memory;
            if (const auto* read = std::get_if<SensorRequestMessage>(&r.message())) return read->shared_memory;
            return false;
          },
          "Whether a decoded Control or SensorRequest asks for its answer's big payloads through the announced "
          "shared memory (the \"shm\" extension).");

  py::class_<ServerHandle>(module, "Server",
                           "coupler::Server: binds a ROUTER socket; bad frames are answered with an ErrorMessage, "
                           "counted and passed to on_bad_frame(text) (default: written to stderr), and never reach "
                           "the caller. Blocking calls release the GIL.")
      .def(py::init<const std::string&, py::object, double, double, std::int64_t,
                    std::optional<std::pair<std::string, std::string>>, std::vector<std::string>, py::object, double,
                    const std::vector<int>&>(),
           py::arg("address"), py::arg("on_bad_frame") = py::none(), py::arg("heartbeat") = seconds(limits::kHeartbeatInterval),
           py::arg("heartbeat_timeout") = seconds(limits::kHeartbeatTimeout), py::arg("max_frame_bytes") = limits::kMaxFrameBytes,
           py::arg("curve_key_pair") = py::none(), py::arg("curve_allowed_clients") = std::vector<std::string>{},
           py::arg("on_refused_client") = py::none(), py::arg("handshake_timeout") = seconds(limits::kHandshakeTimeout),
           py::arg("decode_on_demand") = std::vector<int>{},
           "coupler::ServerOptions as keywords: `heartbeat` and `heartbeat_timeout` in seconds (heartbeat 0: off), "
           "`max_frame_bytes` (0: no limit), `curve_key_pair` (Z85 public, secret), `curve_allowed_clients` (Z85 "
           "public keys), `on_refused_client(text)` called for each refused client (from the authentication thread, or "
           "from the receiving call for a client that does not speak CURVE), `handshake_timeout` in seconds (a "
           "connection that has not completed its handshake by then is dropped; 0: no limit), `decode_on_demand` (message "
           "types received undecoded, their kind read by a scan bounded by the frame's size, until complete()).")
      .def(
          "receive",
          [](ServerHandle& s, double timeout) {
            const auto wait = milliseconds(timeout);
            py::gil_scoped_release released;
            return s.get().receive(wait);
          },
          py::arg("timeout"),
          "Block up to `timeout` seconds for a valid request; raise coupler.wire.errors.TimeoutError otherwise.")
      .def(
          "try_receive",
          [](ServerHandle& s, double timeout) -> std::optional<Request> {
            const auto wait = milliseconds(timeout);
            if (wait.count() == 0) return s.get().try_receive();
            py::gil_scoped_release released;
            return s.get().try_receive(wait);
          },
          py::arg("timeout") = 0.0,
          "The next valid request that comes within `timeout` seconds (default 0: only one already waiting), or "
          "None when none did.")
      .def(
          "complete", [](ServerHandle& s, Request& request) { return s.get().complete(request); },
          py::arg("request"),
          "Decode a request received undecoded; True when decoded. A frame that does not decode is answered and "
          "reported as a bad frame on arrival is, and False returned: leave it unanswered.")
      .def(
          "reply",
          [](ServerHandle& s, const Request& request, const py::bytes& frame) {
            s.get().reply_frame(request, std::string(frame));
          },
          py::arg("request"), py::arg("frame"),
          "Send an encoded answer to a request. Never blocks; an undeliverable answer is reported and dropped.")
      .def(
          "take_closed_peers",
          [](ServerHandle& s) {
            py::list peers;
            for (const std::string& peer : s.get().take_closed_peers()) peers.append(py::bytes(peer));
            return peers;
          },
          "The identities (Request.peer, bytes) of peers whose connection closed since the last call; never blocks.")
      .def_property_readonly("endpoint", [](ServerHandle& s) { return s.get().endpoint(); },
                             "The bound address, with the port filled in.")
      .def_property_readonly("bad_frames", [](ServerHandle& s) { return s.get().bad_frames(); })
      .def("close", &ServerHandle::close, "Unbind; removes the socket file of an ipc:// endpoint. Safe to call twice.")
      .def("__enter__", [](ServerHandle& s) -> ServerHandle& { return s; }, py::return_value_policy::reference)
      .def("__exit__", [](ServerHandle& s, const py::args&) { s.close(); });
}

}  // namespace coupler::python
