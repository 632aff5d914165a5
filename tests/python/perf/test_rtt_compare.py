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


def _sliced(ratios, scene="static", peer="coupler", transport="ipc"):
    """A row measured in slices beside a floor of 100 µs every slice: its p50s are the ratios × 100."""
    spread = {"median": sorted(ratios)[len(ratios) // 2], "low": min(ratios), "high": max(ratios)}
    return {"peer": peer, "scene": scene, "client": "cpp", "transport": transport, "receive": "blocking",
            "floor_index": 0, "slices": {"p50_us": [100.0 * ratio for ratio in ratios]},
            "vs_floor": {"p50": spread}, "vs_recorded": None}


def _run(*rows):
    return {"benchmark": "rtt", "rows": list(rows), "floors": [{"slices": {"p50_us": [100.0] * 5}}]}


def test_the_check_passes_ratios_within_the_tolerance_and_above_the_floor():
    lines, passed = compare.check(_run(_sliced([1.6, 1.7, 1.7, 1.7, 1.8], scene="arm")),
                                  _run(_sliced([1.7, 1.75, 1.75, 1.75, 1.8], scene="arm")), 0.10)
    assert passed
    assert lines[0].startswith("pass   coupler arm cpp ipc blocking, p50 ÷ floor: 1.70 and 1.75")
    assert lines[-1].startswith("check: passed: 1 ratios")


def test_the_check_fails_ratios_further_apart_than_the_tolerance_either_way():
    ours, theirs = _run(_sliced([1.6] * 5, scene="arm")), _run(_sliced([1.77] * 5, scene="arm"))
    # 1.77 is within 10 % of 1.6 taken from 1.77, not from 1.6: the check holds both ways.
    for first, second in ((ours, theirs), (theirs, ours)):
        lines, passed = compare.check(first, second, 0.10)
        assert not passed and lines[0].startswith("FAIL") and "more than 10%" in lines[0]


def test_the_check_fails_a_row_below_the_lowest_ratio_in_either_run():
    lines, passed = compare.check(_run(_sliced([0.96] * 5, peer="recorded")),
                                  _run(_sliced([0.94, 0.94, 0.94, 0.94, 0.95], peer="recorded")), 0.10)
    assert not passed
    assert lines[0].startswith("FAIL") and "below 0.95 × in the second run" in lines[0]


def test_a_row_noisy_in_either_run_is_reported_as_noisy_not_as_passing():
    quiet = _sliced([1.7] * 5, scene="arm")
    wide = _sliced([1.73, 1.75, 2.80, 4.15, 4.16], scene="arm")
    lines, passed = compare.check(_run(quiet), _run(wide), 0.10)
    assert not passed
    assert lines[0].startswith("noisy") and "second run: not measured: noisy (middle slices spread" in lines[0]
    assert lines[-1].startswith("check: failed: 0 ratios") and "1 not measured (noisy)" in lines[-1]


def test_a_ratio_at_its_targets_limit_is_a_measurement_the_check_judges():
    at_limit = _sliced([1.10, 1.11, 1.12, 1.13, 1.17])  # the static C++ row: its spread crosses 1.15
    lines, passed = compare.check(_run(at_limit), _run(at_limit), 0.10)
    assert passed
    assert lines[0].startswith("pass")


def test_the_check_judges_only_the_static_and_arm_rows():
    click = {**_sliced([1.5] * 5), "scene": "click demo", "peer": "pclick"}
    click_apart = {**_sliced([2.0] * 5), "scene": "click demo", "peer": "pclick"}
    lines, passed = compare.check(_run(_sliced([1.1] * 5), click), _run(_sliced([1.1] * 5), click_apart), 0.10)
    assert passed and not any("pclick" in line for line in lines)


def test_a_checked_row_one_run_did_not_measure_fails():
    lines, passed = compare.check(_run(_sliced([1.1] * 5), _sliced([1.7] * 5, scene="arm")),
                                  _run(_sliced([1.1] * 5)), 0.10)
    assert not passed
    assert "FAIL   coupler arm cpp ipc blocking: only in the first run" in lines


def test_check_on_the_command_line_exits_by_the_verdict(tmp_path, capsys):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps(_run(_sliced([1.1] * 5))))
    second.write_text(json.dumps(_run(_sliced([1.3] * 5))))
    assert compare.main([str(first), str(second), "--check"]) == 1
    assert "check: failed" in capsys.readouterr().out
    assert compare.main([str(first), str(second), "--check", "--tolerance", "0.2"]) == 0
