#include <chrono>

#include <coupler/wire/frame_bytes.hpp>
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
  limits.attr("min_timeout") = limits::kMinTimeoutSeconds;
  limits.attr("max_timeout") = limits::kMaxTimeoutSeconds;
  limits.attr("min_heartbeat") = limits::kMinHeartbeatSeconds;
  limits.attr("max_heartbeat") = limits::kMaxHeartbeatSeconds;
  limits.attr("min_handshake_timeout") = limits::kMinHandshakeTimeoutSeconds;
  limits.attr("max_handshake_timeout") = limits::kMaxHandshakeTimeoutSeconds;
  limits.attr("largest_frame_limit") = limits::kLargestFrameLimit;
  limits.attr("max_range") = limits::kMaxRange;
  limits.attr("image_overhead") = kImageOverhead;
  limits.def("world_answer_bytes", &world_answer_bytes, py::arg("worlds"), py::arg("sensor_width"),
             py::arg("data_width") = 0,
             "The most bytes an answer to a Control for `worlds` worlds of `sensor_width` readings (and `data_width` "
             "numbers of world data) each takes, without images (coupler/wire/frame_bytes.hpp).");
  limits.def("world_control_bytes", &world_control_bytes, py::arg("worlds"), py::arg("control_width"),
             "The most bytes a Control for `worlds` worlds of `control_width` numbers each takes, every world reset "
             "(without a given state) or stepped (coupler/wire/frame_bytes.hpp).");
}

}  // namespace coupler::python
