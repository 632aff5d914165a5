"""What an image costs through coupler: a served camera's colour or depth image asked for with a
SensorRequest (rendered, sent and read as an array by the Python client), against `mujoco.Renderer` alone
rendering the same camera of the same model at the same size in the same run, rounds taking turns. Then
its delivery apart from rendering (`perf.vision.delivery`): an image rendered beforehand, sent through
shared memory and through the socket in turns, as a share of the renderer's time.

    python -m perf.vision                  # 64x64, 320x240 and 640x480; rgb and depth; 5 rounds of 20 images
    python -m perf.vision --sizes 64x64 --rounds 3 --count 10
    python -m perf.vision --delivery-only  # no renderer needed

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
from perf.vision.delivery import measure_delivery
from perf.vision.measure import KINDS, SIZES, TARGET, measure, parse_size

DELIVERY_SHARE = 0.05  # an image's delivery through shared memory, at most, as a share of its render time
SHARED_SPEEDUP = 5.0  # 640x480 rgb through shared memory at least this many times faster than the socket


def delivery_markdown(result: dict) -> list[str]:
    rendered = {(row["size"], row["kind"]): row["renderer_ms"]["median"] for row in result.get("rows", [])}
    lines = [
        "",
        f"Delivery alone, per image: the median of {result['rounds']} rounds of {result['count']} SensorRequests "
        "each (lowest and highest round in brackets) to a server process answering with one image rendered "
        "beforehand, its image fields made per answer as `coupler serve` makes them; read as arrays by "
        "`coupler.Session` on an ipc:// address, through shared memory and (opted out) through the socket, in "
        "turns. Each time includes the request's round trip.",
        "",
        f"| size | kind | shared memory ms | socket ms | socket ÷ shared (640x480 rgb: target ≥ {SHARED_SPEEDUP:g}) "
        f"| shared ÷ render alone (target ≤ {DELIVERY_SHARE:g}) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for row in result["delivery"]:
        shared, socket = row["shared_ms"], row["socket_ms"]
        speedup = socket / shared
        verdict = ""
        if (row["size"], row["kind"]) == ("640x480", "rgb"):
            verdict = " met" if speedup >= SHARED_SPEEDUP else " missed"
        render = rendered.get((row["size"], row["kind"]))
        share = "–" if render is None else (
            f"{shared / render:.3f} {'met' if shared / render <= DELIVERY_SHARE else 'missed'}")
        lines.append(f"| {row['size']} | {row['kind']} "
                     f"| {shared:.3f} ({row['shared_range'][0]:.3f}–{row['shared_range'][1]:.3f}) "
                     f"| {socket:.3f} ({row['socket_range'][0]:.3f}–{row['socket_range'][1]:.3f}) "
                     f"| {speedup:.1f}{verdict} | {share} |")
    return lines


def markdown(result: dict) -> str:
    if "rows" not in result:
        return "\n".join(delivery_markdown(result)[1:])
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
    if "delivery" in result:
        lines += delivery_markdown(result)
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
    parser.add_argument("--delivery-only", action="store_true",
                        help="measure only the delivery of images rendered beforehand, through shared memory and "
                             "through the socket (no renderer needed; default: rendering too)")
    args = parser.parse_args(argv)
    result: dict = {"benchmark": "vision", "host": host.describe(), "rounds": args.rounds, "count": args.count,
                    "kinds": list(KINDS)}
    try:
        if not args.delivery_only:
            result["rows"] = measure(args.sizes, args.rounds, args.count)
        result["delivery"] = measure_delivery(args.sizes, KINDS, args.rounds, args.count)
    except BenchmarkError as error:
        print(f"perf.vision: {error}", file=sys.stderr)
        return 1
    text = markdown(result)
    print(text)
    for path in results.write(args.out, result["benchmark"], result, text):
        print(f"wrote {path}")
    return 0
