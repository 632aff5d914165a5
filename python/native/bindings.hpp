#pragma once
// The parts of coupler._native, each adding its classes to the module.

#include <pybind11/pybind11.h>

namespace coupler::python {

// C++ exceptions become the coupler.errors classes of the same name.
void register_errors();
void bind_server(pybind11::module_& module);
void bind_client(pybind11::module_& module);
void bind_session(pybind11::module_& module);
void bind_world_session(pybind11::module_& module);
void bind_layouts(pybind11::module_& module);
void bind_controls(pybind11::module_& module);
void bind_sensor_readings(pybind11::module_& module);
void bind_scatter_gather(pybind11::module_& module);
void bind_curve_keys(pybind11::module_& module);
void bind_hot_path(pybind11::module_& module);
void bind_mujoco_reset(pybind11::module_& module);
void bind_world_steps(pybind11::module_& module);
void bind_frame_publisher(pybind11::module_& module);
void bind_limits(pybind11::module_& module);
void bind_codec(pybind11::module_& module);
void bind_round_trip_stats(pybind11::module_& module);
void bind_peer_text(pybind11::module_& module);
void bind_name_list(pybind11::module_& module);
void bind_rate_limited_log(pybind11::module_& module);
void bind_waiting_requests(pybind11::module_& module);
void bind_run_clock(pybind11::module_& module);
void bind_version(pybind11::module_& module);
void bind_shared_ring(pybind11::module_& module);
void bind_shared_channel(pybind11::module_& module);
void bind_step_chunks(pybind11::module_& module);
void bind_protocol(pybind11::module_& module);
void bind_world_control_check(pybind11::module_& module);

}  // namespace coupler::python
