#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <coupler/transport/client.hpp>
#include <coupler/wire/error.hpp>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "conversions.hpp"
#include "client_handle.hpp"
#include "message_objects.hpp"

namespace py = pybind11;

namespace coupler::python {

ClientOptions client_options(double timeout, double linger, double heartbeat, double heartbeat_timeout,
                             std::int64_t max_frame_bytes, std::optional<std::string> curve_server_key,
                             std::optional<std::pair<std::string, std::string>> curve_key_pair) {
  ClientOptions options;
  options.timeout = milliseconds(timeout);
  options.linger = milliseconds(linger);
  if (heartbeat < 0 || heartbeat_timeout < 0) throw Error("heartbeat and heartbeat_timeout must not be negative");
  options.heartbeat_interval = milliseconds(heartbeat);
  options.heartbeat_timeout = milliseconds(heartbeat_timeout);
  options.max_frame_bytes = max_frame_bytes;
  if (curve_server_key) options.curve_server_key = *curve_server_key;
  if (curve_key_pair) options.curve_key_pair = CurveKeyPair{curve_key_pair->first, curve_key_pair->second};
  return options;
}

namespace {

ClientHandle make_client(const std::string& address, double timeout, double linger, double heartbeat,
                         double heartbeat_timeout, std::int64_t max_frame_bytes,
                         std::optional<std::string> curve_server_key,
                         std::optional<std::pair<std::string, std::string>> curve_key_pair) {
  return ClientHandle(address, client_options(timeout, linger, heartbeat, heartbeat_timeout, max_frame_bytes,
                                              std::move(curve_server_key), std::move(curve_key_pair)));
}

py::bytes receive_frame(ClientHandle& c, std::optional<double> timeout) {
  const auto wait = c.timeout_or_default(timeout);
  Client& client = c.get();
  std::string frame;
  {
    py::gil_scoped_release released;
    frame = client.receive_frame(wait);
  }
  return py::bytes(frame);
}

py::object receive(ClientHandle& c, std::optional<double> timeout) {
  const auto wait = c.timeout_or_default(timeout);
  Client& client = c.get();
  std::optional<Message> message;
  {
    py::gil_scoped_release released;
    message = client.receive(wait);
  }
  return to_python(*message);
}

void send(ClientHandle& c, const py::handle& message) {
  const Message request = to_message(message);
  Client& client = c.get();
  py::gil_scoped_release released;
  client.send(request);
}

}  // namespace

void bind_client(py::module_& module) {
  const ClientOptions defaults;
  py::class_<ClientHandle>(
      module, "Client",
      "coupler::Client: connects a REQ socket to a server's REP or ROUTER socket over tcp://, ipc:// or inproc:// "
      "(inproc reaches the C++ servers of this process: coupler.Server, the serving loops). Strictly in turn: send "
      "one message, then receive its answer. A request that timed out does not wedge the client: the next send "
      "starts a new request and a late answer to the old one is discarded. An ErrorMessage from the server is an "
      "ordinary answer: receive and request return it. Messages are coupler.wire.messages values; the *_frame "
      "methods take and give encoded frames. Blocking calls release the GIL.\n\n"
      "    with Client(\"tcp://127.0.0.1:5555\") as client:\n"
      "        answer = client.request(HandshakeInitMessage())")
      .def(py::init(&make_client),
           py::arg("address"), py::arg("timeout") = seconds(defaults.timeout), py::arg("linger") = seconds(defaults.linger),
           py::arg("heartbeat") = seconds(defaults.heartbeat_interval),
           py::arg("heartbeat_timeout") = seconds(defaults.heartbeat_timeout),
           py::arg("max_frame_bytes") = defaults.max_frame_bytes, py::arg("curve_server_key") = py::none(),
           py::arg("curve_key_pair") = py::none(),
           "coupler::ClientOptions as keywords. `timeout` (seconds) bounds every send and every receive not given a "
           "timeout of its own. `linger` (seconds) is how long closing waits to deliver messages still queued, such "
           "as a goodbye; it bounds how long close can take. `heartbeat` (seconds; 0 turns it off) sends ZMTP PINGs "
           "on a quiet tcp:// or ipc:// connection, which is dropped when nothing comes back within "
           "`heartbeat_timeout`: a dead server is noticed while nobody sends. Frames over `max_frame_bytes` (0: no "
           "limit) are never read: ZeroMQ drops the connection and the request times out. With `curve_server_key` "
           "(the server's Z85 public key) and `curve_key_pair` (this client's Z85 public and secret keys; see "
           "coupler.transport.curve_keys), the connection is CurveZMQ-encrypted and authenticated.")
      .def("send", &send, py::arg("message"),
           "Send a request. Raises TimeoutError when it cannot be queued within the client's timeout.")
      .def(
          "send_frame",
          [](ClientHandle& c, const py::buffer& frame) {
            const py::buffer_info contents = frame.request();
            const std::string bytes(static_cast<const char*>(contents.ptr),
                                    static_cast<std::size_t>(contents.size * contents.itemsize));
            Client& client = c.get();
            py::gil_scoped_release released;
            client.send_frame(bytes);
          },
          py::arg("frame"), "Send a raw frame (bytes, or any contiguous buffer), for tools that replay captured traffic.")
      .def("receive", &receive, py::arg("timeout") = py::none(),
           "Block up to `timeout` seconds (default: the client's) for the answer. Raises TimeoutError when nothing "
           "came, ProtocolError when the answer is not a valid message.")
      .def("receive_frame", &receive_frame, py::arg("timeout") = py::none(),
           "receive(), handing back the answer's frame undecoded. Raises TimeoutError when nothing came, "
           "ProtocolError when the answer is not one frame.")
      .def(
          "try_receive",
          [](ClientHandle& c) -> py::object {
            std::optional<Message> message = c.get().try_receive();
            return message ? to_python(*message) : py::none();
          },
          "Non-blocking: the answer, or None when it has not arrived yet. Raises ProtocolError when the answer is not "
          "a valid message.")
      .def(
          "try_receive_frame",
          [](ClientHandle& c) -> py::object {
            std::optional<std::string> frame = c.get().try_receive_frame();
            return frame ? py::object(py::bytes(*frame)) : py::object(py::none());
          },
          "try_receive(), handing back the answer's frame undecoded. Raises ProtocolError when the answer is not one "
          "frame.")
      .def(
          "wait",
          [](ClientHandle& c, double timeout) {
            const auto wait = milliseconds(timeout);
            Client& client = c.get();
            py::gil_scoped_release released;
            return client.wait(wait);
          },
          py::arg("timeout"),
          "Block until something is ready to read or `timeout` seconds pass, never less; True when ready. A late "
          "answer to an abandoned request also wakes it; try_receive then drops that answer and returns None.")
      .def(
          "request",
          [](ClientHandle& c, const py::handle& message, std::optional<double> timeout) {
            send(c, message);
            return receive(c, timeout);
          },
          py::arg("message"), py::arg("timeout") = py::none(),
          "send() then receive(timeout): the answer, an ErrorMessage included.")
      .def(
          "reconnect",
          [](ClientHandle& c) {
            py::gil_scoped_release released;
            c.get().reconnect();
          },
           "Close the socket, dropping whatever was queued or under way, and open a fresh one to the same address "
           "with the same options: after a server restart, to abandon a request for good, or to reopen a closed "
           "client.")
      .def_property(
          "timeout", [](const ClientHandle& c) { return seconds(c.get().options().timeout); },
          [](ClientHandle& c, double timeout) { c.get().set_timeout(milliseconds(timeout)); },
                    "Seconds a send, and a receive not given a timeout of its own, wait at most.")
      .def_property_readonly("mechanism", [](ClientHandle& c) { return c.get().mechanism(); },
                             "The socket's security mechanism: \"CURVE\" or \"NULL\".")
      .def_property_readonly("address", [](const ClientHandle& c) { return c.get().address(); })
      .def_property_readonly("max_frame_bytes",
                             [](const ClientHandle& c) { return c.get().options().max_frame_bytes; },
                             "The largest frame this client reads (0: no limit); a larger one drops the connection.")
      .def(
          "close",
          [](ClientHandle& c) {
            py::gil_scoped_release released;
            c.get().close();
          },
          "Disconnect, waiting at most `linger` for queued messages. Safe to call twice.")
      .def("__enter__", [](ClientHandle& c) -> ClientHandle& { return c; }, py::return_value_policy::reference)
      .def("__exit__", [](ClientHandle& c, const py::args&) {
        py::gil_scoped_release released;
        c.get().close();
      });
}

}  // namespace coupler::python
