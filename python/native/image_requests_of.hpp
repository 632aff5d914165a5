#pragma once
// Image requests crossing from Python: coupler.wire.messages ImageRequest values.

#include <vector>

#include <pybind11/pybind11.h>

#include <coupler/wire/messages.hpp>

namespace coupler::python {

// ImageRequest values (or None: none) as C++ ones, through the codec's conversion of a SensorRequest.
std::vector<ImageRequest> image_requests_of(const pybind11::object& images);

}  // namespace coupler::python
