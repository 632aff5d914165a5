"""perf.stress: its verdicts on a run's figures, the reader windows' ratios and its flags."""

from __future__ import annotations

import copy

import pytest

import perf.stress as stress
from perf.stress.phases import DrivingController, ReaderWindows
from perf.stress.storm import host_port

WAITS = {"answered": 100, "timeouts": 0, "wrong_answers": 0, "longest": 0.05}
FIGURES = {
    "solo_steps_per_s": 2000.0,
    "controller": {"round_trips": 10_000, "lost": 0, "duplicated": 0, "irregular": 0},
    "readers": {"steps_per_s": 1500.0, "quiet_steps_per_s": 2000.0, "ratios": [0.7, 0.75, 0.8], "ratio": 0.75,
                "answered": 5000, "timeouts": 0, "wrong_answers": 0, "longest": 0.1},
    "pathological": {"sent": 30, "busy": 30, "steps_per_s": 50.0},
    "storm": {"steps_per_s": 1900.0},
    "long_control": {"steps": 100_000, "time_step": 0.002, "simulated_advance": 200.0, "readers": dict(WAITS),
                     "newcomers": dict(WAITS)},
    "stop_seconds": 0.1,
    "stopped_with_session_ended": True,
    "exit_seconds": 0.3,
    "log_bytes": 2000,
    "rss_before_kib": 65 * 1024,
    "rss_after_kib": 67 * 1024,
    "recorder": {"steps": 1000, "file_limit": 400_000, "writer_death_said_s": 0.1, "answered": 1000,
                 "server_status": 1, "missing": 1503, "published": 3009, "limited_status": 1,
                 "limited_summary": 597, "limited_in_file": 597},
}


def failed(figures: dict) -> list[str]:
    return [check.name for check in stress.checks(figures, stress.Settings()) if not check.passed]


def test_a_run_within_every_limit_passes_every_check():
    assert failed(FIGURES) == []


@pytest.mark.parametrize("change, check", [
    (lambda f: f["controller"].update(lost=1), "no step lost or duplicated"),
    (lambda f: f["readers"].update(ratio=0.4), "step rate under 30 readers"),
    (lambda f: f["readers"].update(timeouts=1), "30 readers answered"),
    (lambda f: f["pathological"].update(busy=29), "pathological Controls refused busy"),
    (lambda f: f["long_control"]["newcomers"].update(longest=0.6), "newcomers during a 100,000-step Control"),
    (lambda f: f["long_control"].update(simulated_advance=199.998), "the 100,000-step Control took every step"),
    (lambda f: f.update(stop_seconds=1.2), "serving ends after SIGTERM during a long Control"),
    (lambda f: f.update(stopped_with_session_ended=False), "serving ends after SIGTERM during a long Control"),
    (lambda f: f.update(log_bytes=1_000_000), "server log for the whole run"),
    (lambda f: f.update(rss_after_kib=76 * 1024), "resident memory after the storms"),
    (lambda f: f["recorder"].update(answered=999), "steps answered with the recording's writer killed midway"),
    (lambda f: f["recorder"].update(writer_death_said_s=1.5), "a killed writer is said in the server's log"),
    (lambda f: f["recorder"].update(server_status=0), "the server's summary says what the recording lacks, exit 1"),
    (lambda f: f["recorder"].update(missing=1000), "the server's summary says what the recording lacks, exit 1"),
    (lambda f: f["recorder"].update(limited_summary=600), "after a full disk the recorder counts what its file holds"),
])
def test_a_figure_beyond_its_limit_fails_its_check_alone(change, check):
    figures = copy.deepcopy(FIGURES)
    change(figures)
    assert failed(figures) == [check]


@pytest.mark.parametrize("change, broken", [
    (lambda f: f["controller"].update(duplicated=1), ["no step lost or duplicated"]),
    (lambda f: f["pathological"].update(busy=29), ["pathological Controls refused busy"]),
    (lambda f: f["long_control"].update(simulated_advance=199.998), ["the 100,000-step Control took every step"]),
    (lambda f: f.update(log_bytes=1_000_000), ["server log for the whole run"]),
    (lambda f: f["recorder"].update(limited_summary=600), ["after a full disk the recorder counts what its file holds"]),
    (lambda f: f["recorder"].update(writer_death_said_s=1.5), []),
    (lambda f: f["readers"].update(ratio=0.4), []),
    (lambda f: f.update(stop_seconds=1.2), []),
    (lambda f: f.update(rss_after_kib=76 * 1024), []),
])
def test_only_a_broken_guarantee_fails_the_run_a_missed_target_is_reported(change, broken):
    figures = copy.deepcopy(FIGURES)
    change(figures)
    assert stress.broken(stress.checks(figures, stress.Settings())) == broken


def test_each_reader_window_is_set_against_the_quiet_window_after_it():
    windows = ReaderWindows(reading_rates=[900.0, 1000.0], quiet_rates=[1000.0, 2000.0])
    assert windows.ratios == [0.9, 0.5]


def test_the_readers_row_shows_the_controllers_median_round_trip_with_and_without_them():
    figures = copy.deepcopy(FIGURES)
    figures["readers"].update(median_round_trip=0.000431, quiet_median_round_trip=0.000212)
    row = next(c for c in stress.checks(figures, stress.Settings()) if c.name == "step rate under 30 readers")
    assert row.measured.endswith("; round trip p50 431 us, 212 us without them")


def test_the_controllers_median_round_trip_is_the_median_of_its_lines_medians():
    controller = DrivingController.__new__(DrivingController)  # its lines alone, without a process
    controller.lines = [(1.0, {"median_round_trip": 0.003}), (2.0, {"median_round_trip": 0.001}),
                        (3.0, {"median_round_trip": None}), (4.0, {"median_round_trip": 0.002}),
                        (9.0, {"median_round_trip": 0.5})]
    assert controller.median_round_trip(0.5, 5.0) == 0.002
    assert controller.median_round_trip(5.0, 8.0) is None


def test_a_storm_needs_a_tcp_address():
    assert host_port("tcp://127.0.0.1:5555") == ("127.0.0.1", 5555)
    with pytest.raises(ValueError, match="tcp://host:port"):
        host_port("ipc:///tmp/s")


def test_quick_takes_the_short_settings_unless_a_flag_says_otherwise():
    settings = stress.settings_of(stress.parse_args(["--quick", "--connections", "99"]))
    assert settings.quick and settings.connections == 99
    assert settings.garbage_connections == stress.QUICK["garbage_connections"]


WORLDS_FIGURES = {"worlds": 16, "steps": 5000, "time_step": 0.002, "seconds": 1.6, "times": [10.0] * 16,
                  "readers": dict(WAITS), "newcomers": dict(WAITS), "stop_seconds": 0.02,
                  "stopped_with_session_ended": True}


@pytest.mark.parametrize("change, broken_check, guarantee", [
    ({"times": [10.0] * 15 + [9.998]}, "every one of 16 worlds took the 5,000 steps", True),
    ({"readers": {**WAITS, "timeouts": 1}}, "readers during a 5,000-step Control for 16 worlds", False),
    ({"newcomers": {**WAITS, "longest": 0.7}}, "newcomers during a 5,000-step Control for 16 worlds", False),
    ({"stop_seconds": 0.6}, "SIGTERM during a Control for 16 worlds", False),
])
def test_the_batched_worlds_phase_fails_the_check_its_figure_breaks(change, broken_check, guarantee):
    figures = {**copy.deepcopy(FIGURES), "worlds": {**WORLDS_FIGURES, **change}}
    verdicts = stress.checks(figures, stress.Settings())
    assert [check.name for check in verdicts if not check.passed] == [
        check.name for check in verdicts if check.name.startswith(broken_check)]
    assert any(check.name.startswith(broken_check) for check in verdicts)
    assert bool(stress.broken(verdicts)) == guarantee
    assert not [c.name for c in stress.checks({**FIGURES, "worlds": WORLDS_FIGURES}, stress.Settings()) if not c.passed]


def test_quick_takes_the_short_batched_worlds_control():
    assert stress.settings_of(stress.parse_args(["--quick"])).worlds_steps == stress.QUICK["worlds_steps"]
    assert stress.settings_of(stress.parse_args(["--quick", "--worlds-steps", "7"])).worlds_steps == 7


PUBLISHER_FIGURES = {
    "controller": {"round_trips": 10_000, "lost": 0, "duplicated": 0, "irregular": 0},
    "live": {"received": 30_000, "lost": 0, "scenes": 1},
    "newcomer_seconds": 0.01,
    "rss_before_kib": 65 * 1024,
    "rss_after_kib": 66 * 1024,
}


def publisher_failed(figures: dict) -> list[tuple[str, bool]]:
    from perf.stress import publisher
    return [(check["name"], check["guarantee"]) for check in publisher.checks(figures) if not check["passed"]]


@pytest.mark.parametrize("change, check, guarantee", [
    (lambda f: f["live"].update(scenes=2), "publisher phases: the live subscriber lost nothing and got the scene once",
     True),
    (lambda f: f["live"].update(lost=1), "publisher phases: the live subscriber lost nothing and got the scene once",
     True),
    (lambda f: f["controller"].update(lost=1), "publisher phases: no step lost or duplicated", True),
    (lambda f: f.update(newcomer_seconds=None), "publisher phases: a newcomer gets the scene", False),
    (lambda f: f.update(rss_after_kib=76 * 1024), "publisher phases: resident memory after them", False),
])
def test_a_publisher_phase_figure_beyond_its_limit_fails_its_check_alone(change, check, guarantee):
    assert publisher_failed(PUBLISHER_FIGURES) == []
    figures = copy.deepcopy(PUBLISHER_FIGURES)
    change(figures)
    assert publisher_failed(figures) == [(check, guarantee)]
