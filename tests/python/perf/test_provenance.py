"""perf.common.provenance: every published table says which run it comes from."""

from perf.common.provenance import run_of

HOST = {"machine": "ci-4", "cpu": "AMD EPYC", "logical_cpus": 2}


def test_a_short_run_says_so_with_its_date_and_machine():
    result = {"measured_at": "2026-11-27T08:00:00+00:00", "host": HOST, "settings": {"quick": True}}
    assert run_of(result) == "Short run (--quick) of 2026-11-27T08:00:00+00:00 on ci-4 (AMD EPYC, 2 logical CPUs)"


def test_a_run_without_quick_is_a_full_run():
    assert run_of({"measured_at": "then", "host": HOST, "settings": {}}).startswith("Full run of then on ci-4")


def test_a_result_from_before_machines_were_recorded_names_its_cpu():
    result = {"measured_at": "then", "host": {"cpu": "AMD EPYC", "logical_cpus": 2}, "settings": {"quick": False}}
    assert run_of(result) == "Full run of then on AMD EPYC (2 logical CPUs)"


def test_a_result_without_settings_or_date_is_just_a_run():
    assert run_of({"host": HOST}) == "Run on ci-4 (AMD EPYC, 2 logical CPUs)"
