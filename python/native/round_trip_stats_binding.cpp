#include <coupler/controller/round_trip_stats.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace coupler::python {

void bind_round_trip_stats(py::module_& module) {
  using Seconds = RoundTripStats::Duration;
  // Durations cross as float seconds, as time.perf_counter() gives them.
  py::class_<RoundTripStats>(module, "RoundTripStats",
                             "Where a controller's time goes: send-to-reply intervals in logarithmic bins 1 % wide "
                             "(constant memory), time inside receive calls and time slept between polls, in seconds.")
      .def(py::init<>())
      .def(
          "add_round_trip", [](RoundTripStats& stats, double seconds) { stats.add_round_trip(Seconds(seconds)); },
          py::arg("seconds"))
      .def(
          "add_blocked", [](RoundTripStats& stats, double seconds) { stats.add_blocked(Seconds(seconds)); },
          py::arg("seconds"), "Add time spent inside a receive call.")
      .def(
          "add_idle", [](RoundTripStats& stats, double seconds) { stats.add_idle(Seconds(seconds)); },
          py::arg("seconds"), "Add time slept between polls.")
      .def("clear", &RoundTripStats::clear)
      .def_property_readonly("count", &RoundTripStats::count)
      .def_property_readonly("send_to_reply",
                             [](const RoundTripStats& stats) { return stats.send_to_reply().count(); })
      .def_property_readonly("blocked", [](const RoundTripStats& stats) { return stats.blocked().count(); })
      .def_property_readonly("idle", [](const RoundTripStats& stats) { return stats.idle().count(); })
      .def("percentile", &RoundTripStats::percentile, py::arg("fraction"),
           "The fraction-th round trip (0.5 = median), in seconds, within 1 %; 0 when empty.")
      .def(
          "report",
          [](const RoundTripStats& stats, double total, bool polling) {
            return stats.report(Seconds(total), polling);
          },
          py::arg("total"), py::arg("polling"),
          "The figures as aligned text lines; `total` is the wall time in seconds they cover.");
}

}  // namespace coupler::python
