// The server's side of a shared channel (coupler/transport/shared_channel.hpp),
// for `coupler serve` to lease to a lone controller on its host; its hot path
// answers through it.

#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include <pybind11/pybind11.h>

#include <coupler/transport/shared_channel.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace coupler::python {

void bind_shared_channel(py::module_& module) {
  py::class_<SharedChannelServer>(module, "SharedChannelServer",
                                  "The server's side of a shared channel: one request and one answer frame of at most "
                                  "`capacity` bytes at a time in a memfd of mode 0600, with futex wake-ups.")
      .def(py::init<std::size_t>(), py::arg("capacity"))
      .def_property_readonly("path", &SharedChannelServer::path, "What a client opens: /proc/PID/fd/N.")
      .def_property_readonly("capacity", &SharedChannelServer::capacity)
      .def(
          "receive",
          [](SharedChannelServer& self, double timeout) -> py::object {
            std::optional<std::string> request;
            {
              py::gil_scoped_release released;
              const auto received =
                  self.receive(std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(timeout * 1000.0))));
              if (received) request.emplace(*received);
            }
            if (!request) return py::none();
            return py::bytes(*request);
          },
          py::arg("timeout"),
          "The next request's bytes, or None when none came within `timeout` seconds (asleep meanwhile); "
          "answer it with reply(). For servers written in Python: `coupler serve` answers in C++.")
      .def(
          "reply", [](SharedChannelServer& self, const py::bytes& frame) { self.reply(std::string(frame)); },
          py::arg("frame"),
          "Answer the request received last with `frame`; coupler.Error, one line, for one over the capacity.")
      .def("forget", &SharedChannelServer::forget,
           "Drop a request not answered yet (its client left): the next client starts afresh.");

  py::class_<SharedChannelClient>(module, "SharedChannelClient",
                                  "A client's side of a shared channel at `path` (a handshake's shared_channel); "
                                  "coupler.Error in one line when it cannot be opened.")
      .def(py::init<const std::string&>(), py::arg("path"))
      .def_property_readonly("capacity", &SharedChannelClient::capacity)
      .def(
          "exchange",
          [](SharedChannelClient& self, const py::bytes& request, double timeout) {
            const std::string frame(request);
            std::string answer;
            {
              py::gil_scoped_release released;
              answer = std::string(self.exchange(
                  frame, std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(timeout * 1000.0)))));
            }
            return py::bytes(answer);
          },
          py::arg("request"), py::arg("timeout"),
          "Send the encoded `request` and return the answer's bytes; TimeoutError past `timeout` seconds.");
}

}  // namespace coupler::python
