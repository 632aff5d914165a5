"""`coupler plot`: a PNG of a recording's controls and joint readings against simulated time.

    coupler plot run.mcap                 # writes run.png
    coupler plot run.mcap --out arm.png
    coupler plot run.mcap --world 3       # world 3 of a recording of `coupler serve --worlds N`
"""

from __future__ import annotations

import argparse
from pathlib import Path

from coupler.cli.number_flags import int_in
from coupler.cli.output_file import output_file
from coupler.cli.recording_file import existing_recording
from coupler.cli.world_choice import add_world_choice
from coupler.wire.missing_extra import needs_extra


# The figure is 13 inches wide: beyond this a PNG is tens of megapixels per object, an exhausted memory, not a plot.
MIN_DPI, MAX_DPI = 10, 400


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("recording", type=Path, help="the MCAP file written by `coupler serve --record`")
    parser.add_argument("--out", type=Path, default=None,
                        help="the PNG to write (default: the recording's name with .png)")
    parser.add_argument("--dpi", type=int_in(MIN_DPI, MAX_DPI), default=100,
                        help=f"resolution of the PNG in dots per inch, from {MIN_DPI} to {MAX_DPI} (a panel is 13 "
                             "inches wide) (default: %(default)s)")
    add_world_choice(parser)


def run(args: argparse.Namespace) -> int:
    with needs_extra("coupler plot", "record"):
        from coupler.record.plot import plot
        from coupler.record.world_recording import check_world
    existing_recording(args.recording)
    world = args.world or 0
    check_world(args.recording, world)
    out = output_file("--out", args.out or args.recording.with_suffix(".png"), (".png",))
    plotted = plot(args.recording, out, args.dpi, world)
    if plotted.ended_early is not None:
        print(f"{args.recording} {plotted.ended_early}")
    print(f"wrote {out}: {plotted}")
    return 0
