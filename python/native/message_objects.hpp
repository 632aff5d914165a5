#pragma once
// coupler::Message values as the coupler.wire.messages dataclasses, and back
// (python/native/codec_binding.cpp).

#include <pybind11/pybind11.h>

#include <coupler/wire/messages.hpp>

namespace coupler::python {

// Raises TypeError for an object that is not a coupler message, coupler.Error
// for a field of the wrong type or out of its range.
Message to_message(const pybind11::handle& message);

pybind11::object to_python(const Message& message);

}  // namespace coupler::python
