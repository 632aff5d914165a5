#include <coupler/transport/rate_limited_log.hpp>

#include <sstream>

#include <coupler/wire/error.hpp>

namespace coupler {

RateLimitedLog::RateLimitedLog(std::size_t burst, Seconds interval) : burst_(burst), interval_(interval) {
  if (burst < 1 || !(interval.count() > 0)) {
    std::ostringstream text;
    text << "burst must be at least 1 and interval positive, got " << burst << " and " << interval.count();
    throw Error(text.str());
  }
}

std::optional<std::uint64_t> RateLimitedLog::admit(const std::string& kind, Clock::time_point now) {
  std::uint64_t left_out = 0;
  auto found = windows_.find(kind);
  if (found == windows_.end() || now - found->second.started >= interval_) {
    if (found != windows_.end()) left_out = found->second.left_out;
    found = windows_.insert_or_assign(kind, Window{now}).first;
  }
  Window& window = found->second;
  if (window.written >= burst_) {
    ++window.left_out;
    return std::nullopt;
  }
  ++window.written;
  return left_out;
}

std::string RateLimitedLog::left_out_line(std::uint64_t left_out) const {
  // %g-like seconds: "60", "0.5".
  std::ostringstream text;
  text << left_out << " more like the next line were left out in the last " << interval_.count() << " s";
  return text.str();
}

}  // namespace coupler
