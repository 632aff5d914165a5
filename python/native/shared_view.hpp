#pragma once
// Views of the "shm" extension's ring as NumPy arrays, for the bindings that read answers through it.

#include <memory>

#include <pybind11/numpy.h>

#include <coupler/transport/shared_ring.hpp>

namespace coupler::python {

// The bytes a coupler.wire.messages.SharedSlice names, as a read-only uint8 array of the mapped memory (no copy)
// that keeps `ring` mapped; coupler.Error in one line for a buffer or range outside the ring, or a buffer since
// overwritten.
pybind11::array_t<std::uint8_t> shared_view(const std::shared_ptr<const SharedRingReader>& ring,
                                            const pybind11::handle& slice);

}  // namespace coupler::python
