"""`coupler render`: a recording's MuJoCo states, rendered offscreen, as an MP4, a GIF or a PNG strip.

    coupler render run.mcap --out run.mp4
    coupler render run.mcap --out run.gif
    coupler render run.mcap --out frames.png --fps 2 --end 3
"""

from __future__ import annotations

import argparse
from pathlib import Path

from coupler.cli.recording_file import existing_recording
from coupler.wire.missing_extra import needs_extra
from coupler.wire.errors import Error


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("recording", type=Path, help="the MCAP file written by `coupler serve --record`")
    parser.add_argument("--out", type=Path, required=True,
                        help="what to write: NAME.mp4 (H.264 video), NAME.gif (animation) or NAME.png (frames side "
                             "by side)")
    parser.add_argument("--camera", default=None,
                        help="a camera named in the model (default: MuJoCo's free camera on the whole scene)")
    parser.add_argument("--fps", type=float, default=25.0,
                        help="frames per simulated second (default: %(default)s)")
    parser.add_argument("--width", type=int, default=480, help="frame width in pixels (default: %(default)s)")
    parser.add_argument("--height", type=int, default=360, help="frame height in pixels (default: %(default)s)")
    parser.add_argument("--start", type=float, default=0.0, metavar="SECONDS",
                        help="first simulated time to render (default: %(default)s)")
    parser.add_argument("--end", type=float, default=None, metavar="SECONDS",
                        help="last simulated time to render (default: the end of the recording)")
    parser.add_argument("--max-frames", type=int, default=250,
                        help="render at most this many frames (default: %(default)s)")


def run(args: argparse.Namespace) -> int:
    with needs_extra("coupler render", "record"):
        from coupler.record.render import render
    existing_recording(args.recording)
    if args.fps <= 0 or args.width <= 0 or args.height <= 0 or args.max_frames <= 0:
        raise Error("--fps, --width, --height and --max-frames must be positive")
    rendered = render(args.recording, args.out, args.camera, args.fps, args.width, args.height, args.start, args.end,
                      args.max_frames)
    if rendered.ended_early is not None:
        print(f"{args.recording} {rendered.ended_early}")
    print(f"wrote {args.out}: {rendered}")
    return 0
