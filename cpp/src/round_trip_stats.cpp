#include <coupler/round_trip_stats.hpp>

#include <algorithm>
#include <iomanip>
#include <numeric>
#include <ostream>

namespace coupler {

RoundTripStats::Duration RoundTripStats::send_to_reply() const noexcept {
  return Duration(std::accumulate(round_trips_.begin(), round_trips_.end(), 0.0));
}

double RoundTripStats::percentile(double fraction) const {
  if (round_trips_.empty()) return 0.0;
  std::vector<double> sorted = round_trips_;
  const auto rank = static_cast<std::size_t>(fraction * static_cast<double>(sorted.size() - 1) + 0.5);
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(rank), sorted.end());
  return sorted[rank];
}

void RoundTripStats::print(std::ostream& out, Duration total, bool polling) const {
  const auto flags = out.flags();
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
  out << "round trip p99:          " << percentile(0.99) * 1e6 << " us\n";
  out.flags(flags);
}

}  // namespace coupler
