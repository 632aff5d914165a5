"""The `coupler` command: serve a scene, look at a server, make keys, replay and plot recordings.

    coupler serve --scene arm           # serve a scene (needs the sim extra)
    coupler info tcp://127.0.0.1:5555   # what a server (coupler or Click) serves
    coupler keygen NAME --dir DIR       # a CurveZMQ key pair
    coupler record tcp://127.0.0.1:5556 run.mcap   # record a server that publishes (serve --publish)
    coupler replay run.mcap --scene recorded   # replay a recording, compare bit for bit
    coupler plot run.mcap               # controls and joint readings of a recording, as a PNG
    coupler render run.mcap --out run.mp4   # the recorded MuJoCo states, rendered
"""

from __future__ import annotations

import argparse
import sys

from coupler.cli import info, keygen, plot, record, render, replay, serve
from coupler.wire.errors import Error


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="coupler", description="coupler: robot controllers and simulations over "
                                                             "ZeroMQ, speaking the Click protocol.")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serving = commands.add_parser(
        "serve", help="serve a scene to its controllers",
        description="Serve a simulated scene (a shipped one or any MJCF file) to its controllers over the coupler "
                    "(Click v1) protocol. Prints a summary on exit (Ctrl-C, SIGTERM, --stop-after).")
    serve.add_arguments(serving)
    serving.set_defaults(run=lambda args: serve.run(args, "coupler serve"),
                         check=lambda p, args: serve.check_arguments(p, args), sub=serving)
    looking = commands.add_parser(
        "info", help="print what a server serves",
        description="Connect to a server (coupler or Click), do the handshake, print what it serves as tables "
                    "(objects, controls with type, unit and range, events, sensors, time step, server and the "
                    "extensions it supports), and leave cleanly.")
    info.add_arguments(looking)
    looking.set_defaults(run=info.run, sub=looking)
    keys = commands.add_parser(
        "keygen", help="create a CurveZMQ key pair",
        description="Create a CurveZMQ key pair: NAME.key (public, to hand out) and NAME.key_secret (secret, "
                    "mode 0600). A server is given its own .key_secret and a directory of the .key files of the "
                    "clients it accepts.")
    keygen.add_arguments(keys)
    keys.set_defaults(run=keygen.run, sub=keys)
    recording = commands.add_parser(
        "record", help="record a publishing server to an MCAP file",
        description="Subscribe to a server's --publish address and write what it publishes into an MCAP file, "
                    "the file `coupler serve --record` writes. Shows progress on stderr; stops when the server "
                    "stops, on SIGINT/SIGTERM, or after --duration/--frames; prints a summary with the messages "
                    "written and those lost (gaps in the sequence numbers).")
    record.add_arguments(recording)
    recording.set_defaults(run=record.run, sub=recording)
    replaying = commands.add_parser(
        "replay", help="replay a recording and compare every answer",
        description="Re-drive a server with the Controls, Resets and handshakes of a recording (coupler serve "
                    "--record) and compare every answer with the recorded one, bit for bit. Prints the first "
                    "divergence (step, object, field, recorded and replayed value) and exits 1, or prints "
                    "'identical, N steps' and exits 0.")
    replay.add_arguments(replaying)
    replaying.set_defaults(run=replay.run, sub=replaying)
    plotting = commands.add_parser(
        "plot", help="plot a recording as a PNG",
        description="Write a PNG of a recording: per object, the controls and the joint angle readings against "
                    "simulated time, and the tracking error (control minus reading) of every control with a joint "
                    "sensor of the same name.")
    plot.add_arguments(plotting)
    plotting.set_defaults(run=plot.run, sub=plotting)
    rendering = commands.add_parser(
        "render", help="render a recording's MuJoCo states as an MP4, a GIF or a PNG strip",
        description="Render the MuJoCo states of a recording offscreen with MuJoCo's renderer, from the model the "
                    "recording carries (MUJOCO_GL: egl by default, or osmesa), as an MP4 video, an animated GIF "
                    "or a PNG of frames side by side.")
    render.add_arguments(rendering)
    rendering.set_defaults(run=render.run, sub=rendering)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    check = getattr(args, "check", None)
    if check is not None:
        check(args.sub, args)
    try:
        return args.run(args)
    except Error as error:
        print(f"coupler {args.command}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
