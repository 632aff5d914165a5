"""perf.rtt's tcp-curve transport: CURVE rows set against the plain TCP floor."""

from perf import rtt
from perf.endpoints import CURVE_TRANSPORT


def test_tcp_curve_rows_are_measured_and_set_against_the_plain_tcp_floor(tmp_path):
    settings = rtt.Settings(count=20, scenes=("mobile",), transports=(CURVE_TRANSPORT,), clients=("cpp", "python"),
                            receive_modes=("blocking",))
    measured = rtt.measure(settings, tmp_path)
    assert [row.spec.transport for row in measured.rows] == [CURVE_TRANSPORT] * 2
    assert {spec.transport for spec in measured.floors} == {"tcp"}
    assert all(row.latency.count == 20 for row in measured.rows)


def test_clicks_server_gets_no_tcp_curve_rows():
    for quick in (False, True):
        settings = rtt.Settings(transports=("tcp", CURVE_TRANSPORT), peers=("pclick",), quick=quick)
        specs = settings.row_specs()
        assert any(spec.transport == CURVE_TRANSPORT for spec in specs)
        assert not any(spec.peer == "pclick" and spec.transport == CURVE_TRANSPORT for spec in specs)
