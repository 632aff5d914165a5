"""What watching costs the server: a lockstep server on the arm scene driven at 2,000 steps/s by a controller
keeping to a schedule, its steps per second with `coupler view --web` watching its publish stream against
without (slices taking turns in one server run), and the view's draw rate meanwhile.

    python -m perf.view                # 5 rounds of 20,000 steps per side, a headless browser on the page
    python -m perf.view --pace 0       # the same with the server driven flat out
    python -m perf.view --quick        # 1 round of 1,000 steps (0.5 s) per side, no browser, for CI
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from perf.common import host, results
from perf.common.arguments import add_output_flags, positive
from perf.common.errors import BenchmarkError
from perf.common.paired import ratio
from perf.view.measure import interleaved

SLOWDOWN_TARGET = 0.95  # steps per second with a view open, at least this share of those without
DRAW_TARGET = 30.0  # frames per second the view draws at least
DEFAULT_PACE = 2000.0  # steps per second of the server the view keeps up with (the target's)


def markdown(result: dict) -> str:
    share = result["share"]
    rates = [v["frames_per_s"] for v in result["view"]]
    lines = [
        "# perf.view",
        "",
        f"{result['rounds']} round{'s' if result['rounds'] > 1 else ''} of {result['count']:,} lockstep steps per "
        "side, "
        + ("a Python controller " if result["pace"] else "the C++ demo controller ")
        + (f"asking for {result['pace']:,.0f} steps/s" if result["pace"] else "flat out")
        + (", a headless browser on the page" if result["browser"] else ", no browser on the page")
        + (f", the view at --fps {result['fps']:g}." if "fps" in result else "."),
        "",
        "| figure | median | lowest | highest | target |",
        "| --- | --- | --- | --- | --- |",
        f"| server steps/s without a view | {statistics.median(result['without_view']):,.0f} | "
        f"{min(result['without_view']):,.0f} | {max(result['without_view']):,.0f} | |",
        f"| server steps/s with a view | {statistics.median(result['with_view']):,.0f} | "
        f"{min(result['with_view']):,.0f} | {max(result['with_view']):,.0f} | |",
        f"| with / without, slice by slice | {share['median']:.3f} | {share['low']:.3f} | {share['high']:.3f} | "
        f">= {SLOWDOWN_TARGET} |",
        f"| view's draw rate (frames/s) | {statistics.median(rates):.1f} | {min(rates):.1f} | {max(rates):.1f} | "
        f">= {DRAW_TARGET:g} |",
        "",
        f"States dropped for the view (it draws only the newest): "
        f"{sum(v['states_dropped'] for v in result['view']):,} of "
        f"{sum(v['states_received'] + v['states_dropped'] for v in result['view']):,}.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perf.view", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=positive(int), default=None,
                        help="rounds, each a slice without and a slice with a view (default: 5, or 1 with --quick)")
    parser.add_argument("--count", type=positive(int), default=None,
                        help="timed steps per slice (default: 20000, or 1000 with --quick)")
    parser.add_argument("--no-browser", action="store_true",
                        help="no headless browser on the view's page (default: one, except with --quick)")
    parser.add_argument("--pace", type=float, default=DEFAULT_PACE, metavar="STEPS_PER_S",
                        help="the controller asks for this many steps a second; 0: the C++ demo controller drives "
                             "the server flat out, which on a machine of few cores measures the view's share of "
                             "the CPU more than its effect on the server (default: %(default)g)")
    parser.add_argument("--fps", type=positive(float), default=30.0,
                        help="the view's --fps, the most frames it draws a second (default: %(default)g, as the "
                             "view's own default)")
    parser.add_argument("--quick", action="store_true", help="a short run for CI (default: off)")
    add_output_flags(parser, "view", plot=False)
    args = parser.parse_args(argv)
    rounds = args.rounds or (1 if args.quick else 5)
    count = args.count or (1000 if args.quick else 20000)
    browser = not (args.no_browser or args.quick)
    paced = args.pace if args.pace > 0 else None
    result: dict = {"benchmark": "view", "host": host.describe(), "rounds": rounds, "count": count,
                    "browser": browser, "pace": paced, "fps": args.fps}
    try:
        with tempfile.TemporaryDirectory(prefix="perf-view-") as folder:
            result.update(interleaved(Path(folder), rounds, count, browser, paced, args.fps))
    except BenchmarkError as error:
        print(f"perf.view: {error}", file=sys.stderr)
        return 1
    share = ratio(result["with_view"], result["without_view"])
    assert share is not None
    result["share"] = {"median": share.median, "low": share.low, "high": share.high}
    text = markdown(result)
    results.publish(args.out, result, text)
    return 0
