#include "bindings.hpp"

namespace coupler::python {

// The shipped module: no coupler._native.testing.
void add_testing_submodule(pybind11::module_&) {}

}  // namespace coupler::python
