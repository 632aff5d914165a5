#pragma once
// Values crossing between Python and C++: timeouts and NumPy arrays.

#include <chrono>
#include <cstddef>

#include <pybind11/pybind11.h>

namespace coupler::python {

// Seconds as Python passes them, rounded up so a wait never ends early.
std::chrono::milliseconds milliseconds(double seconds);
// The other way, for defaults Python sees in seconds.
double seconds(std::chrono::milliseconds duration);

// A zeroed one-dimensional NumPy array, made through NumPy's Python API so the
// module does not depend on NumPy's C ABI.
pybind11::object zeros(std::size_t size, const char* dtype);

// Where an array made by zeros() keeps its numbers. Stays valid while the
// array lives: nothing here ever resizes one.
template <class T>
T* data_of(const pybind11::object& array) {
  return static_cast<T*>(pybind11::buffer(array).request(true).ptr);
}

}  // namespace coupler::python
