#pragma once
// The recording's channels (coupler.record.channels) of what the hot paths
// serve: they publish on them what the caller's observer would.

#include <string_view>

namespace coupler {

inline constexpr std::string_view kControlChannel = "/coupler/requests/Control";
inline constexpr std::string_view kReadChannel = "/coupler/requests/SensorRequest";
inline constexpr std::string_view kSensorChannel = "/coupler/answers/Sensor";
inline constexpr std::string_view kErrorChannel = "/coupler/answers/Error";
inline constexpr std::string_view kStateChannel = "/coupler/mujoco_state";

}  // namespace coupler
