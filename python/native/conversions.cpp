#include "conversions.hpp"

#include <cmath>

namespace py = pybind11;

namespace coupler::python {

std::chrono::milliseconds milliseconds(double seconds) {
  if (!(seconds >= 0.0)) throw py::value_error("a timeout is a number of seconds, 0 or more");
  return std::chrono::milliseconds(static_cast<long long>(std::ceil(seconds * 1000.0)));
}

double seconds(std::chrono::milliseconds duration) { return std::chrono::duration<double>(duration).count(); }

py::object zeros(std::size_t size, const char* dtype) {
  return py::module_::import("numpy").attr("zeros")(size, py::arg("dtype") = dtype);
}

}  // namespace coupler::python