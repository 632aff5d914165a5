"""perf.rtt's rounds: how a row's and a floor's round trips are split into rounds and pooled again."""

import numpy as np
import pytest

import perf.rtt as rtt
from perf.common.errors import BenchmarkError
from perf.common.latency import Latency
from perf.rtt.measure import Floor, FloorSpec, Row, RowSpec
from perf.rtt.render import render
from perf.rtt.rounds import pool_floors, pool_rows, round_counts

SPEC = RowSpec("coupler", "static", "cpp", "ipc", "blocking")


def _row(samples, cpu_us=10.0, controls=None, idle=1.0, rate=1000.0, sizes=(40, 60), spec=SPEC) -> Row:
    samples = np.asarray(samples, dtype=float)
    return Row(spec=spec, latency=Latency.of(samples), round_trips_per_second=rate, request_bytes=sizes[0],
               reply_bytes=sizes[1], server_cpu_us_per_round_trip=cpu_us,
               server_round_trips=samples.size if controls is None else controls,
               server_idle_cpu_percent=idle, samples=samples)


def _floor(samples, rate=1000.0, transport="ipc") -> Floor:
    samples = np.asarray(samples, dtype=float)
    return Floor(FloorSpec("cpp", transport, 40, 60), Latency.of(samples), rate, samples)


def test_round_counts_share_the_count_out_with_the_remainder_first():
    assert round_counts(300, 2) == [150, 150]
    assert round_counts(11, 3) == [4, 4, 3]
    assert round_counts(5, 1) == [5]


def test_round_counts_refuse_more_rounds_than_round_trips():
    with pytest.raises(ValueError, match="3 round trips into 4 rounds"):
        round_counts(3, 4)


def test_a_pooled_row_has_the_latency_of_every_rounds_samples():
    # Alone, one round's median is 20 and the other's 60: pooled, it is 40.
    pooled = pool_rows([_row([10.0, 20.0, 30.0]), _row([40.0, 50.0, 60.0, 70.0])])
    assert pooled.latency == Latency.of(np.array([10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0]))
    assert pooled.latency.p50 == 40.0 and pooled.latency.count == 7


def test_a_pooled_rows_server_cpu_is_the_total_over_all_controls_answered():
    # 100 Controls at 10 µs and 300 at 30 µs: 10,000 µs over 400 Controls, not the mean of 10 and 30.
    pooled = pool_rows([_row([1.0], cpu_us=10.0, controls=100), _row([1.0], cpu_us=30.0, controls=300)])
    assert pooled.server_round_trips == 400
    assert pooled.server_cpu_us_per_round_trip == pytest.approx(25.0)


def test_a_pooled_rows_idle_cpu_is_the_highest_rounds():
    pooled = pool_rows([_row([1.0], idle=0.5), _row([1.0], idle=97.0), _row([1.0], idle=2.0)])
    assert pooled.server_idle_cpu_percent == 97.0


def test_a_pooled_rate_is_all_round_trips_over_all_their_time():
    # 100 round trips at 1000/s (0.1 s) and 100 at 250/s (0.4 s): 200 in 0.5 s.
    rounds = [_row(np.ones(100), rate=1000.0), _row(np.ones(100), rate=250.0)]
    assert pool_rows(rounds).round_trips_per_second == pytest.approx(400.0)
    floors = [_floor(np.ones(100), rate=1000.0), _floor(np.ones(100), rate=250.0)]
    assert pool_floors(floors).round_trips_per_second == pytest.approx(400.0)


def test_a_pooled_floor_has_the_latency_of_every_rounds_samples():
    pooled = pool_floors([_floor([5.0, 5.0]), _floor([50.0, 50.0, 50.0])])
    assert pooled.latency == Latency.of(np.array([5.0, 5.0, 50.0, 50.0, 50.0]))


def test_a_server_without_cpu_figures_keeps_none_when_pooled():
    pooled = pool_rows([_row([1.0], cpu_us=None, controls=None), _row([1.0], cpu_us=None, controls=None)])
    assert pooled.server_cpu_us_per_round_trip is None


def test_rounds_with_different_frame_sizes_report_the_first_rounds_and_say_so(caplog):
    pooled = pool_rows([_row([1.0], sizes=(44, 215)), _row([1.0], sizes=(35, 215))])
    assert (pooled.request_bytes, pooled.reply_bytes) == (44, 215)
    assert "frame sizes traced differ between rounds, 35/215, 44/215" in caplog.text


def test_floor_rounds_of_different_transports_are_an_error():
    with pytest.raises(BenchmarkError, match="floor rounds of different kinds"):
        pool_floors([_floor([1.0], transport="ipc"), _floor([1.0], transport="tcp")])


def test_rounds_default_to_five_and_to_two_with_quick():
    assert rtt.parse_args([]).rounds == rtt.DEFAULT_ROUNDS == 5
    assert rtt.parse_args(["--quick"]).rounds == rtt.QUICK_ROUNDS == 2
    assert rtt.parse_args(["--quick", "--rounds", "3"]).rounds == 3


def test_more_rounds_than_round_trips_are_refused(capsys):
    with pytest.raises(SystemExit):
        rtt.parse_args(["--count", "3", "--rounds", "4"])
    assert "--rounds must be from 1 to --count (3), got 4" in capsys.readouterr().err


def _result(settings: dict) -> dict:
    return {"measured_at": "now", "host": {"cpu": "cpu", "logical_cpus": 2}, "settings": {"count": 10, **settings},
            "rows": [], "floors": []}


def test_the_notes_say_row_and_floor_took_turns_in_rounds():
    notes = render(_result({"rounds": 5}))
    assert "10 timed round trips a row in 5 rounds" in notes
    assert "measured in 5 rounds taking turns with the row's" in notes


def test_the_notes_of_a_result_without_rounds_say_the_floor_ran_after_the_row():
    notes = render(_result({}))
    assert "measured right after the row" in notes and "rounds" not in notes
