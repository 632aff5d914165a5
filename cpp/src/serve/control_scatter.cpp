#include <coupler/serve/control_scatter.hpp>

#include <string>
#include <utility>

#include <coupler/wire/error.hpp>

namespace coupler {

namespace {

void check_place(std::size_t place, std::size_t target_size, const char* what) {
  if (place >= target_size) {
    throw Error(std::string(what) + " goes to place " + std::to_string(place) + " of a control array of " +
                std::to_string(target_size));
  }
}

}  // namespace

ControlScatter::ControlScatter(double* target, std::size_t target_size, std::size_t object_count,
                               std::vector<Value> values, std::vector<Event> events)
    : target_(target), values_(std::move(values)), events_(std::move(events)), object_count_(object_count) {
  for (const Value& value : values_) {
    check_place(value.place, target_size, "a control value");
    if (value.object >= object_count) {
      throw Error("a control value belongs to object " + std::to_string(value.object) + " of " +
                  std::to_string(object_count));
    }
  }
  for (const Event& event : events_) check_place(event.place, target_size, "a control event");
}

std::vector<std::size_t> ControlScatter::apply(const double* values, const std::uint8_t* values_set,
                                               const std::uint8_t* events_set,
                                               const std::uint8_t* events_on) const {
  std::vector<std::size_t> outside;
  for (std::size_t i = 0; i < values_.size(); ++i) {
    const Value& v = values_[i];
    if (!values_set[v.object]) continue;
    const double scaled = values[i] * v.scale / v.divisor;
    if (scaled < v.low || scaled > v.high) outside.push_back(i);
    target_[v.place] = scaled;
  }
  for (std::size_t e = 0; e < events_.size(); ++e) {
    if (events_set[e]) target_[events_[e].place] = events_on[e] ? events_[e].on : events_[e].off;
  }
  return outside;
}

}  // namespace coupler
