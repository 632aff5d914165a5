"""perf.soak: the round-trip check on sequences of simulated times, the memory
verdict, the rendering, and short runs against the demo server."""

import json
import os

import pytest

import perf.report as report
import perf.soak as soak
from perf.soak import render as soak_render
from perf.common.errors import BenchmarkError
from perf.soak.memory import KIB_PER_MIB, Sample, growth, reference_round_trip
from perf.soak.run import LineReader, SoakRun, parse_report
from perf.soak.steps import GAP, IRREGULAR, KEPT_ANOMALIES, REPEAT, StepCheck

STEP = 0.002


def checked(times, start=0.0, step=STEP):
    check = StepCheck(step, start)
    for time in times:
        check.observe(time)
    return check


# ---- the round-trip check


def test_replies_one_step_apart_pass():
    check = checked([k * STEP for k in range(1, 1001)])
    assert check.passed
    assert (check.round_trips, check.lost, check.duplicated, check.irregular) == (1000, 0, 0, 0)
    assert check.anomalies == []


def test_times_accumulated_step_by_step_over_a_long_run_stay_within_the_tolerance():
    # As MuJoCo advances time (t += step), far from zero, where rounding is largest.
    time, times = 2000.0, []
    for _ in range(20_000):
        time += STEP
        times.append(time)
    assert checked(times, start=2000.0).passed


def test_the_first_reply_is_checked_against_the_time_before_the_loop():
    check = checked([2 * STEP], start=0.0)
    assert check.lost == 1
    assert check.anomalies[0].round_trip == 1


def test_a_jump_of_several_steps_counts_each_missing_step_as_lost():
    times = [STEP, 2 * STEP, 6 * STEP, 7 * STEP]
    check = checked(times)
    assert (check.lost, check.duplicated, check.irregular) == (3, 0, 0)
    assert not check.passed
    anomaly = check.anomalies[0]
    assert (anomaly.round_trip, anomaly.previous, anomaly.time, anomaly.kind) == (3, 2 * STEP, 6 * STEP, GAP)


def test_the_same_time_again_counts_as_duplicated():
    check = checked([STEP, 2 * STEP, 2 * STEP, 3 * STEP])
    assert (check.lost, check.duplicated, check.irregular) == (0, 1, 0)
    assert check.anomalies[0].kind == REPEAT
    assert check.anomalies[0].round_trip == 3


def test_a_step_backwards_or_by_a_fraction_of_a_step_is_irregular():
    check = checked([STEP, 2 * STEP, STEP, 2.5 * STEP])
    assert (check.lost, check.duplicated, check.irregular) == (0, 0, 2)
    assert [a.kind for a in check.anomalies] == [IRREGULAR, IRREGULAR]


def test_a_time_off_by_more_than_the_tolerance_is_not_a_step():
    check = checked([STEP * (1 + 1e-4)])
    assert check.irregular == 1


def test_only_the_first_anomalies_are_described_but_all_are_counted():
    check = checked([STEP] * (KEPT_ANOMALIES + 30))
    assert check.duplicated == KEPT_ANOMALIES + 29
    assert len(check.anomalies) == KEPT_ANOMALIES


def test_a_time_step_that_is_not_positive_is_refused():
    with pytest.raises(ValueError, match="time step"):
        StepCheck(0.0, 0.0)


# ---- the memory verdict


def test_growth_is_measured_from_round_trip_100000_in_long_runs_and_from_a_tenth_in_short_ones():
    assert reference_round_trip(1_000_000) == 100_000
    assert reference_round_trip(200_000) == 100_000
    assert reference_round_trip(199_990) == 19_999
    assert reference_round_trip(50_000) == 5_000


def test_growth_under_the_limit_passes():
    verdict = growth([(0, 1000), (100, 1100), (200, 1100 + 5 * KIB_PER_MIB - 1)], 100, 5.0)
    assert verdict.passed
    assert (verdict.start_kib, verdict.reference_kib, verdict.end_kib) == (1000, 1100, 1100 + 5 * KIB_PER_MIB - 1)
    assert verdict.growth_kib == 5 * KIB_PER_MIB - 1


def test_growth_of_the_limit_or_more_fails():
    assert not growth([(0, 1000), (100, 1000), (200, 1000 + 5 * KIB_PER_MIB)], 100, 5.0).passed


def test_start_up_growth_before_the_reference_round_trip_does_not_count():
    verdict = growth([(0, 1000), (50, 90_000), (100, 90_000), (200, 90_500)], 100, 5.0)
    assert verdict.passed
    assert verdict.growth_kib == 500


def test_the_reference_is_the_first_sample_at_or_after_the_reference_round_trip():
    verdict = growth([(0, 1000), (90, 1000), (110, 2000), (200, 2000)], 100, 5.0)
    assert (verdict.reference_round_trip, verdict.reference_kib, verdict.growth_kib) == (110, 2000, 0)


# ---- reading the controller


def test_a_controller_that_reports_nothing_fails_within_the_wait():
    read_end, write_end = os.pipe()
    try:
        with os.fdopen(read_end, "rb", buffering=0) as stream:
            with pytest.raises(BenchmarkError, match="reported nothing"):
                LineReader(stream).next_line(0.05)
    finally:
        os.close(write_end)


def test_progress_lines_are_told_from_other_output():
    assert parse_report('soak {"round_trips": 5}') == {"round_trips": 5}
    assert parse_report("pick approach: 1500 steps") is None
    with pytest.raises(BenchmarkError, match="malformed"):
        parse_report("soak {round_trips")


# ---- the command line


def test_quick_runs_50000_round_trips_and_short_runs_sample_more_often():
    quick = soak.parse_args(["--quick"])
    assert (quick.round_trips, quick.sample_every) == (50_000, 1_000)
    full = soak.parse_args([])
    assert (full.round_trips, full.sample_every) == (1_000_000, 10_000)


# ---- the result and its rendering


def soak_result(server_end_kib=60_000, duplicated=0):
    settings = soak.Settings(round_trips=1000, scene="static", sample_every=100)
    samples = [Sample(n, n / 1000, 60_000 if n < 1000 else server_end_kib, 30_000) for n in range(0, 1001, 100)]
    steps = {"round_trips": 1000, "time_step": 0.001, "start_time": 0.0, "simulated_time": 1.0, "lost": 0,
             "duplicated": duplicated, "irregular": 0, "rss_kib": 30_000,
             "anomalies": [{"round_trip": 7, "previous": 0.006, "time": 0.006, "kind": REPEAT}] * duplicated}
    return soak.to_result(settings, SoakRun(samples, steps, 1.0, ""), 2.0)


def test_a_clean_run_passes_every_check():
    result = soak_result()
    assert result["checks"] == {"server memory": True, "client memory": True, "round trips": True}
    assert result["passed"]
    assert result["round_trips_per_second"] == pytest.approx(1000.0)
    assert result["memory"]["server"]["reference_round_trip"] == 100


def test_memory_growth_over_the_limit_fails_that_process_only():
    result = soak_result(server_end_kib=60_000 + 6 * KIB_PER_MIB)
    assert result["checks"] == {"server memory": False, "client memory": True, "round trips": True}
    assert not result["passed"]
    text = soak_render.render(result)
    assert "| server  |" in text and "+6.000" in text and "FAIL" in text
    assert "Verdict: FAIL (server memory)." in text


def test_a_duplicated_round_trip_fails_the_run_and_is_described():
    result = soak_result(duplicated=1)
    assert result["checks"]["round trips"] is False
    text = soak_render.render(result)
    assert "Verdict: FAIL (round trips)." in text
    assert "- 7: 0.006 s → 0.006 s (repeat)" in text


def test_the_table_shows_the_run_and_both_processes(tmp_path):
    text = soak_render.render(soak_result())
    run_row = next(line for line in text.splitlines() if line.startswith("|") and "1,000 |" in line)
    assert [cell.strip() for cell in run_row.strip("|").split("|")] == ["1,000", "1.0", "1,000", "0", "0", "0", "pass"]
    assert "RSS at round trip 100 MiB" in text
    assert "| client  |             29.3 |" in text
    assert "Verdict: pass." in text


def test_the_plot_is_written(tmp_path):
    path = soak_render.plot(soak_result(), tmp_path / "soak.png")
    assert path.read_bytes().startswith(b"\x89PNG")


def test_the_report_includes_a_soak_result(tmp_path):
    (tmp_path / "soak.json").write_text(json.dumps(soak_result()))
    assert report.main(["--results", str(tmp_path)]) == 0
    assert "## Soak: 1,000 lockstep round trips" in (tmp_path / "REPORT.md").read_text()


# ---- short runs against the demo server


def test_a_short_soak_writes_its_files_and_passes(tmp_path):
    assert soak.main(["--round-trips", "3000", "--scene", "static", "--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "soak.json").read_text())
    assert result["benchmark"] == "soak"
    assert result["steps"]["round_trips"] == 3000
    assert (result["steps"]["lost"], result["steps"]["duplicated"], result["steps"]["irregular"]) == (0, 0, 0)
    assert result["checks"] == {"server memory": True, "client memory": True, "round trips": True}
    assert result["samples"][0]["round_trips"] == 0 and result["samples"][-1]["round_trips"] == 3000
    assert all(sample["server_kib"] > 0 and sample["client_kib"] > 0 for sample in result["samples"])
    assert "Verdict: pass." in (tmp_path / "soak.md").read_text()
    assert (tmp_path / "soak.png").read_bytes().startswith(b"\x89PNG")


def test_a_server_that_does_not_step_once_per_control_fails_the_run(tmp_path, caplog):
    # Free-running, the simulation advances on its own clock: replies skip and repeat steps.
    argv = ["--round-trips", "2000", "--scene", "static", "--server-args", "--mode free --speed max",
            "--out", str(tmp_path), "--no-plot"]
    assert soak.main(argv) == 1
    result = json.loads((tmp_path / "soak.json").read_text())
    assert result["checks"]["round trips"] is False
    assert result["steps"]["lost"] + result["steps"]["duplicated"] + result["steps"]["irregular"] > 0
    assert "failed: round trips" in caplog.text


def test_a_server_that_dies_fails_the_run(tmp_path, caplog):
    assert soak.main(["--round-trips", "100", "--scene", "no_such_scene", "--out", str(tmp_path), "--no-plot"]) == 1
    assert "no scene 'no_such_scene'" in caplog.text
    assert not (tmp_path / "soak.json").exists()
