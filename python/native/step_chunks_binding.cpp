#include <cstdint>

#include <coupler/serve/step_chunks.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace coupler::python {

void bind_step_chunks(py::module_& module) {
  py::class_<StepChunks>(module, "StepChunks",
                         "coupler::StepChunks (coupler/serve/step_chunks.hpp): how a Control of many steps is cut "
                         "into chunks of about `seconds` of stepping each. The first chunk is FIRST steps; each next "
                         "one is sized from the time per step of the one before.")
      .def(py::init<double>(), py::arg("seconds") = StepChunks::kSeconds)
      .def_readonly_static("FIRST", &StepChunks::kFirst,
                           "Steps of the first chunk; a Control asking for more is taken in chunks.")
      .def_readonly_static("SECONDS", &StepChunks::kSeconds, "Seconds of stepping per chunk, by default.")
      .def("next", &StepChunks::next, py::arg("left"), "The steps of the next chunk, at most `left`.")
      .def("took", &StepChunks::took, py::arg("steps"), py::arg("seconds"),
           "A chunk of `steps` took `seconds`: the next is sized from it.")
      .def_property_readonly("seconds", &StepChunks::seconds);
}

}  // namespace coupler::python
