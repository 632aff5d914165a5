"""`--world K` of the commands that read recordings (plot, render, replay): which world of a recording of a
batched server (`coupler serve --worlds N --record`) they read."""

from __future__ import annotations

import argparse

from coupler.cli.number_flags import int_in
from coupler.serve.batched_worlds import MAX_WORLDS


def add_world_choice(parser: argparse.ArgumentParser, default: str = "0") -> None:
    """--world; `default` says, for the help, what is read without it."""
    parser.add_argument("--world", type=int_in(0, MAX_WORLDS - 1), default=None, metavar="K",
                        help="the world of a recording of `coupler serve --worlds N` to read, from 0 to N - 1; a "
                             "recording of a server without --worlds holds world 0 alone, and a K beyond the "
                             f"recording's worlds is refused naming them (default: {default})")
