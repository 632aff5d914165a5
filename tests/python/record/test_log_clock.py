"""The log time of a recording's messages: the wall clock, or the simulated time from the first message on."""

from coupler.record.log_clock import LogClock

NO_TIME = -1
S = 1_000_000_000  # ns


def test_on_wall_time_the_log_time_is_when_the_message_arrived():
    clock = LogClock("wall")
    assert [clock.at(wall, simulated) for wall, simulated in [(5 * S, NO_TIME), (6 * S, 2 * S)]] == [5 * S, 6 * S]


def test_on_simulated_time_the_log_starts_at_the_first_wall_time_and_follows_the_simulation():
    clock = LogClock("sim")
    assert clock.at(100 * S, NO_TIME) == 100 * S  # a handshake before any step
    assert clock.at(100 * S + 7, 1 * S) == 101 * S  # a step's state: simulated time, wherever the wall clock is
    assert clock.at(100 * S + 9, NO_TIME) == 101 * S  # a request takes the last simulated time


def test_on_simulated_time_a_reset_does_not_take_the_log_back():
    clock = LogClock("sim")
    clock.at(0, NO_TIME)
    assert [clock.at(0, simulated) for simulated in (2 * S, 0, 1 * S)] == [2 * S, 2 * S, 3 * S]
