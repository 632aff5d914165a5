#include "transport/rate_limited_log.hpp"

#include <utility>

namespace coupler::detail {

RateLimitedLog::RateLimitedLog(std::function<void(const std::string&)> write, std::size_t burst,
                               std::chrono::seconds interval)
    : write_(std::move(write)), burst_(burst), interval_(interval) {}

void RateLimitedLog::operator()(const std::string& line, Clock::time_point now) {
  if (!started_ || now - window_start_ >= interval_) {
    if (left_out_ > 0) {
      write_(std::to_string(left_out_) + " more lines like the next were left out in the last " +
             std::to_string(interval_.count()) + " s");
    }
    started_ = true;
    window_start_ = now;
    written_ = 0;
    left_out_ = 0;
  }
  if (written_ >= burst_) {
    ++left_out_;
    return;
  }
  ++written_;
  write_(line);
}

}  // namespace coupler::detail
