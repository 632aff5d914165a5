"""perf.common.targets judges each target from one run's figures, and says so when a run did not measure it."""

import pytest

from perf.common import targets


def spread(value, low=None, high=None):
    if value is None:
        return None
    return {"median": value, "low": value if low is None else low, "high": value if high is None else high}


def row(peer="coupler", scene="static", client="cpp", transport="ipc", receive="blocking", p50=100.0,
        floor_index=0, rate=5000.0, server_cpu=30.0, idle=0.1, vs_floor=None, vs_recorded=None):
    """A row; its ratios, unless given, those of its figures to its floor's (and the recorded row's), as
    rtt() works them out: every slice alike."""
    return {"peer": peer, "scene": scene, "client": client, "transport": transport, "receive": receive,
            "p50_us": spread(p50), "floor_index": floor_index, "round_trips_per_second": spread(rate),
            "server_cpu_us_per_round_trip": spread(server_cpu), "server_idle_cpu_percent": idle,
            "vs_floor": vs_floor, "vs_recorded": vs_recorded}


def floor(p50=100.0, server_cpu=20.0):
    return {"p50_us": spread(p50), "server_cpu_us_per_round_trip": spread(server_cpu)}


def _ratios(ours, theirs):
    def of(key):
        a, b = ours[key], theirs[key]
        return None if a is None or b is None else spread(a["median"] / b["median"])
    return {"p50": of("p50_us"), "server_cpu": of("server_cpu_us_per_round_trip")}


def rtt(*rows, floors=(floor(),), step_cost_us=None):
    for entry in rows:
        if entry["vs_floor"] is None:
            entry["vs_floor"] = _ratios(entry, floors[entry["floor_index"]])
        recorded = next((r for r in rows if (r["peer"], r["client"]) == ("recorded", entry["client"])), None)
        if entry["vs_recorded"] is None and entry["peer"] == "coupler" and recorded is not None:
            entry["vs_recorded"] = _ratios(entry, recorded)
    return {"rows": list(rows), "floors": list(floors), "step_cost_us": step_cost_us or {}}


def test_a_floor_ratio_within_its_limit_is_met():
    verdict = targets.floor_ratio(rtt(row(p50=110.0)), "cpp", 1.15)
    assert verdict.met is True
    assert "1.10 ×" in verdict.measured


def test_a_floor_ratio_over_its_limit_is_missed():
    assert targets.floor_ratio(rtt(row(p50=120.0)), "cpp", 1.15).met is False


def test_a_floor_ratio_whose_slices_cross_its_limit_is_noisy():
    verdict = targets.floor_ratio(rtt(row(p50=110.0, vs_floor={"p50": spread(1.10, 1.05, 1.20)})), "cpp", 1.15)
    assert verdict.met is None and verdict.noisy
    assert "not measured: noisy" in targets.render([verdict])


def test_a_row_faster_than_its_floor_beyond_its_spread_is_noisy_not_met():
    verdict = targets.floor_ratio(rtt(row(p50=80.0, vs_floor={"p50": spread(0.80, 0.78, 0.83)})), "cpp", 1.15)
    assert verdict.noisy and verdict.met is None


def test_a_floor_ratio_whose_middle_slices_spread_wide_is_noisy_though_clear_of_its_limit():
    # Every slice over the 1.15 limit, but the middle ones 1.3 to 2.0 apart: a median of different conditions.
    ours = row(p50=160.0, vs_floor={"p50": spread(1.6, 1.3, 2.0)})
    ours["slices"] = {"p50_us": [130.0, 130.0, 160.0, 200.0, 200.0]}
    low = floor()
    low["slices"] = {"p50_us": [100.0] * 5}
    verdict = targets.floor_ratio(rtt(ours, floors=(low,)), "cpp", 1.15)
    assert verdict.noisy and verdict.met is None


def test_a_floor_ratio_is_taken_slice_by_slice_not_from_the_medians():
    # The medians say 1.30; every slice said 1.10 (load moved both sides of each slice together).
    verdict = targets.floor_ratio(rtt(row(p50=130.0, vs_floor={"p50": spread(1.10, 1.08, 1.12)})), "cpp", 1.15)
    assert verdict.met is True and verdict.measured.startswith("1.10 ×")


def test_coupler_against_click_is_noisy_when_their_spreads_allow_either_verdict():
    click = row(peer="pclick", scene="click demo", p50=100.0, server_cpu=None, idle=99.0)
    click["p50_us"] = spread(100.0, 90.0, 110.0)
    ours = row(p50=72.0)
    ours["p50_us"] = spread(72.0, 70.0, 75.0)
    assert targets.versus_click(rtt(ours, click)).noisy


def test_a_floor_ratio_is_judged_on_the_blocking_row_only():
    verdict = targets.floor_ratio(rtt(row(receive="non-blocking", p50=100.0)), "cpp", 1.15)
    assert verdict.met is None
    assert verdict.measured.startswith("not measured")


def test_the_floor_of_a_row_is_the_one_it_names():
    run = rtt(row(p50=110.0, floor_index=1), floors=(floor(p50=50.0), floor(p50=100.0)))
    assert targets.floor_ratio(run, "cpp", 1.15).met is True


def test_coupler_is_set_against_the_recorded_server_with_the_same_client():
    ours, recorded = row(p50=105.0), row(peer="recorded", p50=100.0)
    python_recorded = row(peer="recorded", client="python", p50=200.0)
    assert targets.recorded_ratio(rtt(ours, python_recorded, recorded), "cpp", 1.1).met is True
    assert targets.recorded_ratio(rtt(row(p50=120.0), recorded), "cpp", 1.1).met is False
    assert targets.recorded_ratio(rtt(ours), "cpp", 1.1).met is None


def test_the_servers_cpu_is_set_against_the_recorded_servers():
    recorded = row(peer="recorded", server_cpu=20.0)
    assert targets.recorded_cpu_ratio(rtt(row(server_cpu=30.0), recorded)).met is True
    verdict = targets.recorded_cpu_ratio(rtt(row(server_cpu=31.0), recorded))
    assert verdict.met is False and "1.55 ×" in verdict.measured


def test_the_arm_step_rate_at_the_median_round_trip_is_set_against_the_floor_plus_one_step():
    # 1 / (40 us + 10 us) = 20,000 steps/s; at a p50 of 55.5 us, 18,018 a second: 90 % of it.
    run = rtt(row(scene="arm", p50=55.5), floors=(floor(p50=40.0),), step_cost_us={"arm": 10.0})
    verdict = targets.arm_step_rate(run)
    assert verdict.met is True
    assert verdict.measured.startswith("90%")
    slower = rtt(row(scene="arm", p50=56.0), floors=(floor(p50=40.0),), step_cost_us={"arm": 10.0})
    assert targets.arm_step_rate(slower).met is False


def test_the_arm_step_rate_is_not_the_client_loops_round_trips_per_second():
    # Stalls of other programs slow the loop's wall time, not the median round trip.
    run = rtt(row(scene="arm", p50=50.0, rate=5_000.0), floors=(floor(p50=40.0),), step_cost_us={"arm": 10.0})
    assert targets.arm_step_rate(run).met is True


def _sliced(entry, p50s):
    entry["slices"] = {"p50_us": p50s}
    return entry


def test_the_arm_step_rate_is_taken_slice_by_slice():
    # The floor moved from 40 to 80 us between slices and the row with it: every slice reads 100 %.
    ours = _sliced(row(scene="arm", p50=70.0), [50.0, 90.0, 50.0, 90.0, 90.0])
    low = _sliced(floor(p50=80.0), [40.0, 80.0, 40.0, 80.0, 80.0])
    verdict = targets.arm_step_rate(rtt(ours, floors=(low,), step_cost_us={"arm": 10.0}))
    assert verdict.met is True and verdict.measured.startswith("100% (100%–100%")


def test_the_arm_step_rate_of_a_row_whose_slices_spread_wide_is_noisy():
    ours = _sliced(row(scene="arm", p50=70.0), [50.0, 50.0, 70.0, 100.0, 100.0])
    low = _sliced(floor(p50=40.0), [40.0] * 5)
    verdict = targets.arm_step_rate(rtt(ours, floors=(low,), step_cost_us={"arm": 1.0}))
    assert verdict.noisy and verdict.met is None


def test_the_arm_step_rate_needs_the_step_cost():
    assert targets.arm_step_rate(rtt(row(scene="arm"))).met is None


def test_the_arm_servers_cpu_is_set_against_the_floor_servers_plus_the_step():
    # 20 us of the floor server + 1.3 x 100 us a step = 150 us.
    within = rtt(row(scene="arm", server_cpu=150.0), floors=(floor(server_cpu=20.0),), step_cost_us={"arm": 100.0})
    over = rtt(row(scene="arm", server_cpu=151.0), floors=(floor(server_cpu=20.0),), step_cost_us={"arm": 100.0})
    assert targets.arm_step_cpu(within).met is True
    assert targets.arm_step_cpu(over).met is False


def test_coupler_is_set_against_clicks_server_and_must_stay_idle():
    click = row(peer="pclick", scene="click demo", p50=100.0, server_cpu=None, idle=99.0)
    assert targets.versus_click(rtt(row(p50=75.0), click)).met is True
    assert targets.versus_click(rtt(row(p50=76.0), click)).met is False
    assert targets.versus_click(rtt(row(p50=50.0, idle=1.5), click)).met is False
    assert targets.versus_click(rtt(row(p50=50.0))).met is None


def frequency(seconds, *points):
    return {"settings": {"seconds": seconds}, "points": list(points)}


def point(step_ms, missed, steps, pacing="realtime", client="cpp"):
    return {"step_ms": step_ms, "client": client, "pacing": pacing, "deadlines_missed": missed, "server_steps": steps}


def test_realtime_is_judged_at_every_step_down_to_a_quarter_millisecond():
    run = frequency(10.0, point(1.0, 0, 10_000), point(0.25, 39, 40_000), point(0.1, 5_000, 100_000),
                    point(0.25, 0, 40_000, pacing="unpaced"))
    verdicts = targets.realtime(run)
    assert [verdict.met for verdict in verdicts] == [True, True]  # 39 of 40,000 is under 0.1 %
    missed = targets.realtime(frequency(10.0, point(0.25, 40, 40_000)))
    assert [verdict.met for verdict in missed] == [False]


def test_realtime_from_a_run_shorter_than_ten_seconds_is_not_judged():
    [verdict] = targets.realtime(frequency(1.0, point(2.0, 0, 500)))
    assert verdict.met is None
    assert "shorter than 10 s" in verdict.measured


@pytest.mark.parametrize("peer, scene, client, transport, receive, judged", [
    ("coupler", "static", "python", "ipc", "blocking", True),
    ("coupler", "static", "python", "tcp", "blocking", False),
    ("coupler", "static", "python", "ipc", "non-blocking", False),
    ("recorded", "static", "cpp", "ipc", "blocking", True),
    ("recorded", "static", "python", "ipc", "blocking", False),
    ("coupler", "arm", "cpp", "ipc", "blocking", True),
    ("coupler", "arm", "python", "ipc", "blocking", False),
    ("pclick", "click demo", "cpp", "ipc", "blocking", True),
    ("pclick", "click demo", "python", "ipc", "blocking", False),
])
def test_judged_on_names_exactly_the_rows_the_targets_read(peer, scene, client, transport, receive, judged):
    assert targets.judged_on(peer, scene, client, transport, receive) is judged


def test_the_rendered_table_has_a_line_per_verdict():
    verdicts = targets.evaluate(rtt(row()), frequency(10.0, point(1.0, 0, 10_000)))
    text = targets.render(verdicts)
    assert text.startswith("## Targets")
    assert sum(line.startswith("| ") for line in text.splitlines()) == len(verdicts) + 1  # + header
