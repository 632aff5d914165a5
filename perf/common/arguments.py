"""argparse types the tools share (positive numbers, comma-separated lists) and the flags every tool declares
the same way: where its results go, whether it plots, and what its demo.servers are given."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")
Number = TypeVar("Number", int, float)


def list_of(convert: Callable[[str], T], allowed: Sequence[T] | None = None) -> Callable[[str], tuple[T, ...]]:
    """An argparse type: "a,b,c" -> (convert("a"), ...), each in `allowed` when that is given."""

    def parse(text: str) -> tuple[T, ...]:
        try:
            values = tuple(convert(value.strip()) for value in text.split(",") if value.strip())
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
        if not values:
            raise argparse.ArgumentTypeError("give at least one value")
        unknown = [str(value) for value in values if allowed is not None and value not in allowed]
        if unknown:
            choices = ", ".join(str(value) for value in allowed or ())
            raise argparse.ArgumentTypeError(f"unknown {', '.join(unknown)}: choose from {choices}")
        return values

    return parse


def positive(convert: Callable[[str], Number]) -> Callable[[str], Number]:
    """An argparse type: `convert(text)`, refused unless greater than zero."""

    def parse(text: str) -> Number:
        value = convert(text)
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value

    return parse


def add_server_args(parser: argparse.ArgumentParser) -> None:
    """--server-args, for a tool that starts demo.servers: flags it passes to each, read with shlex.split."""
    parser.add_argument("--server-args", default="", metavar="ARGS",
                        help="extra flags for every demo.server, as one shell-quoted string, e.g. "
                             "'--trace-sizes' (default: none)")


def add_output_flags(parser: argparse.ArgumentParser, name: str, *, plot: bool, instead: str = "") -> None:
    """--out DIR, where NAME.json and NAME.md (and NAME.png) go, and, when the tool draws NAME.png, --no-plot.

    `instead` names the files a flag writes in their place, e.g. "record-long.* with --long"."""
    from perf.common.results import DEFAULT_DIR  # here, so argparse types above import nothing of perf

    files = [f"{name}.json", f"{name}.md", *([f"{name}.png"] if plot else [])]
    written = f"{', '.join(files[:-1])} and {files[-1]}" + (f", or {instead}" if instead else "")
    shown = DEFAULT_DIR.relative_to(DEFAULT_DIR.parents[1])  # as the checkout names it, not this machine
    parser.add_argument("--out", type=Path, default=DEFAULT_DIR, metavar="DIR",
                        help=f"directory for {written} (default: {shown})")
    if plot:
        parser.add_argument("--no-plot", action="store_true",
                            help=f"skip {name}.png (the plot needs matplotlib; without this flag a missing "
                                 "matplotlib is an error; default: plot)")
