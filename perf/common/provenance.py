"""Which run a published table comes from, said the same way by every table: short (CI's --quick) or full,
when, and on what machine."""

from __future__ import annotations

from typing import Any


def kind(result: dict[str, Any]) -> str:
    return "short run (--quick)" if result.get("settings", {}).get("quick") else "full run"


def run_of(result: dict[str, Any]) -> str:
    """E.g. "Full run of 2026-11-23T23:16:30+00:00 on ci-4 (AMD EPYC, 2 logical CPUs)"."""
    host = result.get("host", {})
    machine = host.get("machine")
    where = f"{machine} ({host.get('cpu', 'unknown CPU')}, " if machine else f"{host.get('cpu', 'unknown CPU')} ("
    return f"{kind(result).capitalize()} of {result['measured_at']} on {where}{host.get('logical_cpus', '?')} logical CPUs)"
