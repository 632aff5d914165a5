"""perf.frequency on a tiny run: paced and unpaced points for both controllers, well-formed outputs."""

import pytest

import perf.frequency as frequency
from perf.common import plots
from perf.frequency.render import keeps_up, render

# The mobile scene has no arm, so the controllers skip the pick approach and a point takes a moment.
SETTINGS = frequency.Settings(steps_ms=(10.0,), seconds=0.1, unpaced_round_trips=20, scene="mobile")


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    points, seconds = frequency.measure(SETTINGS, tmp_path_factory.mktemp("frequency"))
    return frequency.to_result(SETTINGS, points, seconds)


def test_every_point_has_its_figures(result):
    assert {"benchmark", "measured_at", "duration_s", "host", "settings", "points"} <= result.keys()
    assert [(p["client"], p["pacing"]) for p in result["points"]] == [
        (client, pacing) for client in frequency.CLIENTS for pacing in frequency.PACINGS
    ]
    for point in result["points"]:
        assert point["target_hz"] == pytest.approx(100.0)
        assert point["control_hz"] > 0
        assert point["real_time_factor"] == pytest.approx(point["control_hz"] * 0.01)
        paced = point["pacing"] == "realtime"
        assert point["loop_round_trips"] == (10 if paced else 20)
        assert point["server_steps"] == point["loop_round_trips"]
        assert (point["deadlines_missed"] is not None) == paced


def test_the_table_has_a_row_per_step_and_client(result):
    rows = [line for line in render(result).splitlines() if line.startswith("|") and "10 |" in line]
    assert [row.split("|")[2].strip() for row in rows] == list(frequency.CLIENTS)


def test_the_plot_is_written(result, tmp_path):
    assert plots.frequency_plot(result, tmp_path / "f.png").read_bytes().startswith(b"\x89PNG")


def test_the_short_run_covers_four_step_sizes_from_five_to_half_a_millisecond():
    args = frequency.parse_args(["--quick"])
    assert len(args.steps) >= 4 and {5.0, 2.0, 1.0, 0.5} <= set(args.steps)


def _paced(control_hz, missed, steps=1000, target_hz=1000.0):
    return {"control_hz": control_hz, "target_hz": target_hz, "deadlines_missed": missed, "server_steps": steps}


def test_a_client_keeps_up_when_it_holds_the_frequency_and_misses_almost_no_deadline():
    assert keeps_up(_paced(995.0, 1))
    assert not keeps_up(_paced(980.0, 0))  # slower than real time
    assert not keeps_up(_paced(1000.0, 2))  # 0.2 % of the steps late


def test_one_late_step_in_a_run_too_short_for_a_tenth_of_a_percent_still_keeps_up():
    assert keeps_up(_paced(200.0, 1, steps=700, target_hz=200.0))
    assert not keeps_up(_paced(200.0, 2, steps=700, target_hz=200.0))
