#include <chrono>
#include <string>

#include <pybind11/stl.h>

#include <coupler/transport/rate_limited_log.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace coupler::python {

void bind_rate_limited_log(py::module_& module) {
  using Seconds = RateLimitedLog::Seconds;
  // Times cross as float seconds of a monotonic clock (time.monotonic()), so tests can pass their own.
  py::class_<RateLimitedLog>(module, "RateLimitedLog",
                             "Counts peer-triggered log lines per kind: at most `burst` of a kind are written per "
                             "`interval` seconds (coupler/transport/rate_limited_log.hpp).")
      .def(py::init([](std::size_t burst, double interval) { return RateLimitedLog(burst, Seconds(interval)); }),
           py::arg("burst") = RateLimitedLog::kDefaultBurst,
           py::arg("interval") = Seconds(RateLimitedLog::kDefaultInterval).count())
      .def_readonly_static("DEFAULT_BURST", &RateLimitedLog::kDefaultBurst,
                           "Lines of a kind written per interval, by default.")
      .def_property_readonly_static(
          "DEFAULT_INTERVAL", [](const py::object&) { return Seconds(RateLimitedLog::kDefaultInterval).count(); },
          "Seconds of an interval, by default.")
      .def(
          "admit",
          [](RateLimitedLog& limit, const std::string& kind, double now) {
            return limit.admit(kind, RateLimitedLog::Clock::time_point(
                                         std::chrono::duration_cast<RateLimitedLog::Clock::duration>(Seconds(now))));
          },
          py::arg("kind"), py::arg("now"),
          "None when a line of `kind` is left out at `now`, else how many of its kind were left out before it "
          "(counted either way).")
      .def("left_out_line", &RateLimitedLog::left_out_line, py::arg("left_out"),
           "The line saying that `left_out` lines like the next were not written.")
      .def_property_readonly("burst", &RateLimitedLog::burst)
      .def_property_readonly("interval", [](const RateLimitedLog& limit) { return limit.interval().count(); });
}

}  // namespace coupler::python
