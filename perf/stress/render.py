"""perf.stress's markdown: its checks, then the controller's step rate in each phase."""

from __future__ import annotations

from typing import Any

from perf.common.markdown import table


def verdict(check: dict[str, Any]) -> str:
    if check.get("guarantee", False):
        return "pass" if check["passed"] else "FAIL"
    return "met" if check["passed"] else "missed"


def render(result: dict[str, Any]) -> str:
    rows = [[c["name"], c["measured"], c["limit"], verdict(c)] for c in result["checks"]]
    figures = result["figures"]
    solo = figures["solo_steps_per_s"]
    rates = [[phase, f"{rate:,.0f}", f"{rate / solo:.2f}" if solo > 0 else "-"] for phase, rate in (
        ("solo", solo), ("connection storm", figures["storm"]["steps_per_s"]),
        ("between the reader windows", figures["readers"]["quiet_steps_per_s"]),
        ("readers", figures["readers"]["steps_per_s"]),
        ("pathological Controls", figures["pathological"]["steps_per_s"]))]
    return ("## perf.stress\n\n" + table(["check", "measured", "limit", ""], rows, [False, False, False, False])
            + "\n\nA guarantee (pass or FAIL) fails the run when broken; a target (met or missed) is a figure the "
            "machine's load moves, reported.\n\nThe controller's step rate in each phase (reported; judged only under the readers):\n\n"
            + table(["phase", "steps/s", "of solo"], rates, [False, True, True]))
