#include <string>
#include <vector>

#include <pybind11/stl.h>

#include <coupler/wire/name_list.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace coupler::python {

void bind_name_list(py::module_& module) {
  py::module_ name_list = module.def_submodule(
      "name_list", "coupler/wire/name_list.hpp: the names a refused lookup could have found, in one short line.");
  name_list.attr("listed") = kNamesListed;
  name_list.def("valid_names", &valid_names, py::arg("names"), py::arg("listed") = kNamesListed,
                "\"valid names: 'a', 'b'\" (each name shown as peer text; after `listed` names, how many more), or "
                "\"there are no valid names\".");
}

}  // namespace coupler::python
