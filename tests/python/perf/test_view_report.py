"""The benchmark results page holds perf.view's table under its own heading, as it holds perf.record's."""

import json

import perf.report as report

HOST = {"cpu": "cpu", "logical_cpus": 2, "os": "os", "python": "3", "libzmq": "4", "pyzmq": "27", "mujoco": "3"}
VIEW = {"benchmark": "view", "measured_at": "now", "host": HOST, "rounds": 2, "count": 1000, "browser": False,
        "pace": 2000.0, "fps": 60.0, "without_view": [2000.0, 1990.0], "with_view": [1980.0, 1900.0],
        "share": {"median": 0.97, "low": 0.95, "high": 0.99},
        "view": [{"frames": 59, "seconds": 1.0, "frames_per_s": 59.0, "states_received": 990, "states_dropped": 10},
                 {"frames": 57, "seconds": 1.0, "frames_per_s": 57.0, "states_received": 1000, "states_dropped": 0}]}


def test_the_results_page_holds_the_view_s_table_under_its_heading(tmp_path):
    (tmp_path / "view.json").write_text(json.dumps(VIEW))
    page = report.docs_page.render(tmp_path, {}, [], {}, lambda result: "host")
    section = page.split("## What watching a run costs the server (perf.view)\n\n", 1)[1]
    assert section.startswith("2 rounds of 1,000 lockstep steps per side, a Python controller asking for 2,000 "
                              "steps/s, no browser on the page, the view at --fps 60.")
    assert "| with / without, slice by slice | 0.970 | 0.950 | 0.990 | >= 0.95 |" in section
    assert "| view's draw rate (frames/s) | 58.0 | 57.0 | 59.0 | >= 30 |" in section
    assert "# perf.view" not in page
