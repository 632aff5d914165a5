"""perf.report renders whatever results a directory holds, and refuses an empty one."""

import json

import pytest

import perf.report as report
from perf.common.errors import BenchmarkError

HOST = {"cpu": "cpu", "logical_cpus": 2, "os": "os", "python": "3", "libzmq": "4", "pyzmq": "27", "mujoco": "3"}


def frequency_result():
    point = {"step_ms": 1.0, "client": "cpp", "pacing": "realtime", "target_hz": 1000.0, "control_hz": 990.0,
             "real_time_factor": 0.99, "loop_round_trips": 1000, "loop_seconds": 1.01, "server_steps": 2500,
             "deadlines_missed": 3}
    settings = {"scene": "arm", "transport": "ipc", "receive": "blocking", "seconds": 1.0,
                "unpaced_round_trips": 2000, "server_args": [], "quick": False}
    return {"benchmark": "frequency", "measured_at": "now", "duration_s": 1.0, "host": HOST,
            "settings": settings, "points": [point]}


def test_the_report_holds_each_result_and_links_its_plot(tmp_path):
    (tmp_path / "frequency.json").write_text(json.dumps(frequency_result()))
    (tmp_path / "frequency.png").write_bytes(b"\x89PNG")
    assert report.main(["--results", str(tmp_path)]) == 0
    text = (tmp_path / "REPORT.md").read_text()
    assert "## Targets" in text
    assert "## Control frequency against simulation step size" in text
    assert "| 1 | cpp" in text.replace("       ", " ").replace("  ", " ")
    assert "3 / 2,500" in text
    assert "![frequency](frequency.png)" in text
    assert "Round-trip time" not in text


def test_no_results_is_an_error(tmp_path):
    with pytest.raises(BenchmarkError, match="no results"):
        report.build(tmp_path)
    assert report.main(["--results", str(tmp_path)]) == 1


def test_a_file_of_the_wrong_kind_is_an_error(tmp_path):
    (tmp_path / "rtt.json").write_text(json.dumps(frequency_result()))
    with pytest.raises(BenchmarkError, match="not 'rtt'"):
        report.build(tmp_path)
