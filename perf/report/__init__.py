"""Every benchmark result in a results directory as one markdown report.

    python -m perf.report                     # perf/results/*.json -> perf/results/REPORT.md
    python -m perf.report --results DIR --out PATH
    python -m perf.report --results perf/latest --docs-page docs/performance-results.md   # the docs' tables
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from perf.frequency import render as frequency_render
from perf import reliability
from perf.common import results
from perf.rtt import render as rtt_render
from perf.soak import render as soak_render
from perf.stress import render as stress_render
from perf.common import provenance, targets
from perf.common.errors import BenchmarkError
from perf.report import docs_page

log = logging.getLogger("perf.report")

# In the order they appear in the report.
RENDERERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "rtt": rtt_render.render,
    "frequency": frequency_render.render,
    "soak": soak_render.render,
    "stress": stress_render.render,
    "reliability": reliability.render,
}


def _host(result: dict[str, Any]) -> str:
    host = result["host"]
    return (f"{host['cpu']}, {host['logical_cpus']} logical CPUs, {host['os']}; Python {host['python']}, "
            f"pyzmq {host['pyzmq']} (libzmq {host['libzmq']}), MuJoCo {host['mujoco']}")


def read_results(directory: Path) -> dict[str, dict[str, Any]]:
    """Every known result file in `directory`, by benchmark name; raises BenchmarkError when there is none."""
    found = {}
    for name in RENDERERS:
        path = directory / f"{name}.json"
        if path.exists():
            result = results.read(path)
            if result["benchmark"] != name:
                raise BenchmarkError(f"{path} holds a '{result['benchmark']}' result, not '{name}'")
            found[name] = result
    if not found:
        raise BenchmarkError(f"no results in {directory}: run python -m perf.rtt or python -m perf.frequency first")
    return found


def verdicts(found: dict[str, dict[str, Any]]) -> list[targets.Verdict]:
    return targets.evaluate(found.get("rtt"), found.get("frequency"))


# Extra results (docs_page.EXTRA_RENDERERS) the report holds too, after its own.
REPORTED_EXTRAS = ("vision", "vision_worlds", "shm")


def build(directory: Path, found: dict[str, dict[str, Any]] | None = None) -> str:
    """The report of the results in `directory` (`found`, or read from there): the targets, then each
    result; raises BenchmarkError when there is none."""
    found = read_results(directory) if found is None else found
    sections = ["# coupler performance report", "", targets.render(verdicts(found)), ""]
    for name, result in found.items():
        sections += [RENDERERS[name](result), "", f"{provenance.run_of(result)}. Measured on {_host(result)}; "
                     f"the run took {result['duration_s']:.0f} s."]
        plot = directory / f"{name}.png"
        if plot.exists():
            # Relative, so the report and its plots can move together.
            sections += ["", f"![{name}]({plot.name})"]
        sections.append("")
    sections += docs_page.extra_sections(directory, _host, REPORTED_EXTRAS)
    return "\n".join(sections)


def build_docs_page(directory: Path) -> str:
    """The documentation's benchmark page for the results in `directory`; raises BenchmarkError when there
    is none."""
    found = read_results(directory)
    return docs_page.render(directory, found, verdicts(found), RENDERERS, _host)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m perf.report",
        description="Render the results perf.rtt, perf.frequency, perf.soak and perf.reliability wrote (rtt.json, "
        "frequency.json, soak.json, reliability.json and their plots) into one markdown report. Exits 1 when "
        "there are no results or one cannot be read.",
    )
    parser.add_argument("--results", type=Path, default=results.DEFAULT_DIR, metavar="DIR",
                        help="directory holding the results (default: perf/results)")
    # Not add_output_flags: the report is one file, by default beside the results it reads.
    parser.add_argument("--out", type=Path, default=None, metavar="PATH",
                        help="where to write the report (default: REPORT.md in the results directory)")
    parser.add_argument("--docs-page", type=Path, default=None, metavar="PATH",
                        help="also write the documentation's page of benchmark tables there (the project's is "
                        "docs/performance-results.md, rendered from --results perf/latest; default: not written)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    out = args.out or args.results / "REPORT.md"
    try:
        found = read_results(args.results)
        report = build(args.results, found)
    except BenchmarkError as error:
        log.error("perf.report: %s", error)
        return 1
    out.write_text(report)
    if args.docs_page is not None:
        args.docs_page.write_text(build_docs_page(args.results))
        log.info("perf.report: wrote %s", args.docs_page)
    # The tables themselves were printed by the tools that measured them; the log gets the verdicts.
    print(targets.render(verdicts(found)))
    log.info("perf.report: wrote %s", out)
    return 0

