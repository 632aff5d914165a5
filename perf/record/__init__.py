"""What recording costs: the controller's round trip on the arm scene with and without `--record`
(rounds taking turns, same run), and the recorder's throughput for payloads from 100 B to 1 MB.

    python -m perf.record            # 5 rounds of 2000 round trips per variant, payloads 100 B .. 1 MB
    python -m perf.record --quick    # 2 rounds of 300, for CI
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from perf.common import host, results
from perf.common.arguments import positive
from perf.common.errors import BenchmarkError
from perf.common.results import DEFAULT_DIR
from perf.record.measure import PAYLOADS, VARIANTS, recorder_throughput, round_trips
from perf.record.render import markdown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perf.record", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=positive(int), default=None,
                        help="rounds, each variant once per round in turn (default: 5, or 2 with --quick)")
    parser.add_argument("--count", type=positive(int), default=None,
                        help="timed round trips per variant per round (default: 2000, or 300 with --quick)")
    parser.add_argument("--megabytes", type=positive(float), default=None,
                        help="how much each payload size writes in the throughput test (default: 64, or 8 with "
                             "--quick)")
    parser.add_argument("--quick", action="store_true", help="a short run for CI (default: off)")
    parser.add_argument("--out", type=Path, default=DEFAULT_DIR, metavar="DIR",
                        help="directory for record.json and record.md (default: perf/results)")
    args = parser.parse_args(argv)
    rounds = args.rounds or (2 if args.quick else 5)
    count = args.count or (300 if args.quick else 2000)
    megabytes = args.megabytes or (8.0 if args.quick else 64.0)
    try:
        with tempfile.TemporaryDirectory(prefix="perf-record-") as folder:
            latency = round_trips(Path(folder), rounds, count)
            throughput = [recorder_throughput(Path(folder), size, megabytes) for size in PAYLOADS]
    except BenchmarkError as error:
        print(f"perf.record: {error}", file=sys.stderr)
        return 1
    result = {"benchmark": "record", "host": host.describe(), "rounds": rounds, "count": count,
              "variants": [v for v, _ in VARIANTS], "round_trips": latency, "throughput": throughput}
    text = markdown(result)
    print(text)
    for path in results.write(args.out, "record", result, text):
        print(f"wrote {path}")
    return 0
