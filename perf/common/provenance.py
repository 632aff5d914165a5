"""Which run a published table comes from, said the same way by every table: short (CI's --quick) or full,
when, and on what machine."""

from __future__ import annotations

from typing import Any


def kind(result: dict[str, Any]) -> str:
    """"short run (--quick)", "full run", or just "run" for a result that does not record its settings."""
    settings = result.get("settings")
    if not isinstance(settings, dict):
        return "run"
    return "short run (--quick)" if settings.get("quick") else "full run"


def run_of(result: dict[str, Any]) -> str:
    """E.g. "Full run of 2026-11-23T23:16:30+00:00 on ci-4 (AMD EPYC, 2 logical CPUs)"."""
    host = result.get("host", {})
    cpu, cpus = host.get("cpu", "unknown CPU"), host.get("logical_cpus", "?")
    machine = f"{host['machine']} ({cpu}, {cpus} logical CPUs)" if host.get("machine") else f"{cpu} ({cpus} logical CPUs)"
    when = f" of {result['measured_at']}" if result.get("measured_at") else ""
    return f"{kind(result).capitalize()}{when} on {machine}"
