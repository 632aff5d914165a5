"""perf.rtt.compare: two runs' ratios side by side, agreeing within a tolerance and never below the floor."""

import json

from perf.rtt import compare


def _row(ratio, recorded=None, scene="static"):
    def spread(value):
        return {"median": value, "low": value, "high": value}
    return {"peer": "coupler", "scene": scene, "client": "cpp", "transport": "ipc", "receive": "blocking",
            "vs_floor": {"p50": spread(ratio)}, "vs_recorded": None if recorded is None else {"p50": spread(recorded)}}


def _write(path, *rows):
    path.write_text(json.dumps({"benchmark": "rtt", "rows": list(rows)}))
    return str(path)


def test_ratios_within_the_tolerance_agree(tmp_path, capsys):
    first = _write(tmp_path / "a.json", _row(1.10, recorded=1.05), _row(1.60, scene="arm"))
    second = _write(tmp_path / "b.json", _row(1.15, recorded=1.04), _row(1.55, scene="arm"))
    assert compare.main([first, second]) == 0
    assert capsys.readouterr().out.count("agrees") == 3


def test_a_ratio_further_apart_than_the_tolerance_differs(tmp_path, capsys):
    first, second = _write(tmp_path / "a.json", _row(1.00)), _write(tmp_path / "b.json", _row(1.20))
    assert compare.main([first, second]) == 1
    assert "differs" in capsys.readouterr().out
    assert compare.main([first, second, "--tolerance", "0.25"]) == 0


def test_a_row_below_its_floor_differs_even_when_both_runs_agree(tmp_path):
    first, second = _write(tmp_path / "a.json", _row(0.90)), _write(tmp_path / "b.json", _row(0.91))
    assert compare.main([first, second]) == 1


def test_results_without_a_common_row_are_an_error(tmp_path, capsys):
    first, second = _write(tmp_path / "a.json", _row(1.0)), _write(tmp_path / "b.json", _row(1.0, scene="arm"))
    assert compare.main([first, second]) == 1
    assert "no row in common" in capsys.readouterr().err
