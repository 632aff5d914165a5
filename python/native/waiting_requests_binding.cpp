#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>

#include <coupler/serve/reader_share.hpp>
#include <coupler/serve/waiting_requests.hpp>
#include <coupler/wire/error.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

using Seconds = std::chrono::duration<double>;
using Waiting = WaitingRequests<py::object>;

// A time as Python's clock gives it (float seconds, time.monotonic() by default), on ReaderShare's clock.
ReaderShare::Clock::time_point at(double seconds) {
  return ReaderShare::Clock::time_point(std::chrono::duration_cast<ReaderShare::Clock::duration>(Seconds(seconds)));
}

py::object or_none(std::optional<py::object> request) { return request ? std::move(*request) : py::none(); }

}  // namespace

void bind_waiting_requests(py::module_& module) {
  py::class_<Waiting>(module, "WaitingRequests",
                      "coupler::WaitingRequests (coupler/serve/waiting_requests.hpp): requests taken from the socket "
                      "that wait for their turn, a driving controller's first; the others get `share` of theirs after "
                      "each of its requests, then one more each `patience` seconds without its next one "
                      "(coupler::ReaderShare). At most `max_waiting` of the others wait. Requests are any objects; "
                      "times are float seconds of the caller's clock. Never blocks.")
      .def(py::init([](std::uint64_t share, double patience, std::size_t max_waiting) {
             // An hour at most: far beyond any use, and well inside the clock's range.
             if (!(patience >= 0.0 && patience <= 3600.0)) throw Error("patience must be from 0 to 3600 seconds");
             return Waiting(ReaderShare(share, std::chrono::microseconds(std::llround(patience * 1e6))), max_waiting);
           }),
           py::arg("share") = ReaderShare::kShare, py::arg("patience") = Seconds(ReaderShare::kPatience).count(),
           py::arg("max_waiting") = Waiting::kMaxWaiting)
      .def_readonly_static("SHARE", &ReaderShare::kShare,
                           "Requests of others served after each request of a driving controller, by default.")
      .def_property_readonly_static(
          "PATIENCE", [](const py::object&) { return Seconds(ReaderShare::kPatience).count(); },
          "Seconds the others wait for a driving controller's next request once their share is used, by default.")
      .def_readonly_static("MAX_WAITING", &Waiting::kMaxWaiting, "Requests of the others that may wait, by default.")
      .def("empty", &Waiting::empty, "Whether no request waits.")
      .def("full", &Waiting::full, "Whether as many of the others' requests wait as may.")
      .def("controller_served", &Waiting::controller_served,
           "A driving controller's request was served without waiting here: the others' share renews.")
      .def("arrived",
           [](Waiting& waiting, py::object request, bool of_controller, double now) {
             waiting.arrived(std::move(request), of_controller, at(now));
           },
           py::arg("request"), py::arg("of_controller"), py::arg("now"),
           "`request`, arrived at `now`, waits behind those of its kind (a driving controller's or another's).")
      .def("handed_back",
           [](Waiting& waiting, py::object request, bool of_controller, double now) {
             waiting.handed_back(std::move(request), of_controller, at(now));
           },
           py::arg("request"), py::arg("of_controller"), py::arg("now"),
           "`request`, taken from the socket before those waiting, waits ahead of those of its kind.")
      .def("take", [](Waiting& waiting, double now, bool driving) { return or_none(waiting.take(at(now), driving)); },
           py::arg("now"), py::arg("driving"),
           "A controller's request, else one of the others' if their turn has come at `now` (always, unless a "
           "controller is `driving`); None otherwise.")
      .def("take_any", [](Waiting& waiting) { return or_none(waiting.take_any()); },
           "The next request in the same order, the others' share aside; None when none waits.")
      .def("serve_other",
           [](Waiting& waiting, double now) {
             if (!waiting.others_wait()) throw Error("no request of the others waits");
             return waiting.serve_other(at(now));
           },
           py::arg("now"), "The first of the others' requests, served at `now` on their share or past `due`.")
      .def_property_readonly(
          "due", [](const Waiting& waiting) { return Seconds(waiting.due().time_since_epoch()).count(); },
          "When the next of the others' requests is served even without a share (seconds of the caller's clock).");
}

}  // namespace coupler::python
