"""What recording and publishing cost: the controller's round trip on the arm scene with no observer, with
`--record`, and with `--publish` to 0, 1 and 10 subscribers (rounds taking turns, same run), the recorder's
and publisher's throughput for payloads from 100 B to 1 MB, and, with --long, a long recording opened and
replayed.

    python -m perf.record                      # 5 rounds of 2000 round trips per variant, payloads 100 B .. 1 MB
    python -m perf.record --quick              # 2 rounds of 300, and a long recording of 5,000 steps, for CI
    python -m perf.record --long               # only the long recording: 1,000,000 steps
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from perf.common import host, results
from perf.common.arguments import add_output_flags, positive
from perf.common.errors import BenchmarkError
from perf.record.long_run import long_recording
from perf.record.measure import PAYLOADS, VARIANTS, publisher_throughput, recorder_throughput, round_trips
from perf.record.render import long_markdown, markdown

LONG_STEPS, QUICK_LONG_STEPS = 1_000_000, 5_000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perf.record", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=positive(int), default=None,
                        help="rounds, each variant once per round in turn (default: 5, or 2 with --quick)")
    parser.add_argument("--count", type=positive(int), default=None,
                        help="timed round trips per variant per round (default: 2000, or 300 with --quick)")
    parser.add_argument("--megabytes", type=positive(float), default=None,
                        help="how much each payload size sends in the throughput tests (default: 64, or 8 with "
                             "--quick)")
    parser.add_argument("--long", action="store_true",
                        help="only the long recording: record --steps steps, open the file, replay it (default: "
                             "off; --quick runs a short one after the rest)")
    parser.add_argument("--steps", type=positive(int), default=None,
                        help=f"steps of the long recording (default: {LONG_STEPS:,}, or {QUICK_LONG_STEPS:,} with "
                             "--quick)")
    parser.add_argument("--quick", action="store_true", help="a short run for CI (default: off)")
    add_output_flags(parser, "record", plot=False, instead="record-long.* with --long")
    args = parser.parse_args(argv)
    rounds = args.rounds or (2 if args.quick else 5)
    count = args.count or (300 if args.quick else 2000)
    megabytes = args.megabytes or (8.0 if args.quick else 64.0)
    steps = args.steps or (QUICK_LONG_STEPS if args.quick else LONG_STEPS)
    result: dict = {"benchmark": "record-long" if args.long else "record", "host": host.describe()}
    try:
        with tempfile.TemporaryDirectory(prefix="perf-record-") as folder:
            if not args.long:
                result.update({"rounds": rounds, "count": count, "variants": [v for v, _, _ in VARIANTS],
                               "round_trips": round_trips(Path(folder), rounds, count)})
                result["recorder"] = [recorder_throughput(Path(folder), size, megabytes) for size in PAYLOADS]
                result["publisher"] = [publisher_throughput(Path(folder), size, megabytes) for size in PAYLOADS]
            if args.long or args.quick:
                result["long"] = long_recording(Path(folder), steps)
    except BenchmarkError as error:
        print(f"perf.record: {error}", file=sys.stderr)
        return 1
    text = "\n\n".join(part for part in (markdown(result) if not args.long else "",
                                         long_markdown(result["long"]) if "long" in result else "") if part)
    results.publish(args.out, result, text)
    if "long" in result and not result["long"]["identical"]:
        print(f"perf.record: the long recording did not replay identically: {result['long']['replay']}",
              file=sys.stderr)
        return 1
    return 0
