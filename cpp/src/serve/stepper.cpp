#include <coupler/serve/stepper.hpp>

#include <cmath>
#include <string>

#include <coupler/wire/codec.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/wire/messages.hpp>

namespace coupler {

CountedSteps::CountedSteps(double time_step) : time_step_(time_step) {
  if (!(time_step > 0.0) || !std::isfinite(time_step)) {
    throw Error("time step must be positive and finite, got " + std::to_string(time_step));
  }
}

std::string failed_step_frame(const std::string& failure) {
  return encode(ErrorMessage{static_cast<int>(ErrorCode::InternalError),
                             "internal error: " + failure.substr(0, failure.find('\n'))});
}

}  // namespace coupler
