"""python -m perf.vision: see the package's description."""

from __future__ import annotations

import argparse
import sys
import time

import perf.vision
from perf.common import host, results
from perf.common.arguments import add_output_flags, positive
from perf.common.errors import BenchmarkError
from perf.vision.delivery import measure_delivery
from perf.vision.measure import KINDS, SIZES, measure, parse_size
from perf.vision.render import markdown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perf.vision", description=perf.vision.__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=lambda text: [parse_size(s) for s in text.split(",")],
                        default=list(SIZES), help="comma-separated WxH (default: 64x64,320x240,640x480)")
    parser.add_argument("--rounds", type=positive(int), default=5,
                        help="rounds, the renderer alone and coupler once each per round (default: %(default)s)")
    parser.add_argument("--count", type=positive(int), default=20,
                        help="images timed per kind, size and side in each round (default: %(default)s)")
    add_output_flags(parser, "vision", plot=False)
    parser.add_argument("--delivery-only", action="store_true",
                        help="measure only the delivery of images rendered beforehand, through shared memory and "
                             "through the socket (no renderer needed; default: rendering too)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    result: dict = {"benchmark": "vision", "host": host.describe(), "measured_at": results.measured_now(),
                    "rounds": args.rounds, "count": args.count, "kinds": list(KINDS),
                    "settings": {"quick": False, "sizes": [f"{w}x{h}" for w, h in args.sizes],
                                 "delivery_only": args.delivery_only}}
    try:
        if not args.delivery_only:
            result["rows"] = measure(args.sizes, args.rounds, args.count)
        result["delivery"] = measure_delivery(args.sizes, KINDS, args.rounds, args.count)
        result["duration_s"] = time.monotonic() - started
    except BenchmarkError as error:
        print(f"perf.vision: {error}", file=sys.stderr)
        return 1
    text = markdown(result)
    results.publish(args.out, result, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
