#include <chrono>

#include <coupler/wire/limits.hpp>

#include "bindings.hpp"
#include "conversions.hpp"

namespace py = pybind11;

namespace coupler::python {

void bind_limits(py::module_& module) {
  py::module_ limits = module.def_submodule(
      "limits", "coupler/wire/limits.hpp: the defaults and limits both ends use, durations in seconds (coupler.limits).");
  limits.attr("default_address") = limits::kDefaultAddress;
  limits.attr("request_timeout") = seconds(limits::kRequestTimeout);
  limits.attr("heartbeat") = seconds(limits::kHeartbeatInterval);
  limits.attr("heartbeat_timeout_intervals") = limits::kHeartbeatTimeoutIntervals;
  limits.attr("heartbeat_timeout") = seconds(limits::kHeartbeatTimeout);
  limits.attr("max_frame_bytes") = limits::kMaxFrameBytes;
  limits.attr("handshake_timeout") = seconds(limits::kHandshakeTimeout);
  limits.attr("max_steps_per_control") = limits::kMaxStepsPerControl;
}

}  // namespace coupler::python
