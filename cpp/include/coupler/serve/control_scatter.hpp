#pragma once
// Where each number of a ControlLayout's arrays goes in a simulation's own
// control array, and the copy there: applying a Control becomes one pass over
// preallocated memory, whatever the scene.

#include <cstddef>
#include <cstdint>
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
  };
  // One event of the layout: target[place] becomes `on` or `off` when the event is set.
  struct Event {
    std::size_t place = 0;
    double off = 0.0;
    double on = 1.0;
  };

  // Writes into `target`, which holds `target_size` numbers and must outlive
  // this object, from arrays of `object_count` objects. Throws coupler::Error
  // when a place lies outside the target or an object outside that count.
  ControlScatter(double* target, std::size_t target_size, std::size_t object_count, std::vector<Value> values,
                 std::vector<Event> events);

  std::size_t value_count() const noexcept { return values_.size(); }
  std::size_t event_count() const noexcept { return events_.size(); }
  std::size_t object_count() const noexcept { return object_count_; }

  // Applies arrays as ControlLayout::read() fills them: values (value_count()),
  // values_set (object_count()), events_set and events_on (event_count()).
  // Returns the indices of the values written outside [low, high], in order.
  std::vector<std::size_t> apply(const double* values, const std::uint8_t* values_set,
                                 const std::uint8_t* events_set, const std::uint8_t* events_on) const;

 private:
  double* target_;
  std::vector<Value> values_;
  std::vector<Event> events_;
  std::size_t object_count_ = 0;
};

}  // namespace coupler
