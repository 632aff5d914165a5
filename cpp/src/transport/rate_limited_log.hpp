#pragma once
// Log lines that peers trigger, at a bounded rate.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace coupler::detail {

// A peer can send as many bad frames as it likes, and each would write a
// line: at most `burst` lines are written per `interval`, the rest only
// counted, and the first line written after them says how many were left
// out (as coupler.serve.rate_limited_log does on the Python side).
class RateLimitedLog {
 public:
  using Clock = std::chrono::steady_clock;

  RateLimitedLog(std::function<void(const std::string&)> write, std::size_t burst = 10,
                 std::chrono::seconds interval = std::chrono::seconds(60));

  void operator()(const std::string& line, Clock::time_point now = Clock::now());

 private:
  std::function<void(const std::string&)> write_;
  std::size_t burst_;
  std::chrono::seconds interval_;
  Clock::time_point window_start_{};
  bool started_ = false;
  std::size_t written_ = 0;
  std::uint64_t left_out_ = 0;
};

}  // namespace coupler::detail
