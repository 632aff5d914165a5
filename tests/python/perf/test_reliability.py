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
    def spread(value):
        return {"median": value, "low": value, "high": value}
    return {"step": name, "transport": "ipc", "p50_us": spread(p50), "client_cpu_us": spread(client),
            "server_cpu_us": spread(server)}


def test_the_table_gives_each_features_cost_as_the_difference_to_the_step_before():
    result = {"measured_at": "now", "settings": {"count": 10, "repetitions": 3},
              "steps": [_step("plain", 50.0, 20.0, 20.0), _step("+ envelope", 53.5, 20.5, 24.0)]}
    [line] = [line for line in reliability.render(result).splitlines() if line.startswith("| + envelope")]
    cells = [cell.strip() for cell in line.strip("|").split("|")]
    assert cells == ["+ envelope", "ipc", "53.5", "3.5", "20.5", "0.5", "24.0", "4.0"]  # one figure: no spread
