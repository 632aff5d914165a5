// coupler._native.RunClock: coupler::RunClock on the steady clock Python's time.monotonic() reads, for
// coupler.serve.run_clock.

#include <chrono>
#include <optional>

#include <pybind11/stl.h>

#include <coupler/serve/run_clock.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

using Clock = RunClock::Clock;

}  // namespace

void bind_run_clock(py::module_& module) {
  py::class_<RunClock>(module, "RunClock",
                       "coupler::RunClock (coupler/serve/run_clock.hpp): when a simulated time is due on the wall "
                       "clock, from an anchor set when a run (re)starts. `speed`: simulated seconds per wall second; "
                       "None: as fast as possible, nothing ever early or late.")
      .def(py::init<std::optional<double>>(), py::arg("speed") = 1.0)
      .def_property_readonly("speed", &RunClock::speed)
      .def(
          "anchor", [](RunClock& clock, double time) { clock.anchor(time, Clock::now()); }, py::arg("simulated_time"),
          "Pacing restarts: `simulated_time` is due now.")
      .def(
          "due_in", [](const RunClock& clock, double time) { return clock.due_in(time, Clock::now()); },
          py::arg("simulated_time"), "Seconds until the wall clock reaches this simulated time (negative when late).")
      .def(
          "delay_until",
          [](RunClock& clock, double time, double late_after) { return clock.delay_until(time, late_after, Clock::now()); },
          py::arg("simulated_time"), py::arg("late_after"),
          "Seconds to wait until this simulated time is due; 0 when due, counting a missed deadline when it was due "
          "more than `late_after` seconds ago.")
      .def_property_readonly("deadlines_missed", &RunClock::deadlines_missed,
                             "Deadlines missed, here or by the hot path runs paced by this clock.");
}

}  // namespace coupler::python
