"""perf.reliability: every step measured in every repetition, each feature's cost the difference to the step
before it."""

from dataclasses import replace

import pytest

import perf.reliability as reliability


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    measured = reliability.measure(50, 2, tmp_path_factory.mktemp("reliability"))
    return reliability.to_result(50, 2, measured, 1.0)


def test_every_step_has_its_figures_from_every_repetition(result):
    assert [step["step"] for step in result["steps"]] == [step.name for step in reliability.STEPS]
    for step in result["steps"]:
        for key in ("p50_us", "client_cpu_us", "server_cpu_us"):
            assert 0 < step[key]["low"] <= step[key]["median"] <= step[key]["high"]


def test_the_curve_step_differs_from_the_one_before_only_by_curve():
    before, curve = reliability.STEPS[-2:]
    assert curve == replace(before, name=curve.name, curve=True)


def _step(name, p50, client, server):
    """A step whose figures are the same in every repetition unless `p50` lists each repetition's."""
    p50s = p50 if isinstance(p50, list) else [p50] * 3

    def spread(values):
        return {"median": sorted(values)[(len(values) - 1) // 2], "low": min(values), "high": max(values)}
    figures = {"p50_us": p50s, "client_cpu_us": [client] * len(p50s), "server_cpu_us": [server] * len(p50s)}
    return {"step": name, "transport": "ipc", **{key: spread(values) for key, values in figures.items()},
            "repetitions": figures}


def _cells(result, name):
    [line] = [line for line in reliability.render(result).splitlines() if line.startswith(f"| {name}")]
    return [cell.strip() for cell in line.strip("|").split("|")]


RESULT = {"measured_at": "now", "host": {"cpu": "cpu", "logical_cpus": 2}, "settings": {"count": 10,
                                                                                         "repetitions": 3}}


def test_the_table_gives_each_features_cost_as_the_difference_to_the_step_before():
    result = {**RESULT, "steps": [_step("plain", 50.0, 20.0, 20.0), _step("+ envelope", 53.5, 20.5, 24.0)]}
    # Every repetition alike: no spread.
    assert _cells(result, "+ envelope") == ["+ envelope", "ipc", "53.5", "3.5", "20.5", "0.5", "24.0", "4.0"]


def test_a_features_cost_is_taken_repetition_by_repetition():
    # The third repetition ran under twice the load, both steps alike: every repetition's cost is 5 µs.
    result = {**RESULT, "steps": [_step("plain", [50.0, 51.0, 100.0], 20.0, 20.0),
                                  _step("+ envelope", [55.0, 56.0, 105.0], 20.0, 20.0)]}
    assert _cells(result, "+ envelope")[3] == "5.0"


def test_a_cost_below_zero_beyond_its_spread_is_noisy():
    result = {**RESULT, "steps": [_step("plain", [60.0, 61.0, 62.0], 20.0, 20.0),
                                  _step("+ heartbeats", [50.0, 50.5, 51.0], 20.0, 20.0)]}
    assert _cells(result, "+ heartbeats")[3] == "not measured: noisy"


def test_a_run_too_short_for_a_spread_leaves_the_costs_out():
    result = {**RESULT, "settings": {"count": 10, "repetitions": 1},
              "steps": [_step("plain", [50.0], 20.0, 20.0), _step("+ envelope", [55.0], 20.0, 20.0)]}
    assert _cells(result, "+ envelope")[3:8:2] == ["–", "–", "–"]
    assert "the costs are left out" in reliability.render(result)
