#include <coupler/wire/version.hpp>

#include "bindings.hpp"

namespace coupler::python {

void bind_version(pybind11::module_& module) {
  module.def("version", &coupler::version, "coupler::version(): the C++ library's version, coupler.__version__.");
}

}  // namespace coupler::python
