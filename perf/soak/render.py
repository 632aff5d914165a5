"""perf.soak's result as markdown, and its plot of resident memory against round trips."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from perf.common import plots
from perf.common.markdown import number, table
from perf.soak.memory import KIB_PER_MIB

PROCESSES = ("server", "client")


def verdict(passed: bool) -> str:
    return "pass" if passed else "FAIL"


def _mib(kib: float) -> str:
    return number(kib / KIB_PER_MIB, 1)


def memory_table(result: dict[str, Any]) -> str:
    reference = result["memory"]["server"]["reference_round_trip"]
    headers = ["process", "RSS at start MiB", f"RSS at round trip {reference:,} MiB", "RSS at end MiB",
               "growth MiB", "limit MiB", "verdict"]
    cells = []
    for process in PROCESSES:
        memory = result["memory"][process]
        cells.append([
            process, _mib(memory["start_kib"]), _mib(memory["reference_kib"]), _mib(memory["end_kib"]),
            # Three decimals: a few KiB of growth shows rather than rounding to nothing.
            f"{memory['growth_kib'] / KIB_PER_MIB:+.3f}", _mib(memory["limit_kib"]),
            verdict(memory["passed"]),
        ])
    return table(headers, cells, [False] + [True] * 5 + [False])


def run_table(result: dict[str, Any]) -> str:
    steps = result["steps"]
    headers = ["round trips", "duration s", "round trips/s", "lost", "duplicated", "irregular", "verdict"]
    cells = [[
        number(steps["round_trips"], 0), number(result["loop_seconds"], 1),
        number(result["round_trips_per_second"], 0), str(steps["lost"]), str(steps["duplicated"]),
        str(steps["irregular"]), verdict(result["checks"]["round trips"]),
    ]]
    return table(headers, cells, [True] * 6 + [False])


def _anomalies(steps: dict[str, Any]) -> list[str]:
    if not steps["anomalies"]:
        return []
    lines = ["", "First replies off the step (round trip of the loop: simulated time before → after):", ""]
    lines += [f"- {a['round_trip']:,}: {a['previous']!r} s → {a['time']!r} s ({a['kind']})"
              for a in steps["anomalies"]]
    return lines


def render(result: dict[str, Any]) -> str:
    """Both tables with a heading, the overall verdict and what the checks mean."""
    settings = result["settings"]
    steps = result["steps"]
    failed = [name for name, passed in result["checks"].items() if not passed]
    server_args = " ".join(settings.get("server_args", []))
    lines = [
        f"## Soak: {settings['round_trips']:,} lockstep round trips",
        "",
        f"{result['measured_at']}, {result['host']['cpu']} ({result['host']['logical_cpus']} logical CPUs), "
        f"demo.server --scene {settings['scene']}{' ' + server_args if server_args else ''} over "
        f"{settings['transport']}, the Python controller perf.soak.client in a process of its own"
        f"{' (quick)' if settings.get('quick') else ''}.",
        "",
        run_table(result),
        "",
        memory_table(result),
        "",
        f"Verdict: {'pass' if not failed else 'FAIL (' + ', '.join(failed) + ')'}.",
        "",
        "Duration and rate cover the soak loop only, after the handshake (and on an arm scene the pick approach). "
        f"Every reply's simulated time is checked against one time step ({steps['time_step']} s) after the one "
        f"before, within {settings['tolerance']:g} of a step: a jump of several steps counts the steps as lost, "
        "the same time again as duplicated, anything else as irregular. Resident memory (VmRSS) is sampled every "
        f"{settings['sample_every']:,} round trips; growth is from the first sample at or after the reference "
        "round trip to the end, and must stay under the limit.",
    ]
    return "\n".join(lines + _anomalies(steps))


def plot(result: dict[str, Any], path: Path) -> Path:
    """RSS of server and client against round trips, with the reference point and each process's limit."""
    plt = plots.pyplot()
    samples = result["samples"]
    round_trips = [sample["round_trips"] for sample in samples]
    fig, ax = plt.subplots(figsize=(9, 5))
    for i, process in enumerate(PROCESSES):
        colour = plt.cm.tab10(i)
        memory = result["memory"][process]
        grown = memory["growth_kib"] / KIB_PER_MIB
        ax.plot(round_trips, [sample[f"{process}_kib"] / KIB_PER_MIB for sample in samples], color=colour,
                marker=".", label=f"{process} ({verdict(memory['passed'])}, {grown:+.1f} MiB)")
        ax.axhline((memory["reference_kib"] + memory["limit_kib"]) / KIB_PER_MIB, color=colour, linestyle=":",
                   linewidth=1, label=f"{process} limit")
    ax.axvline(result["memory"]["server"]["reference_round_trip"], color="grey", linestyle="--", linewidth=1,
               label="reference round trip")
    ax.set_xlabel("round trips of the soak loop")
    ax.set_ylabel("resident memory, VmRSS (MiB)")
    ax.set_title(f"Soak, scene {result['settings']['scene']} over {result['settings']['transport']}: "
                 f"memory against round trips")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
