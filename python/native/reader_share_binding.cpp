#include <chrono>
#include <cmath>
#include <cstdint>

#include <coupler/serve/reader_share.hpp>
#include <coupler/wire/error.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

using Seconds = std::chrono::duration<double>;

// A time as Python's clock gives it (float seconds, time.monotonic() by default), on ReaderShare's clock.
ReaderShare::Clock::time_point at(double seconds) {
  return ReaderShare::Clock::time_point(std::chrono::duration_cast<ReaderShare::Clock::duration>(Seconds(seconds)));
}

}  // namespace

void bind_reader_share(py::module_& module) {
  py::class_<ReaderShare>(module, "ReaderShare",
                          "coupler::ReaderShare (coupler/serve/reader_share.hpp): whose turn it is, a driving "
                          "controller's or the others'. The others get `share` requests after each request of the "
                          "controller, then one more each `patience` seconds without its next one. Times are float "
                          "seconds of the caller's clock.")
      .def(py::init([](std::uint64_t share, double patience) {
             // An hour at most: far beyond any use, and well inside the clock's range.
             if (!(patience >= 0.0 && patience <= 3600.0)) throw Error("patience must be from 0 to 3600 seconds");
             return ReaderShare(share, std::chrono::microseconds(std::llround(patience * 1e6)));
           }),
           py::arg("share") = ReaderShare::kShare, py::arg("patience") = Seconds(ReaderShare::kPatience).count())
      .def_readonly_static("SHARE", &ReaderShare::kShare,
                           "Requests of others served after each request of a driving controller, by default.")
      .def_property_readonly_static(
          "PATIENCE", [](const py::object&) { return Seconds(ReaderShare::kPatience).count(); },
          "Seconds the others wait for a driving controller's next request once their share is used, by default.")
      .def("controller_served", &ReaderShare::controller_served, "A controller's request was served: the share renews.")
      .def("may_serve", [](const ReaderShare& share, double now) { return share.may_serve(at(now)); }, py::arg("now"),
           "Whether one of the others' requests is served at `now`, ahead of the controller's next one.")
      .def("served", [](ReaderShare& share, double now) { share.served(at(now)); }, py::arg("now"),
           "One of the others' requests was served at `now`.")
      .def("first_waits", [](ReaderShare& share, double now) { share.first_waits(at(now)); }, py::arg("now"),
           "One of the others' requests starts waiting at `now` where none waited.")
      .def_property_readonly(
          "due", [](const ReaderShare& share) { return Seconds(share.due().time_since_epoch()).count(); },
          "When the next of the others' requests is served even without a share (seconds of the caller's clock).")
      .def_property_readonly("share", &ReaderShare::share)
      .def_property_readonly("patience", [](const ReaderShare& share) { return Seconds(share.patience()).count(); });
}

}  // namespace coupler::python
