#include <coupler/serve/quaternion_length.hpp>

#include <cmath>

namespace coupler {
namespace {

// A number as the unevaluated sum hi + lo.
struct DoubleLength {
  double hi;
  double lo;
};

// a + b without loss, for |a| >= |b|.
DoubleLength fast_sum(double a, double b) noexcept {
  const double x = a + b;
  return {x, (a - x) + b};
}

// x * y without loss: the rounded product and its error (exact through fma,
// which no compiler contraction can change).
DoubleLength product(double x, double y) noexcept {
  const double z = x * y;
  return {z, std::fma(x, y, -z)};
}

// CPython 3.11's vector_norm: `max` the largest magnitude of `v` (whose numbers are magnitudes).
double vector_norm(const double (&v)[4], double max, bool found_nan) noexcept {
  if (std::isinf(max)) return max;
  if (found_nan) return NAN;
  if (max == 0.0) return max;
  int max_e = 0;
  std::frexp(max, &max_e);
  if (max_e < -1023) {
    // Subnormal: 2^-max_e would overflow, so the numbers are divided by the largest instead (as Python 3.11 does;
    // later versions make them normal first, which may differ in the last bit).
    double csum = 1.0;
    double frac = 0.0;
    for (const double magnitude : v) {
      double x = magnitude / max;
      x = x * x;
      const double old = csum;
      csum += x;
      frac += (old - csum) + x;
    }
    return max * std::sqrt(csum - 1.0 + frac);
  }
  const double scale = std::ldexp(1.0, -max_e);
  // Summed from 1.0, which no scaled square exceeds, so that each sum is exact with its error term.
  double csum = 1.0;
  double frac1 = 0.0;
  double frac2 = 0.0;
  for (const double magnitude : v) {
    const double x = magnitude * scale;
    const DoubleLength square = product(x, x);
    const DoubleLength sum = fast_sum(csum, square.hi);
    csum = sum.hi;
    frac1 += square.lo;
    frac2 += sum.lo;
  }
  double h = std::sqrt(csum - 1.0 + (frac1 + frac2));
  const DoubleLength square = product(-h, h);
  const DoubleLength sum = fast_sum(csum, square.hi);
  csum = sum.hi;
  frac1 += square.lo;
  frac2 += sum.lo;
  const double x = csum - 1.0 + (frac1 + frac2);
  h += x / (2.0 * h);  // one Newton step: a correctly rounded root of a rounded sum may still be off by an ulp
  return h / scale;
}

}  // namespace

double quaternion_length(double w, double x, double y, double z) noexcept {
  const double v[4] = {std::fabs(w), std::fabs(x), std::fabs(y), std::fabs(z)};
  double max = 0.0;
  bool found_nan = false;
  for (const double magnitude : v) {
    found_nan = found_nan || std::isnan(magnitude);
    if (magnitude > max) max = magnitude;
  }
  return vector_norm(v, max, found_nan);
}

}  // namespace coupler
