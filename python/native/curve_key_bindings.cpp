#include <string>
#include <utility>

#include <coupler/transport/curve_keys.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace coupler::python {

void bind_curve_keys(py::module_& module) {
  module.def(
      "load_curve_key_pair",
      [](const std::string& path) {
        CurveKeyPair pair = load_curve_key_pair(path);
        return std::make_pair(py::bytes(pair.public_key), py::bytes(pair.secret_key));
      },
      py::arg("path"), "The Z85 (public, secret) keys of a NAME.key_secret file; coupler.Error names the problem.");
  module.def(
      "load_curve_public_key", [](const std::string& path) { return py::bytes(load_curve_public_key(path)); },
      py::arg("path"), "The Z85 public key of a NAME.key or NAME.key_secret file.");
  module.def(
      "load_curve_public_keys",
      [](const std::string& directory) {
        py::list keys;
        for (const std::string& key : load_curve_public_keys(directory)) keys.append(py::bytes(key));
        return keys;
      },
      py::arg("directory"), "The public keys of every *.key file in `directory`, in file name order.");
}

}  // namespace coupler::python
