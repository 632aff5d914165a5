#include "bindings.hpp"
#include "testing_bindings.hpp"

namespace coupler::python {

void add_testing_submodule(pybind11::module_& module) {
  pybind11::module_ testing = module.def_submodule(
      "testing", "The C++ Client, for the Python tests only (built by scripts/setup, never shipped).");
  bind_client(testing);
}

}  // namespace coupler::python
