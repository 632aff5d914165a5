#include <coupler/serve/control_scatter.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include <coupler/serve/quaternion_length.hpp>
#include <coupler/wire/error.hpp>

namespace coupler {

namespace {

void check_place(std::size_t place, std::size_t target_size, const char* what) {
  if (place >= target_size) {
    throw Error(std::string(what) + " goes to place " + std::to_string(place) + " of a control array of " +
                std::to_string(target_size));
  }
}

void check_object(std::size_t object, std::size_t object_count, const char* what) {
  if (object >= object_count) {
    throw Error(std::string(what) + " belongs to object " + std::to_string(object) + " of " +
                std::to_string(object_count));
  }
}

// Where qw sits among a pose's seven values.
constexpr std::size_t kQw = 3;

bool zero_quaternion(const double* q) noexcept { return q[0] == 0.0 && q[1] == 0.0 && q[2] == 0.0 && q[3] == 0.0; }

// Six significant digits, as %g (and Python's format(x, "g")) shows a number.
std::string shown(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

// A value up to this share of the smallest limit is within every limit, however the limits were rounded.
constexpr double kBelowEveryLimit = 1.0 - 1e-9;

}  // namespace

ControlScatter::ControlScatter(double* target, std::size_t target_size, std::size_t object_count,
                               std::vector<Value> values, std::vector<Event> events, PoseTargets pose_targets,
                               std::vector<Pose> poses, double max_control)
    : target_(target),
      values_(std::move(values)),
      events_(std::move(events)),
      pose_targets_(pose_targets),
      poses_(std::move(poses)),
      object_count_(object_count),
      max_control_(max_control) {
  for (const Value& value : values_) {
    check_place(value.place, target_size, "a control value");
    check_object(value.object, object_count, "a control value");
  }
  for (const Event& event : events_) check_place(event.place, target_size, "a control event");
  const std::size_t count = values_.size() + kPoseValues * poses_.size();
  std::vector<bool> posed(count, false);
  for (const Pose& pose : poses_) {
    check_object(pose.object, object_count, "a pose");
    if (pose.first + kPoseValues > count) {
      throw Error("a pose's values start at " + std::to_string(pose.first) + " of " + std::to_string(count));
    }
    if (!pose_targets_.position || !pose_targets_.quaternion || 3 * pose.body + 3 > pose_targets_.position_size ||
        4 * pose.body + 4 > pose_targets_.quaternion_size) {
      throw Error("the pose of body " + std::to_string(pose.body) + " lies outside its position or quaternion array");
    }
    for (std::size_t k = pose.first; k < pose.first + kPoseValues; ++k) {
      if (posed[k]) throw Error("two poses take value " + std::to_string(k));
      posed[k] = true;
    }
  }
  for (std::size_t k = 0; k < count; ++k) {
    if (!posed[k]) sources_.push_back(k);
  }
  // A pose's numbers are written as sent (its quaternion is normalised from them): each has max_control for limit.
  limits_.assign(count, max_control_);
  for (std::size_t i = 0; i < values_.size(); ++i) {
    const Value& v = values_[i];
    limits_[sources_[i]] = v.scale == 0.0 ? std::numeric_limits<double>::infinity()
                                          : max_control_ * std::fabs(v.divisor) / std::fabs(v.scale);
  }
  within_every_limit_ = limits_.empty() ? std::numeric_limits<double>::infinity()
                                        : *std::min_element(limits_.begin(), limits_.end()) * kBelowEveryLimit;
}

ControlScatter::ControlScatter(double* target, std::size_t target_size, std::size_t object_count,
                               std::vector<Value> values, std::vector<Event> events, double max_control)
    : ControlScatter(target, target_size, object_count, std::move(values), std::move(events), PoseTargets{}, {},
                     max_control) {}

bool ControlScatter::beyond(double value, double scale, double divisor) const noexcept {
  // The number written, as apply() computes it, is what MuJoCo takes or zeroes.
  return std::fabs(value) > within_every_limit_ && std::fabs(value * scale / divisor) > max_control_;
}

std::optional<std::size_t> ControlScatter::first_beyond(const double* values,
                                                        const std::uint8_t* values_set) const noexcept {
  std::optional<std::size_t> first;
  for (std::size_t i = 0; i < values_.size(); ++i) {
    const Value& v = values_[i];
    if (values_set[v.object] && beyond(values[sources_[i]], v.scale, v.divisor)) {
      first = sources_[i];
      break;  // sources_ ascend
    }
  }
  for (const Pose& pose : poses_) {
    if (!values_set[pose.object] || (first && pose.first > *first)) continue;
    for (std::size_t k = pose.first; k < pose.first + kPoseValues && (!first || k < *first); ++k) {
      if (beyond(values[k], 1.0, 1.0)) first = k;
    }
  }
  return first;
}

bool ControlScatter::refuses(const double* values, const std::uint8_t* values_set) const noexcept {
  if (first_beyond(values, values_set)) return true;
  for (const Pose& pose : poses_) {
    if (values_set[pose.object] && zero_quaternion(values + pose.first + kQw)) return true;
  }
  return false;
}

void ControlScatter::check_values(const double* values, const std::uint8_t* values_set,
                                  const std::string& where) const {
  const std::optional<std::size_t> k = first_beyond(values, values_set);
  if (!k) return;
  std::string object;
  std::string control;
  for (std::size_t i = 0; i < values_.size(); ++i) {
    if (sources_[i] == *k) {
      object = values_[i].object_name;
      control = values_[i].control;
    }
  }
  for (const Pose& pose : poses_) {
    if (*k >= pose.first && *k < pose.first + kPoseValues) {
      object = pose.name;
      control = kPoseControls[*k - pose.first];
    }
  }
  throw ProtocolError(ErrorCode::ControlMismatch, "control does not match the handshake: control '" + control +
                                                      "' of object '" + object + "'" + where + " is " +
                                                      shown(values[*k]) + ", beyond the " + shown(limits_[*k]) +
                                                      " MuJoCo accepts");
}

void ControlScatter::check(const double* values, const std::uint8_t* values_set, const std::string& where) const {
  check_values(values, values_set, where);
  for (const Pose& pose : poses_) {
    if (values_set[pose.object] && zero_quaternion(values + pose.first + kQw)) {
      throw ProtocolError(ErrorCode::ControlMismatch,
                          "control does not match the handshake: the orientation (qw, qx, qy, qz) of mocap body '" +
                              pose.name + "'" + where +
                              " is zero, which is no rotation; (1, 0, 0, 0) keeps the world's");
    }
  }
}

std::vector<std::size_t> ControlScatter::apply(const double* values, const std::uint8_t* values_set,
                                               const std::uint8_t* events_set,
                                               const std::uint8_t* events_on) const {
  std::vector<std::size_t> outside;
  check(values, values_set);
  if (!poses_.empty()) {
    for (const Pose& pose : poses_) {
      if (!values_set[pose.object]) continue;
      const double* sent = values + pose.first;
      double* position = pose_targets_.position + 3 * pose.body;
      for (std::size_t k = 0; k < 3; ++k) position[k] = sent[k];
      const double* q = sent + kQw;
      const double length = quaternion_length(q[0], q[1], q[2], q[3]);
      double* quaternion = pose_targets_.quaternion + 4 * pose.body;
      for (std::size_t k = 0; k < 4; ++k) quaternion[k] = q[k] / length;
      if (std::fabs(length - 1.0) > kUnitTolerance) outside.push_back(pose.first + kQw);
    }
  }
  for (std::size_t i = 0; i < values_.size(); ++i) {
    const Value& v = values_[i];
    if (!values_set[v.object]) continue;
    const std::size_t source = sources_[i];
    const double scaled = values[source] * v.scale / v.divisor;
    if (scaled < v.low || scaled > v.high) outside.push_back(source);
    target_[v.place] = scaled;
  }
  for (std::size_t e = 0; e < events_.size(); ++e) {
    if (events_set[e]) target_[events_[e].place] = events_on[e] ? events_[e].on : events_[e].off;
  }
  return outside;
}

}  // namespace coupler
