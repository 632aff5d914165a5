"""`coupler render`: a recording's MuJoCo states, rendered offscreen, as an MP4, a GIF or a PNG strip.

    coupler render run.mcap --out run.mp4
    coupler render run.mcap --out run.gif
    coupler render run.mcap --out frames.png --fps 2 --end 3
    coupler render run.mcap --out world3.mp4 --world 3   # world 3 of `coupler serve --worlds N`
"""

from __future__ import annotations

import argparse
from pathlib import Path

from coupler.cli.number_flags import float_in, int_in
from coupler.cli.output_file import output_file
from coupler.cli.recording_file import existing_recording
from coupler.cli.world_choice import add_world_choice
from coupler.wire.missing_extra import needs_extra
from coupler.wire.errors import Error


MAX_FPS = 1000.0
MIN_FPS = 0.01
MAX_WIDTH, MAX_HEIGHT = 3840, 2160
MAX_FRAMES = 10_000
LATEST = 1e9  # seconds of simulated time: beyond any recording
# Frames are held in memory until written: their pixels together may take at most this many bytes.
MAX_PIXEL_BYTES = 2 << 30


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("recording", type=Path, help="the MCAP file written by `coupler serve --record`")
    parser.add_argument("--out", type=Path, required=True,
                        help="what to write: NAME.mp4 (H.264 video), NAME.gif (animation) or NAME.png (frames side "
                             "by side)")
    parser.add_argument("--camera", default=None,
                        help="a camera named in the model (default: MuJoCo's free camera on the whole scene)")
    parser.add_argument("--fps", type=float_in(MIN_FPS, MAX_FPS), default=25.0,
                        help=f"frames per simulated second, from {MIN_FPS:g} to {MAX_FPS:g} (default: %(default)s)")
    parser.add_argument("--width", type=int_in(16, MAX_WIDTH), default=480,
                        help=f"frame width in pixels, from 16 to {MAX_WIDTH} (default: %(default)s)")
    parser.add_argument("--height", type=int_in(16, MAX_HEIGHT), default=360,
                        help=f"frame height in pixels, from 16 to {MAX_HEIGHT} (default: %(default)s)")
    parser.add_argument("--start", type=float_in(0.0, LATEST, unit="s"), default=0.0, metavar="SECONDS",
                        help="first simulated time to render; a recording of several runs, each from a Reset, plays "
                             "them one after the other, each run starting one step after the one before "
                             "(default: %(default)s)")
    parser.add_argument("--end", type=float_in(0.0, LATEST, unit="s"), default=None, metavar="SECONDS",
                        help="last simulated time to render, on the same clock as --start (default: the end of the "
                             "recording)")
    parser.add_argument("--max-frames", type=int_in(1, MAX_FRAMES), default=250,
                        help=f"render at most this many frames, from 1 to {MAX_FRAMES}; their pixels together "
                             f"may take at most {MAX_PIXEL_BYTES >> 30} GiB (default: %(default)s)")
    add_world_choice(parser)


def run(args: argparse.Namespace) -> int:
    with needs_extra("coupler render", "record"):
        from coupler.record.render import FORMATS, render
        from coupler.record.world_recording import check_world
    existing_recording(args.recording)
    world = args.world or 0
    check_world(args.recording, world)
    output_file("--out", args.out, FORMATS)
    pixel_bytes = args.max_frames * args.width * args.height * 3
    if pixel_bytes > MAX_PIXEL_BYTES:
        raise Error(f"--max-frames {args.max_frames} of {args.width}x{args.height} would hold "
                    f"{pixel_bytes / (1 << 30):.1f} GiB of pixels in memory, more than {MAX_PIXEL_BYTES >> 30} GiB: "
                    "lower --max-frames, --width or --height")
    rendered = render(args.recording, args.out, args.camera, args.fps, args.width, args.height, args.start, args.end,
                      args.max_frames, world)
    if rendered.ended_early is not None:
        print(f"{args.recording} {rendered.ended_early}")
    print(f"wrote {args.out}: {rendered}")
    return 0
