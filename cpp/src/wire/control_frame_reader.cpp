#include "wire/control_frame_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

namespace coupler::detail {
namespace {

// The tags of the plain encoding: (field number << 3) | wire type.
constexpr std::uint64_t kMessageTypeTag = (1 << 3) | 0;
constexpr std::uint64_t kObjectsTag = (2 << 3) | 2;
constexpr std::uint64_t kStepsTag = (100 << 3) | 0;
constexpr std::uint64_t kEntryKeyTag = (1 << 3) | 2;
constexpr std::uint64_t kEntryValueTag = (2 << 3) | 2;  // a map entry's value: the Object, or the event's flag below
constexpr std::uint64_t kEventValueTag = (2 << 3) | 0;
constexpr std::uint64_t kValuesTag = (5 << 3) | 2;  // packed
constexpr std::uint64_t kEventsTag = (4 << 3) | 2;
constexpr std::uint64_t kControlType = 2;  // MessageType::Control

struct Cursor {
  const char* p;
  const char* end;

  bool done() const { return p == end; }

  // At most nine bytes: no value this reader takes needs more.
  std::optional<std::uint64_t> varint() {
    std::uint64_t value = 0;
    for (int i = 0; i < 9 && p < end; ++i) {
      const auto byte = static_cast<std::uint8_t>(*p++);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << (7 * i);
      if (byte < 0x80) return value;
    }
    return std::nullopt;
  }

  std::optional<std::string_view> bytes() {
    const std::optional<std::uint64_t> length = varint();
    if (!length || *length > static_cast<std::uint64_t>(end - p)) return std::nullopt;
    const std::string_view out(p, static_cast<std::size_t>(*length));
    p += *length;
    return out;
  }
};

// A map entry of the plain encoding: its key, then its value.
bool entry(std::string_view bytes, std::uint64_t value_tag, std::string_view& key, Cursor& value) {
  Cursor in{bytes.data(), bytes.data() + bytes.size()};
  const auto key_tag = in.varint();
  if (key_tag != kEntryKeyTag) return false;
  const auto name = in.bytes();
  if (!name) return false;
  key = *name;
  const auto tag = in.varint();
  if (tag != value_tag) return false;
  value = in;
  return true;
}

}  // namespace

ControlFrameReader::ControlFrameReader(const ControlLayout& layout)
    : layout_(layout), sent_(layout.objects().size()), events_(layout.event_count()) {}

bool ControlFrameReader::read(std::string_view frame, const ControlTargets& out, std::uint64_t max_steps,
                              std::uint64_t& steps) {
  const std::vector<ControlLayout::Object>& objects = layout_.objects();
  std::fill(sent_.begin(), sent_.end(), Sent{});
  std::fill(events_.begin(), events_.end(), std::int8_t{-1});
  Cursor in{frame.data(), frame.data() + frame.size()};
  bool typed = false;
  std::optional<std::uint64_t> asked;
  while (!in.done()) {
    const auto tag = in.varint();
    if (tag == kMessageTypeTag && !typed) {
      typed = in.varint() == kControlType;
      if (!typed) return false;
    } else if (tag == kStepsTag && !asked) {
      asked = in.varint();
      if (!asked || *asked > max_steps || *asked > ControlLayout::kMaxSteps) return false;
    } else if (tag == kObjectsTag) {
      const auto bytes = in.bytes();
      std::string_view name;
      Cursor object{nullptr, nullptr};
      if (!bytes || !entry(*bytes, kEntryValueTag, name, object)) return false;
      const auto body = object.bytes();
      if (!body || !object.done()) return false;
      const auto found = std::lower_bound(objects.begin(), objects.end(), name,
                                          [](const ControlLayout::Object& o, std::string_view n) { return o.name < n; });
      if (found == objects.end() || found->name != name) return false;
      const auto k = static_cast<std::size_t>(found - objects.begin());
      if (sent_[k].carried || !read_object(*body, k)) return false;
    } else {
      return false;
    }
  }
  if (!typed) return false;
  for (std::size_t k = 0; k < objects.size(); ++k) {
    out.values_set[k] = sent_[k].carried ? 1 : 0;
    if (sent_[k].carried) std::memcpy(out.values + objects[k].offset, sent_[k].values, objects[k].size * sizeof(double));
  }
  for (std::size_t e = 0; e < events_.size(); ++e) {
    out.events_set[e] = events_[e] >= 0 ? 1 : 0;
    if (events_[e] >= 0) out.events_on[e] = static_cast<std::uint8_t>(events_[e]);
  }
  steps = asked.value_or(0);
  return true;
}

bool ControlFrameReader::read_object(std::string_view bytes, std::size_t k) {
  const ControlLayout::Object& object = layout_.objects()[k];
  Cursor in{bytes.data(), bytes.data() + bytes.size()};
  bool valued = false;
  while (!in.done()) {
    const auto tag = in.varint();
    if (tag == kValuesTag && !valued) {
      const auto values = in.bytes();
      if (!values || values->size() != object.size * sizeof(double)) return false;
      for (std::size_t i = 0; i < object.size; ++i) {
        double value;
        std::memcpy(&value, values->data() + i * sizeof(double), sizeof value);
        if (!std::isfinite(value)) return false;
      }
      sent_[k].values = values->data();
      valued = true;
    } else if (tag == kEventsTag) {
      const auto event_entry = in.bytes();
      std::string_view name;
      Cursor flag{nullptr, nullptr};
      if (!event_entry || !entry(*event_entry, kEventValueTag, name, flag)) return false;
      const auto on = flag.varint();
      if (!on || *on > 1 || !flag.done()) return false;
      const auto place = std::lower_bound(object.events.begin(), object.events.end(), name);
      if (place == object.events.end() || *place != name) return false;
      const std::size_t e = object.event_offset + static_cast<std::size_t>(place - object.events.begin());
      if (events_[e] >= 0) return false;
      events_[e] = static_cast<std::int8_t>(*on);
    } else {
      return false;
    }
  }
  // An object of no controls carries no values list; any other carries one of its size.
  if (!valued && object.size != 0) return false;
  sent_[k].carried = true;
  return true;
}

}  // namespace coupler::detail
