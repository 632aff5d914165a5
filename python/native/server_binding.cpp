#include <optional>
#include <string>

#include <coupler/error.hpp>
#include <coupler/server.hpp>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "conversions.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

// Owns the C++ Server so that close() can end it (unbinding, and removing an
// ipc:// socket file) before Python drops the object.
class ServerHandle {
 public:
  ServerHandle(const std::string& address, py::object on_bad_frame) {
    ServerOptions options;
    if (!on_bad_frame.is_none()) {
      // Called from receive(), which runs without the GIL.
      options.on_bad_frame = [callback = std::move(on_bad_frame)](const std::string& problem) {
        py::gil_scoped_acquire gil;
        try {
          callback(problem);
        } catch (py::error_already_set& e) {
          e.discard_as_unraisable("coupler._native.Server on_bad_frame");
        }
      };
    }
    server_.emplace(address, std::move(options));
  }

  Server& get() {
    if (!server_) throw Error("the server is closed");
    return *server_;
  }

  void close() { server_.reset(); }

 private:
  std::optional<Server> server_;
};

}  // namespace

void bind_server(py::module_& module) {
  py::class_<Request>(module, "Request", "A request received by a Server, with the envelope its answer needs.")
      .def_property_readonly("type", [](const Request& r) { return static_cast<int>(r.type()); },
                             "The message type (a coupler.messages.MessageType value).")
      .def_property_readonly("frame", [](const Request& r) { return py::bytes(r.frame()); },
                             "The payload as received, for decoding with coupler.codec.")
      .def_property_readonly("size", [](const Request& r) { return r.frame().size(); }, "Bytes of the payload.")
      .def_property_readonly("peer", [](const Request& r) { return py::bytes(r.peer()); },
                             "Identifies the connection it came from.");

  py::class_<ServerHandle>(module, "Server",
                           "coupler::Server: binds a ROUTER socket; bad frames are answered with an ErrorMessage, "
                           "counted and passed to on_bad_frame(text) (default: written to stderr), and never reach "
                           "the caller. Blocking calls release the GIL.")
      .def(py::init<const std::string&, py::object>(), py::arg("address"), py::arg("on_bad_frame") = py::none())
      .def(
          "receive",
          [](ServerHandle& s, double timeout) {
            const auto wait = milliseconds(timeout);
            py::gil_scoped_release released;
            return s.get().receive(wait);
          },
          py::arg("timeout"),
          "Block up to `timeout` seconds for a valid request; raise coupler.errors.TimeoutError otherwise.")
      .def(
          "try_receive", [](ServerHandle& s) { return s.get().try_receive(); },
          "The next valid request, or None when none is waiting; never blocks.")
      .def(
          "reply",
          [](ServerHandle& s, const Request& request, const py::bytes& frame) {
            s.get().reply_frame(request, std::string(frame));
          },
          py::arg("request"), py::arg("frame"),
          "Send an encoded answer to a request. Never blocks; an undeliverable answer is reported and dropped.")
      .def_property_readonly("endpoint", [](ServerHandle& s) { return s.get().endpoint(); },
                             "The bound address, with the port filled in.")
      .def_property_readonly("bad_frames", [](ServerHandle& s) { return s.get().bad_frames(); })
      .def("close", &ServerHandle::close, "Unbind; removes the socket file of an ipc:// endpoint. Safe to call twice.")
      .def("__enter__", [](ServerHandle& s) -> ServerHandle& { return s; }, py::return_value_policy::reference)
      .def("__exit__", [](ServerHandle& s, const py::args&) { s.close(); });
}

}  // namespace coupler::python
