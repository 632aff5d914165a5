"""perf.common.targets judges each target from one run's figures, and says so when a run did not measure it."""

import pytest

from perf.common import targets


def row(peer="coupler", scene="static", client="cpp", transport="ipc", receive="blocking", p50=100.0,
        floor_p50=100.0, rate=5000.0):
    return {"peer": peer, "scene": scene, "client": client, "transport": transport, "receive": receive,
            "latency_us": {"p50": p50}, "vs_floor": {"p50": p50 / floor_p50}, "round_trips_per_second": rate}


def rtt(*rows, step_cost_us=None):
    return {"rows": list(rows), "step_cost_us": step_cost_us or {}}


def test_a_floor_ratio_within_its_limit_is_met():
    verdict = targets.floor_ratio(rtt(row(p50=120.0, floor_p50=100.0)), "cpp", "ipc", 1.25)
    assert verdict.met is True
    assert "1.200 ×" in verdict.measured


def test_a_floor_ratio_over_its_limit_is_missed():
    assert targets.floor_ratio(rtt(row(p50=130.0, floor_p50=100.0)), "cpp", "ipc", 1.25).met is False


def test_a_floor_ratio_is_judged_on_the_blocking_row_only():
    verdict = targets.floor_ratio(rtt(row(receive="non-blocking", p50=100.0)), "cpp", "ipc", 1.25)
    assert verdict.met is None
    assert verdict.measured.startswith("not measured")


def test_the_arm_step_rate_is_set_against_the_floor_plus_one_step():
    # 1 / (40 us + 10 us) = 20,000 steps/s; 16,000 is 80 % of it.
    run = rtt(row(scene="arm", p50=60.0, floor_p50=40.0, rate=16_000.0), step_cost_us={"arm": 10.0})
    verdict = targets.arm_step_rate(run)
    assert verdict.met is True
    assert "80%" in verdict.measured
    slower = rtt(row(scene="arm", p50=60.0, floor_p50=40.0, rate=15_000.0), step_cost_us={"arm": 10.0})
    assert targets.arm_step_rate(slower).met is False


def test_the_arm_step_rate_needs_the_step_cost():
    assert targets.arm_step_rate(rtt(row(scene="arm"))).met is None


def test_coupler_is_set_against_clicks_server_with_the_same_client_and_transport():
    ours = row(p50=40.0)
    click_tcp = row(peer="pclick", scene="click demo", transport="tcp", p50=60.0)
    click_ipc = row(peer="pclick", scene="click demo", p50=100.0)
    assert targets.versus_click(rtt(ours, click_tcp, click_ipc), "ipc").met is True
    assert targets.versus_click(rtt(ours, click_ipc, click_tcp), "tcp").met is None  # no coupler tcp row


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
    ("coupler", "static", "python", "tcp", "blocking", True),
    ("coupler", "static", "python", "tcp", "non-blocking", False),
    ("coupler", "arm", "cpp", "ipc", "blocking", True),
    ("coupler", "arm", "python", "ipc", "blocking", False),
    ("pclick", "click demo", "cpp", "tcp", "blocking", True),
    ("pclick", "click demo", "python", "tcp", "blocking", False),
])
def test_judged_on_names_exactly_the_rows_the_targets_read(peer, scene, client, transport, receive, judged):
    assert targets.judged_on(peer, scene, client, transport, receive) is judged


def test_the_rendered_table_has_a_line_per_verdict():
    verdicts = targets.evaluate(rtt(row()), frequency(10.0, point(1.0, 0, 10_000)))
    text = targets.render(verdicts)
    assert text.startswith("## Targets")
    assert sum(line.startswith("| ") for line in text.splitlines()) == len(verdicts) + 1  # + header
