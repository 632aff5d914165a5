#pragma once
// The length of a quaternion as Python's math.hypot computes it, so that a
// quaternion normalised in C++ is the one a Python program would compute.

namespace coupler {

// hypot(w, x, y, z) as CPython's math.hypot (its vector_norm): scaled by a
// power of two, squared and summed without loss, the square root corrected
// once; infinite when a component is, NaN when one is NaN and none infinite.
// Quaternions whose components are all subnormal (below 2.2e-308) take
// Python 3.11's length, which later versions may round differently.
double quaternion_length(double w, double x, double y, double z) noexcept;

}  // namespace coupler
