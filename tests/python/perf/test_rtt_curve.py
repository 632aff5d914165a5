"""perf.rtt's tcp-curve transport: CURVE rows set against the plain TCP floor."""

import perf.rtt as rtt
from perf.common.endpoints import CURVE_TRANSPORT
from perf.rtt.render import curve_table


def test_tcp_curve_rows_are_measured_and_set_against_the_plain_tcp_floor(tmp_path):
    settings = rtt.Settings(count=20, repetitions=1, warm_up=0, scenes=("mobile",), transports=(CURVE_TRANSPORT,),
                            clients=("cpp", "python"), receive_modes=("blocking",))
    measured = rtt.measure(settings, tmp_path)
    assert [row.spec.transport for row in measured.rows] == [CURVE_TRANSPORT] * 2
    assert {floor.spec.transport for floor in measured.floors} == {"tcp"}
    assert all(row.latency.count == 20 for row in measured.rows)


def test_only_coupler_gets_tcp_curve_rows():
    for quick in (False, True):
        settings = rtt.Settings(transports=("tcp", CURVE_TRANSPORT), peers=("pclick",), quick=quick)
        specs = settings.row_specs()
        assert any(spec.transport == CURVE_TRANSPORT for spec in specs)
        assert {spec.peer for spec in specs if spec.transport == CURVE_TRANSPORT} == {"coupler"}


def _row(transport: str, p50: float | list[float], client: str = "cpp", cpu: float = 30.0) -> dict:
    """A row measured in slices; all alike unless `p50` lists each slice's."""
    p50s = p50 if isinstance(p50, list) else [p50] * 3
    return {"peer": "coupler", "scene": "static", "client": client, "transport": transport, "receive": "blocking",
            "p50_us": {"median": sorted(p50s)[(len(p50s) - 1) // 2], "low": min(p50s), "high": max(p50s)},
            "slices": {"p50_us": p50s, "server_cpu_us": [cpu] * len(p50s), "client_cpu_us": [cpu / 2] * len(p50s)}}


def test_the_curve_table_sets_each_tcp_curve_row_beside_its_plain_tcp_row():
    result = {"rows": [_row("tcp", 50.0), _row("tcp-curve", 60.0, cpu=40.0),
                       _row("tcp-curve", 70.0, client="python")]}
    [line] = [line for line in curve_table(result).splitlines() if line.startswith("| static")]
    cells = [cell.strip() for cell in line.strip("|").split("|")]
    assert cells == ["static", "cpp", "blocking", "50.0", "60.0", "10.0", "10.0", "5.0"]  # python has no tcp row


def test_what_curve_adds_is_taken_slice_by_slice():
    # Load doubled in the third slice on both rows alike: each slice's cost is 10 µs.
    result = {"rows": [_row("tcp", [50.0, 52.0, 100.0]), _row("tcp-curve", [60.0, 62.0, 110.0])]}
    [line] = [line for line in curve_table(result).splitlines() if line.startswith("| static")]
    assert [cell.strip() for cell in line.strip("|").split("|")][5] == "10.0"


def test_a_curve_cost_below_zero_beyond_its_spread_is_noisy():
    result = {"rows": [_row("tcp", [60.0, 61.0, 62.0]), _row("tcp-curve", [50.0, 51.0, 51.5])]}
    [line] = [line for line in curve_table(result).splitlines() if line.startswith("| static")]
    assert [cell.strip() for cell in line.strip("|").split("|")][5] == "not measured: noisy"


def test_a_run_without_both_transports_has_no_curve_table():
    assert curve_table({"rows": [_row("tcp", 50.0)]}) is None
