"""Where a controller's time goes: send-to-reply intervals, time inside receive
calls, and (when polling) time slept between polls.

The C++ coupler::RoundTripStats, bound: round trips are counted in
logarithmic bins 1 % wide, so the statistics of a controller that runs for
days take the same memory as those of one that runs for a second, and a
percentile is exact to within 1 %. Durations are float seconds.
"""

from coupler._native import RoundTripStats

__all__ = ["RoundTripStats"]
