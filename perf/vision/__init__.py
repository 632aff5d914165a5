"""What an image costs through coupler: a served camera's colour or depth image asked for with a
SensorRequest (rendered, sent and read as an array by the Python client), against `mujoco.Renderer` alone
rendering the same camera of the same model at the same size in the same run, rounds taking turns.

    python -m perf.vision                  # 64x64, 320x240 and 640x480; rgb and depth; 5 rounds of 20 images
    python -m perf.vision --sizes 64x64 --rounds 3 --count 10

Not part of scripts/test: starting an offscreen renderer and rendering hundreds of frames in software takes
tens of seconds on a machine without a GPU. The target: coupler's cost per image <= 1.15 x the renderer's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from perf.common import host, results
from perf.common.arguments import positive
from perf.common.errors import BenchmarkError
from perf.common.results import DEFAULT_DIR
from perf.vision.measure import KINDS, SIZES, TARGET, measure, parse_size


def markdown(result: dict) -> str:
    lines = [
        f"Per image, the median of {result['rounds']} rounds of {result['count']} images each (lowest and highest "
        "round in brackets); each round times the renderer alone and then coupler, in turn, in one process "
        "against one server.",
        "",
        "| size | kind | mujoco.Renderer alone ms | through coupler ms | coupler ÷ renderer | target "
        f"≤ {TARGET:g} |",
        "|---|---|---:|---:|---:|---|",
    ]
    for row in result["rows"]:
        alone, coupled, ratio = row["renderer_ms"], row["coupler_ms"], row["ratio"]
        verdict = "met" if ratio["median"] <= TARGET else "missed"
        lines.append(f"| {row['size']} | {row['kind']} "
                     f"| {alone['median']:.2f} ({alone['low']:.2f}–{alone['high']:.2f}) "
                     f"| {coupled['median']:.2f} ({coupled['low']:.2f}–{coupled['high']:.2f}) "
                     f"| {ratio['median']:.2f} ({ratio['low']:.2f}–{ratio['high']:.2f}) | {verdict} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perf.vision", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=lambda text: [parse_size(s) for s in text.split(",")],
                        default=list(SIZES), help="comma-separated WxH (default: 64x64,320x240,640x480)")
    parser.add_argument("--rounds", type=positive(int), default=5,
                        help="rounds, the renderer alone and coupler once each per round (default: %(default)s)")
    parser.add_argument("--count", type=positive(int), default=20,
                        help="images timed per kind, size and side in each round (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=DEFAULT_DIR, metavar="DIR",
                        help="directory for vision.json and vision.md (default: perf/results)")
    args = parser.parse_args(argv)
    result: dict = {"benchmark": "vision", "host": host.describe(), "rounds": args.rounds, "count": args.count,
                    "kinds": list(KINDS)}
    try:
        result["rows"] = measure(args.sizes, args.rounds, args.count)
    except BenchmarkError as error:
        print(f"perf.vision: {error}", file=sys.stderr)
        return 1
    text = markdown(result)
    print(text)
    for path in results.write(args.out, result["benchmark"], result, text):
        print(f"wrote {path}")
    return 0
