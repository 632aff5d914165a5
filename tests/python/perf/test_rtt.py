"""perf.rtt on a tiny run: every row and floor measured, the JSON and the table well-formed."""

import sys
from dataclasses import replace

import pytest

from perf.common import plots
import perf.rtt as rtt
from perf.common import targets
from perf.common.errors import BenchmarkError
from perf.common.endpoints import TRANSPORT_CHOICES
from perf.rtt.render import render

COUNT = 20
# The mobile scene has no arm, so the demo clients skip the pick approach and a row takes a moment;
# quick's covering subset still runs both clients, both transports, both receive modes and Click's server.
SETTINGS = rtt.Settings(count=COUNT, rounds=2, scenes=("mobile",), peers=("pclick",), quick=True)


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    return rtt.measure(SETTINGS, tmp_path_factory.mktemp("rtt"))


@pytest.fixture(scope="module")
def result(measured):
    return rtt.to_result(SETTINGS, measured, {"pclick": "test"})


def test_the_full_matrix_is_every_combination():
    full = replace(SETTINGS, scenes=("static", "arm"), quick=False).row_specs()
    # Two scenes x clients x (ipc, tcp, tcp-curve) x receive modes, and Click's server without CURVE.
    assert len(full) == 2 * 2 * 3 * 2 + 2 * 2 * 2
    assert len(set(full)) == len(full)


def test_quick_measures_every_target_row_and_every_client_transport_and_receive_mode():
    full = replace(SETTINGS, scenes=("static", "arm"), quick=False).row_specs()
    quick = replace(SETTINGS, scenes=("static", "arm")).row_specs()
    assert len(set(quick)) == len(quick) and set(quick) <= set(full)
    judged = {spec for spec in full if targets.judged_on(spec.peer, spec.scene, spec.client, spec.transport,
                                                         spec.receive)}
    assert judged and judged <= set(quick)
    combinations = {(c, t, r) for c in rtt.CLIENTS for t in TRANSPORT_CHOICES for r in rtt.RECEIVE_MODES}
    assert {(spec.client, spec.transport, spec.receive) for spec in quick} == combinations
    assert len(quick) < len(full)


def test_every_row_has_its_figures(result):
    assert {"benchmark", "measured_at", "duration_s", "host", "settings", "rows", "floors"} <= result.keys()
    assert [(r["peer"], r["client"], r["transport"], r["receive"]) for r in result["rows"]] == [
        (s.peer, s.client, s.transport, s.receive) for s in SETTINGS.row_specs()
    ]
    for row in result["rows"]:
        latency = row["latency_us"]
        assert latency["count"] == COUNT
        assert 0 < latency["p50"] <= latency["p90"] <= latency["p99"] <= latency["p99_9"] <= latency["max"]
        assert row["round_trips_per_second"] > 0
        assert row["request_bytes"] > 0 and row["reply_bytes"] > 0
        assert row["server_idle_cpu_percent"] >= 0
        if row["peer"] == "coupler":
            assert row["server_cpu_us_per_round_trip"] >= 0
            assert row["server_round_trips"] == COUNT  # no pick approach on this scene
        else:
            assert row["server_cpu_us_per_round_trip"] is None


def test_each_row_is_set_against_its_own_floor_measured_right_after_it(result):
    assert len(result["floors"]) == len(result["rows"])
    for row, floor in zip(result["rows"], result["floors"]):
        key = (row["client"], "tcp" if row["transport"] == "tcp-curve" else row["transport"],
               row["request_bytes"], row["reply_bytes"])
        assert (floor["language"], floor["transport"], floor["request_bytes"], floor["reply_bytes"]) == key
        assert row["floor"] == dict(zip(("language", "transport", "request_bytes", "reply_bytes"), key))
        assert row["vs_floor"]["p50"] == pytest.approx(row["latency_us"]["p50"] / floor["latency_us"]["p50"])
        assert row["vs_floor"]["p99"] == pytest.approx(row["latency_us"]["p99"] / floor["latency_us"]["p99"])


def test_the_table_has_a_row_per_combination_and_per_floor(result):
    lines = render(result).splitlines()
    cells = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines if line.startswith("| ")]
    table_rows = [row for row in cells if row[1].startswith(("coupler", "pclick"))]
    assert len(table_rows) == len(result["rows"])
    for index, (cells_of_row, row) in enumerate(zip(table_rows, result["rows"]), 1):
        assert cells_of_row[0] == str(index)
        assert cells_of_row[3:6] == [row["client"], row["transport"], row["receive"]]
        assert cells_of_row[-2] == f"{row['vs_floor']['p50']:,.2f}"
    floor_rows = [row for row in cells if row[1].startswith(("C++", "Python"))]
    assert [row[0] for row in floor_rows] == [str(i) for i in range(1, len(result["floors"]) + 1)]


def test_the_plot_is_written(measured, tmp_path):
    path = plots.rtt_plot(measured.rows, measured.floors, tmp_path / "rtt.png")
    assert path.read_bytes().startswith(b"\x89PNG")


def test_a_missing_matplotlib_is_an_error_that_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(BenchmarkError, match="matplotlib"):
        plots.require_matplotlib()


def test_a_server_that_dies_fails_the_run(tmp_path, caplog):
    argv = ["--scenes", "no_such_scene", "--clients", "cpp", "--transports", "ipc", "--receive-modes", "blocking",
            "--count", "5", "--out", str(tmp_path), "--no-plot"]
    assert rtt.main(argv) == 1
    assert "no scene 'no_such_scene'" in caplog.text
    assert not (tmp_path / "rtt.json").exists()
