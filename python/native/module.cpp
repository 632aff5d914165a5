#include "bindings.hpp"

PYBIND11_MODULE(_native, module) {
  module.doc() =
      "coupler's C++ Server, Client and flat control and sensor layouts, used by coupler.flat_layout "
      "and coupler.native_responder. Errors are the coupler.errors classes.";
  coupler::python::register_errors();
  coupler::python::bind_server(module);
  coupler::python::bind_client(module);
  coupler::python::bind_layouts(module);
  coupler::python::bind_codec(module);
  coupler::python::bind_scatter_gather(module);
}
