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


def _row(transport: str, p50: float, client: str = "cpp", cpu: float = 30.0) -> dict:
    def spread(value):
        return {"median": value, "low": value, "high": value}
    return {"peer": "coupler", "scene": "static", "client": client, "transport": transport, "receive": "blocking",
            "p50_us": spread(p50), "server_cpu_us_per_round_trip": spread(cpu),
            "client_cpu_us_per_round_trip": spread(cpu / 2)}


def test_the_curve_table_sets_each_tcp_curve_row_beside_its_plain_tcp_row():
    result = {"rows": [_row("tcp", 50.0), _row("tcp-curve", 60.0, cpu=40.0),
                       _row("tcp-curve", 70.0, client="python")]}
    [line] = [line for line in curve_table(result).splitlines() if line.startswith("| static")]
    cells = [cell.strip() for cell in line.strip("|").split("|")]
    assert cells == ["static", "cpp", "blocking", "50.0", "60.0", "10.0", "10.0", "5.0"]  # python has no tcp row


def test_a_run_without_both_transports_has_no_curve_table():
    assert curve_table({"rows": [_row("tcp", 50.0)]}) is None
