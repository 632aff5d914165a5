"""The `coupler` command: serve a scene, look at a server, make keys, replay and plot recordings.

    coupler serve --scene arm           # serve a scene (needs the sim extra)
    coupler info --addr tcp://127.0.0.1:5555   # what a server (coupler or Click) serves
    coupler keygen NAME --dir DIR       # a CurveZMQ key pair
    coupler record --addr tcp://127.0.0.1:5556 run.mcap   # record a server that publishes (serve --publish)
    coupler replay run.mcap --scene recorded   # replay a recording, compare bit for bit
    coupler plot run.mcap               # controls and joint readings of a recording, as a PNG
    coupler render run.mcap --out run.mp4   # the recorded MuJoCo states, rendered
    coupler view --addr tcp://127.0.0.1:5556   # watch a server that publishes (serve --publish) in 3D, or a recording
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from types import ModuleType

from coupler.cli import info, keygen, plot, record, render, replay, serve, view
from coupler.wire.errors import Error
from coupler.wire.version import VERSION


@dataclass(frozen=True)
class _Command:
    name: str
    # Has add_arguments(parser) and run(args) -> exit status, raising coupler.Error; and may have
    # check_arguments(parser, args), which refuses flags that do not go together through parser.error.
    module: ModuleType
    help: str
    description: str


_COMMANDS = (
    _Command("serve", serve, "serve a scene to its controllers",
             "Serve a simulated scene (a shipped one or any MJCF file) to its controllers over the coupler "
             "(Click v1) protocol. Prints a summary on exit (Ctrl-C, SIGTERM, --stop-after)."),
    _Command("info", info, "print what a server serves",
             "Connect to a server (coupler or Click), do the handshake, print what it serves as tables "
             "(objects, controls with type, unit and range, events, sensors, time step, server and the "
             "extensions it supports), and leave cleanly."),
    _Command("keygen", keygen, "create a CurveZMQ key pair",
             "Create a CurveZMQ key pair: NAME.key (public, to hand out) and NAME.key_secret (secret, "
             "mode 0600). A server is given its own .key_secret and a directory of the .key files of the "
             "clients it accepts."),
    _Command("record", record, "record a publishing server to an MCAP file",
             "Subscribe to a server's --publish address and write what it publishes into an MCAP file, "
             "the file `coupler serve --record` writes. Shows progress on stderr; stops when the server "
             "stops, on SIGINT/SIGTERM, or after --duration/--max-messages; prints a summary with the messages "
             "written and those lost (gaps in the sequence numbers)."),
    _Command("replay", replay, "replay a recording and compare every answer",
             "Re-drive a server with the Controls, Resets and handshakes of a recording (coupler serve "
             "--record) and compare every answer with the recorded one, bit for bit. Prints the first "
             "divergence (step, object, field, recorded and replayed value) and exits 1, or prints "
             "'identical, N steps' and exits 0."),
    _Command("plot", plot, "plot a recording as a PNG",
             "Write a PNG of a recording: per object, the controls and the joint angle readings against "
             "simulated time, and the tracking error (control minus reading) of every control with a joint "
             "sensor of the same name."),
    _Command("render", render, "render a recording's MuJoCo states as an MP4, a GIF or a PNG strip",
             "Render the MuJoCo states of a recording offscreen with MuJoCo's renderer, from the model the "
             "recording carries (MUJOCO_GL: egl by default, or osmesa), as an MP4 video, an animated GIF "
             "or a PNG of frames side by side."),
    _Command("view", view, "watch a run in 3D, live or from a recording",
             "Draw a MuJoCo scene in 3D and move it as its states arrive: live from a server's --publish address, "
             "or from a recording with play, pause, speed and seek. In the browser (--web, served on loopback) or "
             "in MuJoCo's own viewer (--native); the controls and joint positions are shown beside the scene. A "
             "view only reads the published stream and skips the states it cannot draw in time: it never slows "
             "the server. Prints how many frames it drew when it closes."),
)


def version() -> str:
    """coupler's version (coupler.wire.version), as `coupler --version` prints it."""
    return VERSION


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="coupler", description="coupler: robot controllers and simulations over "
                                                             "ZeroMQ, speaking the Click protocol.",
                                  epilog="Every command exits 0 when it succeeds, 1 for an error, told in one line on "
                                         "stderr (a bad input, or what the machine refused: a full disk, a port "
                                         "taken), and 2 for bad flags.")
    top.add_argument("--version", action="version", version=f"coupler {version()}",
                     help="print the version of coupler and exit")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in _COMMANDS:
        sub = commands.add_parser(command.name, help=command.help, description=command.description)
        command.module.add_arguments(sub)
        sub.set_defaults(command_module=command.module, command_parser=sub)
    return top


def main(argv: list[str] | None = None) -> int:
    """Run a command; its exit status: 0, 1 for an error (one line on stderr), 2 for bad flags (argparse's)."""
    args = parser().parse_args(argv)
    module = args.command_module
    check = getattr(module, "check_arguments", None)
    if check is not None:
        check(args.command_parser, args)
    prog = f"coupler {args.command}"
    try:
        return module.run(args)
    except Error as error:
        message = str(error)
        print(message if message.startswith(prog) else f"{prog}: {message}", file=sys.stderr)
        return 1
    except OSError as error:
        # What the machine refused (a full disk, a directory not writable, a port taken): its one line says it.
        print(f"{prog}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
