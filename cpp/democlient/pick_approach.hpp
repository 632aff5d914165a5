#pragma once
// The demo's closed loop: move an arm from where it is to a pose above the
// box along a smooth joint-space trajectory, then close the gripper.

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <coupler/controller/session.hpp>

struct PickReport {
  std::size_t steps = 0;
  double max_tracking_error = 0.0;  // rad, worst joint over the trajectory
  double rms_tracking_error = 0.0;  // rad, over all joints and steps
  double final_error = 0.0;         // rad, worst joint after settling
  std::optional<double> gripper_height_above_box;  // m, when the scene reports both positions
  std::optional<double> gripper_offset_from_box;   // m, horizontal
  bool gripper_closed = false;

  void print(std::ostream& out) const;
};

// The arm to drive: an object whose controls are all joint angles and that
// has a "gripper" event; nullopt when the scene has none.
std::optional<std::string> find_arm(const coupler::HandshakeMessage& handshake);

class PickApproach {
 public:
  PickApproach(coupler::Session& session, std::string arm);
  PickReport run(coupler::Controls& controls);

 private:
  std::vector<double> measured(const coupler::SensorReadings& readings) const;
  void track(coupler::Controls& controls, const std::vector<double>& target, PickReport& report);

  coupler::Session& session_;
  std::string arm_;
  std::vector<std::size_t> sensor_index_;  // control i is joint sensor sensor_index_[i]
};
