#include "bindings.hpp"

PYBIND11_MODULE(_native, module) {
  module.doc() =
      "coupler's codec, C++ Server, Client and Session, flat control and sensor layouts, MuJoCo scatter and gather, CURVE key files, "
      "round-trip statistics, peer-text escaping, the rate-limited log and the version, "
      "used by coupler.wire.codec, coupler.wire.flat_layout, coupler.serve.native_responder, coupler.transport and coupler.mujoco. "
      "Errors are the coupler.wire.errors classes.";
  coupler::python::register_errors();
  coupler::python::bind_protocol(module);
  coupler::python::bind_limits(module);
  coupler::python::bind_server(module);
  coupler::python::bind_client(module);
  coupler::python::bind_round_trip_stats(module);
  coupler::python::bind_controls(module);
  coupler::python::bind_sensor_readings(module);
  coupler::python::bind_session(module);
  coupler::python::bind_world_session(module);
  coupler::python::bind_layouts(module);
  coupler::python::bind_scatter_gather(module);
  coupler::python::bind_curve_keys(module);
  coupler::python::bind_frame_publisher(module);
  coupler::python::bind_hot_path(module);
  coupler::python::bind_mujoco_reset(module);
  coupler::python::bind_world_steps(module);
  coupler::python::bind_world_control_check(module);
  coupler::python::bind_codec(module);
  coupler::python::bind_peer_text(module);
  coupler::python::bind_name_list(module);
  coupler::python::bind_rate_limited_log(module);
  coupler::python::bind_waiting_requests(module);
  coupler::python::bind_run_clock(module);
  coupler::python::bind_version(module);
  coupler::python::bind_shared_ring(module);
  coupler::python::bind_shared_channel(module);
  coupler::python::bind_step_chunks(module);
}
