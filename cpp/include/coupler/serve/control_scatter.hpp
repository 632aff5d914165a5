#pragma once
// Where each number of a ControlLayout's arrays goes in a simulation's own
// arrays, and the copy there: applying a Control becomes one pass over
// preallocated memory, whatever the scene.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace coupler {

class ControlScatter {
 public:
  // One control value of the layout: taken when its object's values_set flag
  // is set, multiplied by `scale`, divided by `divisor`, written to
  // target[place]. Two factors, so that value / gear is computed as a division
  // (value * (1 / gear) differs from it in the last bit for many values).
  struct Value {
    std::size_t object = 0;  // index into values_set
    std::size_t place = 0;
    double scale = 1.0;
    double low = 0.0;   // the range the simulation accepts; a value outside is still written, and reported
    double high = 0.0;
    double divisor = 1.0;
    // Whose value it is, for the refusal of one the simulation cannot take.
    std::string object_name;
    std::string control;
  };
  // One event of the layout: target[place] becomes `on` or `off` when the event is set.
  struct Event {
    std::size_t place = 0;
    double off = 0.0;
    double on = 1.0;
  };
  // A body whose pose is set rather than simulated (a MuJoCo mocap body): seven
  // values of the layout from `first` on, x, y, z then qw, qx, qy, qz, taken
  // when its object's values_set flag is set. The position is written as sent
  // to position[3 * body ...], the quaternion divided by its length (Python's
  // math.hypot, bit for bit) to quaternion[4 * body ...], so that it is a unit
  // one. A zero quaternion names no orientation: the Control is refused.
  struct Pose {
    std::size_t object = 0;  // index into values_set
    std::size_t first = 0;   // index of x in the values array
    std::size_t body = 0;
    std::string name;  // the body's (its object's), for refusals
  };
  // The arrays poses are written to (mjData.mocap_pos and mocap_quat), and their sizes in numbers.
  struct PoseTargets {
    double* position = nullptr;
    std::size_t position_size = 0;
    double* quaternion = nullptr;
    std::size_t quaternion_size = 0;
  };

  // A quaternion this close to unit length is taken as meant to be one: normalised, not reported.
  static constexpr double kUnitTolerance = 1e-6;
  // The names of a pose's seven values, in order.
  static constexpr const char* kPoseControls[] = {"x", "y", "z", "qw", "qx", "qy", "qz"};

  // Writes into `target`, which holds `target_size` numbers and must outlive
  // this object, from arrays of `object_count` objects. The values array
  // holds the seven values of each pose where the pose says, and the values
  // of `values`, in order, in every other place. A number written larger in
  // magnitude than `max_control` (MuJoCo's mjMAXVAL: beyond it MuJoCo zeroes
  // every control of the step) refuses the Control. Throws coupler::Error
  // when a place lies outside its target, an object outside that count, or
  // poses overlap.
  ControlScatter(double* target, std::size_t target_size, std::size_t object_count, std::vector<Value> values,
                 std::vector<Event> events, PoseTargets pose_targets, std::vector<Pose> poses,
                 double max_control = std::numeric_limits<double>::infinity());
  // Without poses.
  ControlScatter(double* target, std::size_t target_size, std::size_t object_count, std::vector<Value> values,
                 std::vector<Event> events, double max_control = std::numeric_limits<double>::infinity());

  std::size_t value_count() const noexcept { return sources_.size() + kPoseValues * poses_.size(); }
  std::size_t event_count() const noexcept { return events_.size(); }
  std::size_t object_count() const noexcept { return object_count_; }
  std::size_t pose_count() const noexcept { return poses_.size(); }

  // Per value of the values array, the largest magnitude it may have (infinity for a value of scale 0).
  const std::vector<double>& value_limits() const noexcept { return limits_; }

  // Whether apply() would refuse these arrays: a value they set beyond its
  // limit, or a pose they set with a zero quaternion.
  bool refuses(const double* values, const std::uint8_t* values_set) const noexcept;
  // Throws coupler::ProtocolError (ControlMismatch) naming the first value
  // these arrays set beyond its limit, and its limit.
  void check_values(const double* values, const std::uint8_t* values_set, const std::string& where = "") const;
  // Throws coupler::ProtocolError (ControlMismatch) naming what apply()
  // would refuse: as check_values(), then the first pose set with a zero
  // quaternion, its body's name. Each is followed by `where` (" in world 3").
  void check(const double* values, const std::uint8_t* values_set, const std::string& where = "") const;

  // Applies arrays as ControlLayout::read() fills them: values (value_count()),
  // values_set (object_count()), events_set and events_on (event_count()).
  // Returns the indices (into values) of what was not written as sent: the
  // qw of each quaternion normalised from a length off 1 by more than
  // kUnitTolerance, then the values written outside [low, high], in order.
  // A refused Control (check()) throws, with nothing written.
  std::vector<std::size_t> apply(const double* values, const std::uint8_t* values_set,
                                 const std::uint8_t* events_set, const std::uint8_t* events_on) const;

 private:
  static constexpr std::size_t kPoseValues = 7;

  // The first value these arrays set beyond its limit (its index in the values array), if any.
  std::optional<std::size_t> first_beyond(const double* values, const std::uint8_t* values_set) const noexcept;
  bool beyond(double value, double scale, double divisor) const noexcept;

  double* target_;
  std::vector<Value> values_;
  std::vector<std::size_t> sources_;  // per value, its index in the values array
  std::vector<Event> events_;
  PoseTargets pose_targets_;
  std::vector<Pose> poses_;
  std::size_t object_count_ = 0;
  double max_control_;
  std::vector<double> limits_;  // per value of the values array
  // Values up to this magnitude are within every limit: the common case looks no further.
  double within_every_limit_;
};

}  // namespace coupler
