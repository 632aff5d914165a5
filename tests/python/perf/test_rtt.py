"""perf.rtt on a tiny run: every row and floor measured in every slice, the JSON and the tables
well-formed."""

import sys
from dataclasses import replace

import pytest

from perf.common import plots
import perf.rtt as rtt
from perf.common import targets
from perf.common.errors import BenchmarkError
from perf.rtt.render import render, spread

COUNT = 20
WARM_UP = 5
# quick's rows of the static scene: both clients on ipc, the C++ client on tcp, the recorded server and
# Click's server.
SETTINGS = rtt.Settings(count=COUNT, repetitions=2, warm_up=WARM_UP, scenes=("static",), transports=("ipc", "tcp"),
                        peers=("pclick",), quick=True)


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    return rtt.measure(SETTINGS, tmp_path_factory.mktemp("rtt"))


@pytest.fixture(scope="module")
def result(measured):
    return rtt.to_result(SETTINGS, measured, {"pclick": "test"})


FULL = replace(SETTINGS, scenes=("static", "arm"), transports=("ipc", "tcp", "tcp-curve"), quick=False)


def test_the_full_run_has_every_server_for_every_client_and_transport():
    specs = FULL.row_specs()
    assert len(set(specs)) == len(specs)
    for client in rtt.CLIENTS:
        for transport in ("ipc", "tcp"):
            mine = {(s.peer, s.scene, s.receive) for s in specs if (s.client, s.transport) == (client, transport)}
            assert mine == {("recorded", "static", "blocking"), ("coupler", "static", "blocking"),
                            ("coupler", "static", "non-blocking"), ("coupler", "arm", "blocking"),
                            ("pclick", "click demo", "blocking")}
        curve = {(s.peer, s.scene, s.receive) for s in specs if (s.client, s.transport) == (client, "tcp-curve")}
        assert curve == {("coupler", "static", "blocking")}


def test_rows_sharing_a_floor_sit_next_to_each_other():
    groups = [rtt._floor_group(spec) for spec in FULL.row_specs()]
    assert groups == sorted(groups)
    recorded = next(s for s in FULL.row_specs() if s.peer == "recorded")
    static = rtt.RowSpec("coupler", "static", recorded.client, recorded.transport, "blocking")
    assert rtt._floor_group(recorded) == rtt._floor_group(static)


def test_quick_measures_the_target_rows_both_scenes_and_clients_on_ipc_and_tcp_and_curve_once():
    full = FULL.row_specs()
    quick = replace(FULL, quick=True).row_specs()
    assert set(quick) <= set(full) and len(quick) < len(full)
    judged = {spec for spec in full if targets.judged_on(spec.peer, spec.scene, spec.client, spec.transport,
                                                         spec.receive)}
    assert judged and judged <= set(quick)
    coupler = {(s.scene, s.client, s.transport) for s in quick if s.peer == "coupler"}
    assert {(scene, client, "ipc") for scene in ("static", "arm") for client in rtt.CLIENTS} <= coupler
    assert {s.transport for s in quick if s.transport != "ipc"} == {"tcp", "tcp-curve"}
    assert [(s.peer, s.scene, s.client) for s in quick if s.transport != "ipc"] == [
        ("coupler", "static", "cpp"), ("coupler", "static", "cpp")]
    assert {s.receive for s in quick} == {"blocking"}


def test_every_row_has_its_figures_from_every_repetition(result):
    assert {"benchmark", "measured_at", "duration_s", "host", "settings", "rows", "floors"} <= result.keys()
    assert [(r["peer"], r["client"], r["transport"], r["receive"]) for r in result["rows"]] == [
        (s.peer, s.client, s.transport, s.receive) for s in SETTINGS.row_specs()
    ]
    for row in result["rows"]:
        assert row["repetitions"] == 2
        assert len(row["slices"]["p50_us"]) == 2
        assert row["latency_us"]["count"] == 2 * COUNT  # the warm-up left out
        p50 = row["p50_us"]
        assert 0 < p50["low"] <= p50["median"] <= p50["high"]
        assert row["round_trips_per_second"]["median"] > 0
        assert row["request_bytes"] > 0 and row["reply_bytes"] > 0
        assert row["client_cpu_us_per_round_trip"]["median"] > 0
        if row["peer"] == "pclick":
            assert row["server_cpu_us_per_round_trip"] is None
        else:
            assert row["server_cpu_us_per_round_trip"]["median"] > 0
            # Requests answered a slice, the pick approach's Controls too: the static scene has an arm that
            # does not move.
            assert row["server_round_trips"] >= COUNT + WARM_UP


def test_every_floor_has_its_figures_from_every_repetition(result):
    for floor in result["floors"]:
        assert floor["repetitions"] == 2
        assert floor["latency_us"]["count"] == 2 * COUNT
        assert floor["server_cpu_us_per_round_trip"]["median"] >= 0  # /proc counts in 10 ms ticks
        assert floor["client_cpu_us_per_round_trip"]["median"] > 0


def test_the_recorded_server_answers_with_the_static_scenes_frames(result):
    for recorded in (row for row in result["rows"] if row["peer"] == "recorded"):
        static = next(row for row in result["rows"] if (row["peer"], row["client"], row["transport"]) ==
                      ("coupler", recorded["client"], recorded["transport"]))
        assert (recorded["request_bytes"], recorded["reply_bytes"]) == (static["request_bytes"],
                                                                        static["reply_bytes"])
        assert recorded["floor_index"] == static["floor_index"]


def test_each_row_is_set_against_the_floor_of_its_language_transport_and_frames(result):
    for row in result["rows"]:
        floor = result["floors"][row["floor_index"]]
        assert (floor["language"], floor["transport"], floor["request_bytes"], floor["reply_bytes"]) == (
            row["client"], row["transport"], row["request_bytes"], row["reply_bytes"])
        ratios = sorted(ours / theirs for ours, theirs in zip(row["slices"]["p50_us"], floor["slices"]["p50_us"]))
        assert row["vs_floor"]["p50"] == pytest.approx({"median": ratios[0], "low": ratios[0], "high": ratios[-1]})


def test_coupler_static_rows_are_set_against_the_recorded_server(result):
    for row in result["rows"]:
        if (row["peer"], row["scene"]) != ("coupler", "static"):
            assert row["vs_recorded"] is None
            continue
        recorded = next((r for r in result["rows"] if (r["peer"], r["client"], r["transport"]) ==
                         ("recorded", row["client"], row["transport"])), None)
        if recorded is None:  # quick measures the recorded server with the C++ client on ipc only
            assert row["vs_recorded"] is None
            continue
        ratios = [ours / theirs for ours, theirs in zip(row["slices"]["p50_us"], recorded["slices"]["p50_us"])]
        assert row["vs_recorded"]["p50"]["low"] == pytest.approx(min(ratios))


def test_the_table_has_a_row_per_row_and_per_floor(result):
    lines = render(result).splitlines()
    cells = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines if line.startswith("| ")]
    table_rows = [row for row in cells if row[1].startswith(("coupler", "pclick", "recorded"))]
    assert len(table_rows) == len(result["rows"])
    for index, (cells_of_row, row) in enumerate(zip(table_rows, result["rows"]), 1):
        assert cells_of_row[0] == str(index)
        assert cells_of_row[3:6] == [row["client"], row["transport"], row["receive"]]
        assert cells_of_row[14] == str(row["floor_index"] + 1)
        assert cells_of_row[15] == spread(row["vs_floor"]["p50"], 2)
        assert cells_of_row[-1] == "ok" or cells_of_row[-1].startswith("not measured: noisy (")
    floor_rows = [row for row in cells if row[1].startswith(("C++", "Python"))]
    assert [row[0] for row in floor_rows] == [str(i) for i in range(1, len(result["floors"]) + 1)]


def test_the_plot_is_written(measured, tmp_path):
    floors = [measured.floors[which] for which in measured.floor_of]
    path = plots.rtt_plot(measured.rows, floors, tmp_path / "rtt.png")
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
