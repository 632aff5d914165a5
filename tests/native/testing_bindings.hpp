#pragma once
// coupler._native.testing: C++ pieces that only the tests call from Python
// (the C++ Client), compiled into the module only
// with COUPLER_PYTHON_TEST_BINDINGS, which the shipped wheel leaves off.

#include <pybind11/pybind11.h>

namespace coupler::python {

void bind_client(pybind11::module_& module);

}  // namespace coupler::python
