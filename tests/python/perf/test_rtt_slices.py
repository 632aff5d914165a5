"""perf.common.rtt_slices: a perf.rtt result's ratios slice by slice, from the per-slice figures it stores."""

import pytest

from perf.common import rtt_slices


def _entry(p50s, **fields):
    return {"slices": {"p50_us": p50s}, **fields}


def _result():
    recorded = _entry([50.0, 60.0, 50.0], peer="recorded", client="cpp", floor_index=0, vs_floor={}, vs_recorded=None)
    coupler = _entry([55.0, 60.0, 60.0], peer="coupler", client="cpp", floor_index=0, vs_floor={}, vs_recorded={})
    other = _entry([90.0, 90.0, 90.0], peer="recorded", client="python", floor_index=1, vs_floor={},
                   vs_recorded=None)
    floors = [_entry([50.0, 50.0, 40.0]), _entry([60.0, 60.0, 60.0])]
    return {"rows": [other, recorded, coupler], "floors": floors}


def test_a_rows_ratio_to_its_floor_is_taken_slice_by_slice():
    result = _result()
    assert rtt_slices.ratios(result, result["rows"][1]) == {"vs_floor": [1.0, 1.2, 1.25]}


def test_a_coupler_row_is_set_against_the_recorded_row_of_its_floor_group():
    result = _result()
    found = rtt_slices.ratios(result, result["rows"][2])
    assert found["vs_floor"] == [1.1, 1.2, 1.5]
    assert found["vs_recorded"] == pytest.approx([1.1, 1.0, 1.2])


def test_a_result_written_before_slices_has_no_slice_ratios():
    result = _result()
    for entry in result["rows"] + result["floors"]:
        del entry["slices"]
    assert rtt_slices.ratios(result, result["rows"][2]) == {}
