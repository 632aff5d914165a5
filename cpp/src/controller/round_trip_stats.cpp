#include <coupler/controller/round_trip_stats.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace coupler {

namespace {

// Bin i counts round trips in [kLowest * kRatio^i, kLowest * kRatio^(i + 1)); the first and last
// bins also take anything below or above the range.
constexpr double kLowest = 1e-7;  // s
constexpr double kHighest = 1e3;  // s
constexpr double kRatio = 1.01;

std::size_t bin_count() { return static_cast<std::size_t>(std::ceil(std::log(kHighest / kLowest) / std::log(kRatio))); }

std::size_t bin_of(double seconds, std::size_t bins) {
  if (!(seconds > kLowest)) return 0;
  const auto index = static_cast<std::size_t>(std::log(seconds / kLowest) / std::log(kRatio));
  return std::min(index, bins - 1);
}

}  // namespace

RoundTripStats::RoundTripStats() : bins_(bin_count(), 0) {}

void RoundTripStats::add_round_trip(Duration send_to_reply) {
  const double seconds = send_to_reply.count();
  ++bins_[bin_of(seconds, bins_.size())];
  min_ = count_ == 0 ? seconds : std::min(min_, seconds);
  max_ = count_ == 0 ? seconds : std::max(max_, seconds);
  ++count_;
  send_to_reply_ += send_to_reply;
}

void RoundTripStats::clear() {
  std::fill(bins_.begin(), bins_.end(), 0);
  count_ = 0;
  min_ = max_ = 0.0;
  send_to_reply_ = blocked_ = idle_ = Duration{0};
}

double RoundTripStats::percentile(double fraction) const {
  if (count_ == 0) return 0.0;
  const auto rank = static_cast<std::uint64_t>(std::llround(fraction * static_cast<double>(count_ - 1)));
  // The extremes are known exactly.
  if (rank == 0) return min_;
  if (rank >= count_ - 1) return max_;
  std::uint64_t seen = 0;
  std::size_t index = 0;
  for (; index < bins_.size(); ++index) {
    seen += bins_[index];
    if (seen > rank) break;
  }
  // The bin's geometric middle, held within the smallest and largest round trip seen.
  const double middle = kLowest * std::pow(kRatio, static_cast<double>(index) + 0.5);
  return std::clamp(middle, min_, max_);
}

std::string RoundTripStats::report(Duration total, bool polling) const {
  std::ostringstream out;
  out << std::fixed << std::setprecision(6);
  out << "round trips:             " << count() << '\n';
  out << "receive mode:            " << (polling ? "non-blocking polling" : "blocking") << '\n';
  out << "blocked in receive:      " << blocked_.count() << " s\n";
  if (polling) out << "waiting between polls:   " << idle_.count() << " s\n";
  out << "send to reply (sum):     " << send_to_reply().count() << " s\n";
  out << "total:                   " << total.count() << " s\n";
  out << std::setprecision(1);
  out << "round trips per second:  " << (total.count() > 0 ? static_cast<double>(count()) / total.count() : 0.0)
      << '\n';
  out << "round trip p50:          " << percentile(0.50) * 1e6 << " us\n";
  out << "round trip p99:          " << percentile(0.99) * 1e6 << " us";
  return out.str();
}

}  // namespace coupler
