#include <coupler/serve/stepper.hpp>

#include <cmath>
#include <string>

#include <coupler/wire/error.hpp>

namespace coupler {

CountedSteps::CountedSteps(double time_step) : time_step_(time_step) {
  if (!(time_step > 0.0) || !std::isfinite(time_step)) {
    throw Error("time step must be positive and finite, got " + std::to_string(time_step));
  }
}

}  // namespace coupler
