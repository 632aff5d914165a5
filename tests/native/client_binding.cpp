#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <coupler/transport/client.hpp>
#include <coupler/wire/error.hpp>

#include <pybind11/stl.h>

#include "testing_bindings.hpp"
#include "conversions.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

// Owns the C++ Client so that close() can end the connection before Python
// drops the object.
class ClientHandle {
 public:
  ClientHandle(const std::string& address, double timeout, double linger, double heartbeat,
               double heartbeat_timeout, std::int64_t max_frame_bytes, std::optional<std::string> curve_server_key,
               std::optional<std::pair<std::string, std::string>> curve_key_pair) {
    ClientOptions options;
    options.timeout = milliseconds(timeout);
    options.linger = milliseconds(linger);
    options.heartbeat_interval = milliseconds(heartbeat);
    options.heartbeat_timeout = milliseconds(heartbeat_timeout);
    options.max_frame_bytes = max_frame_bytes;
    if (curve_server_key) options.curve_server_key = *curve_server_key;
    if (curve_key_pair) options.curve_key_pair = CurveKeyPair{curve_key_pair->first, curve_key_pair->second};
    client_.emplace(address, std::move(options));
  }

  Client& get() {
    if (!client_) throw Error("the client is closed");
    return *client_;
  }

  std::chrono::milliseconds timeout_or_default(const std::optional<double>& timeout) {
    return timeout ? milliseconds(*timeout) : get().options().timeout;
  }

  void close() { client_.reset(); }

 private:
  std::optional<Client> client_;
};

}  // namespace

void bind_client(py::module_& module) {
  py::class_<ClientHandle>(module, "Client",
                           "coupler::Client over raw frames (encode and decode with coupler.wire.codec). Strictly in turn: "
                           "send, then receive the answer. Blocking calls release the GIL.")
      .def(py::init<const std::string&, double, double, double, double, std::int64_t, std::optional<std::string>,
                    std::optional<std::pair<std::string, std::string>>>(),
           py::arg("address"), py::arg("timeout") = 5.0, py::arg("linger") = 0.2, py::arg("heartbeat") = 1.0,
           py::arg("heartbeat_timeout") = 3.0, py::arg("max_frame_bytes") = 1048576,
           py::arg("curve_server_key") = py::none(), py::arg("curve_key_pair") = py::none(),
           "`timeout`: seconds receive() and request() wait by default (and send() at most); `linger`: seconds "
           "closing waits to deliver queued messages; the rest are coupler::ClientOptions: `heartbeat` and "
           "`heartbeat_timeout` in seconds (heartbeat 0: off), `max_frame_bytes` (0: no limit), "
           "`curve_server_key` (Z85) and `curve_key_pair` (Z85 public, secret).")
      .def(
          "send",
          [](ClientHandle& c, const py::bytes& frame) {
            std::string bytes(frame);
            py::gil_scoped_release released;
            c.get().send_frame(bytes);
          },
          py::arg("frame"))
      .def(
          "receive",
          [](ClientHandle& c, std::optional<double> timeout) {
            const auto wait = c.timeout_or_default(timeout);
            std::string frame;
            {
              py::gil_scoped_release released;
              frame = c.get().receive_frame(wait);
            }
            return py::bytes(frame);
          },
          py::arg("timeout") = py::none(),
          "The answer's frame; raises coupler.wire.errors.TimeoutError when none comes within `timeout` seconds "
          "(default: the client's).")
      .def(
          "request",
          [](ClientHandle& c, const py::bytes& frame, std::optional<double> timeout) {
            const auto wait = c.timeout_or_default(timeout);
            std::string bytes(frame);
            {
              py::gil_scoped_release released;
              c.get().send_frame(bytes);
              bytes = c.get().receive_frame(wait);
            }
            return py::bytes(bytes);
          },
          py::arg("frame"), py::arg("timeout") = py::none(), "send() then receive().")
      .def(
          "reconnect",
          [](ClientHandle& c) {
            py::gil_scoped_release released;
            c.get().reconnect();
          },
          "Close the socket, dropping whatever was under way, and open a fresh one to the same address.")
      .def_property_readonly("mechanism", [](ClientHandle& c) { return c.get().mechanism(); },
                             "The socket's security mechanism: \"CURVE\" or \"NULL\".")
      .def_property_readonly("address", [](ClientHandle& c) { return c.get().address(); })
      .def("close", &ClientHandle::close, "Disconnect. Safe to call twice.")
      .def("__enter__", [](ClientHandle& c) -> ClientHandle& { return c; }, py::return_value_policy::reference)
      .def("__exit__", [](ClientHandle& c, const py::args&) { c.close(); });
}

}  // namespace coupler::python
