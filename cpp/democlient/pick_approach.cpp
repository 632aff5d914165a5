#include "pick_approach.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>

namespace {

using coupler::ValueType;

// Joint angles (rad) that put the arm scene's tool point 10 cm above the top of
// its box, fingers down (solved once by inverse kinematics on demo/scenes/arm.xml).
const std::vector<double> kAboveBox = {0.041, 0.1768, 0.1535, -2.3636, -0.0474, 2.5379, 1.0165};

constexpr double kMoveSeconds = 2.0;
constexpr double kSettleSeconds = 0.5;
constexpr double kGripSeconds = 0.5;

// Minimum-jerk blend from 0 to 1: zero velocity and acceleration at both ends.
double min_jerk(double tau) { return tau * tau * tau * (10.0 - 15.0 * tau + 6.0 * tau * tau); }

std::size_t steps_for(double seconds, double time_step) {
  return static_cast<std::size_t>(std::ceil(seconds / time_step));
}

}  // namespace

std::optional<std::string> find_arm(const coupler::HandshakeMessage& handshake) {
  for (const auto& [name, object] : handshake.objects) {
    const bool all_angles = !object.control_types.empty() &&
                            std::all_of(object.control_types.begin(), object.control_types.end(),
                                        [](ValueType t) { return t == ValueType::Angle; });
    if (all_angles && object.control_events.count("gripper") && object.controls.size() == kAboveBox.size()) {
      return name;
    }
  }
  return std::nullopt;
}

PickApproach::PickApproach(coupler::Session& session, std::string arm) : session_(session), arm_(std::move(arm)) {
  const auto& described = session_.handshake().object(arm_);
  for (const std::string& control : described.controls) {
    const auto it = std::find(described.joint_sensors.begin(), described.joint_sensors.end(), control);
    if (it == described.joint_sensors.end()) {
      throw coupler::Error("arm '" + arm_ + "' reports no angle for its controlled joint '" + control + "'");
    }
    sensor_index_.push_back(static_cast<std::size_t>(it - described.joint_sensors.begin()));
  }
}

std::vector<double> PickApproach::measured(const coupler::SensorReadings& readings) const {
  const std::vector<double>& angles = readings.angles(arm_);
  std::vector<double> out;
  out.reserve(sensor_index_.size());
  for (std::size_t i : sensor_index_) out.push_back(angles.at(i));
  return out;
}

void PickApproach::track(coupler::Controls& controls, const std::vector<double>& target, PickReport& report) {
  const double dt = session_.handshake().time_step;
  const std::vector<double> start = measured(session_.sensors());
  const std::size_t move = steps_for(kMoveSeconds, dt);
  double squares = 0.0;
  std::size_t samples = 0;
  for (std::size_t k = 1; k <= move; ++k) {
    const double s = min_jerk(static_cast<double>(k) / static_cast<double>(move));
    const coupler::Values reference = controls.values(arm_);
    for (std::size_t j = 0; j < reference.size(); ++j) reference[j] = start[j] + (target[j] - start[j]) * s;
    const std::vector<double> actual = measured(session_.step(controls));
    for (std::size_t j = 0; j < actual.size(); ++j) {
      const double error = std::abs(reference[j] - actual[j]);
      report.max_tracking_error = std::max(report.max_tracking_error, error);
      squares += error * error;
      ++samples;
    }
    ++report.steps;
  }
  report.rms_tracking_error = samples ? std::sqrt(squares / static_cast<double>(samples)) : 0.0;
}

PickReport PickApproach::run(coupler::Controls& controls) {
  PickReport report;
  session_.reset();  // start from the scene's initial state, whatever ran before
  const double dt = session_.handshake().time_step;
  track(controls, kAboveBox, report);

  coupler::SensorReadings readings = session_.sensors();
  for (std::size_t k = 0; k < steps_for(kSettleSeconds, dt); ++k, ++report.steps) readings = session_.step(controls);
  controls.event(arm_, "gripper", true);
  for (std::size_t k = 0; k < steps_for(kGripSeconds, dt); ++k, ++report.steps) readings = session_.step(controls);
  report.gripper_closed = true;

  const std::vector<double> actual = measured(readings);
  for (std::size_t j = 0; j < actual.size(); ++j) {
    report.final_error = std::max(report.final_error, std::abs(kAboveBox[j] - actual[j]));
  }
  try {
    const std::vector<double>& gripper = readings.sensor(arm_, "tcp", ValueType::Position);
    const std::vector<double>& box = readings.object_sensor("box", ValueType::Position);
    report.gripper_height_above_box = gripper[2] - box[2];
    report.gripper_offset_from_box = std::hypot(gripper[0] - box[0], gripper[1] - box[1]);
  } catch (const coupler::Error&) {
    // The scene reports no gripper or box position; the joint errors stand alone.
  }
  return report;
}

void PickReport::print(std::ostream& out) const {
  const auto flags = out.flags();
  out << std::fixed << std::setprecision(4);
  out << "pick approach: " << steps << " steps, gripper " << (gripper_closed ? "closed" : "open") << '\n';
  out << "  tracking error max " << max_tracking_error << " rad, rms " << rms_tracking_error << " rad, final "
      << final_error << " rad\n";
  if (gripper_height_above_box && gripper_offset_from_box) {
    out << "  tool point " << *gripper_height_above_box << " m above the box centre, " << *gripper_offset_from_box
        << " m off it horizontally\n";
  }
  out.flags(flags);
}
