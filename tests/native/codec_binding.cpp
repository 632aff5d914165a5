#include <string>

#include <coupler/codec.hpp>

#include "testing_bindings.hpp"

namespace py = pybind11;

namespace coupler::python {

void bind_codec(py::module_& module) {
  module.def(
      "reencode", [](const py::bytes& frame) { return py::bytes(encode(decode(std::string(frame)))); },
      py::arg("frame"),
      "The C++ codec's encode(decode(frame)). Raises coupler.wire.errors.ProtocolError for a frame that is not a valid "
      "message, as coupler.wire.codec.decode does.");
  module.def(
      "describe", [](const py::bytes& frame) { return describe(decode(std::string(frame))); }, py::arg("frame"),
      "The C++ codec's describe(decode(frame)): the message kind and its protobuf text format on one line.");
}

}  // namespace coupler::python
