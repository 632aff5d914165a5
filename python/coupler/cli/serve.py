"""`coupler serve`: serve a scene (a shipped one, or any MJCF file) to its controllers.

    coupler serve                                   # arm scene, lockstep, tcp://127.0.0.1:5555
    coupler serve --scene two_arms --mode free
    coupler serve --scene path/to/model.xml --realtime
"""

from __future__ import annotations

import argparse
import logging
import sys

from coupler.scenes import DEFAULT_SCENE, load_scene, scene_names
from coupler.serve.app import DEFAULT_ADDRESS, ServeOptions, serve
from coupler.serve.controller_sessions import DEFAULT_LEASE
from coupler.serve.native_responder import NativeResponder
from coupler.serve.responder import Responder
from coupler.transport.bind_policy import check_bind_address
from coupler.transport.flags import add_server_flags, server_options
from coupler.wire.errors import Error

log = logging.getLogger("coupler.serve")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of `coupler serve`, with the defaults of `ServeOptions`."""
    defaults = ServeOptions()
    parser.add_argument("--addr", default=DEFAULT_ADDRESS,
                        help="address to bind: tcp://host:port, ipc://path or inproc://name (default: %(default)s)")
    parser.add_argument("--allow-remote", action="store_true",
                        help="allow binding a TCP address other than loopback (reachable from other machines); "
                             "without it such an --addr is refused (default: off)")
    parser.add_argument("--scene", default=DEFAULT_SCENE,
                        help=f"scene to serve: one of {', '.join(scene_names())}, or a path to an MJCF file "
                             "(default: %(default)s)")
    parser.add_argument("--mode", choices=["lockstep", "free"], default=defaults.mode,
                        help="lockstep: one step per Control (Click semantics); free: the simulation steps on its "
                             "own clock with the latest controls (default: %(default)s)")
    parser.add_argument("--realtime", action="store_true",
                        help="in lockstep, never run ahead of the wall clock (sleeps when early) (default: off)")
    parser.add_argument("--speed", default="1",
                        help="free mode pace as a real-time factor (1 = real time), or 'max' for as fast as possible "
                             "(default: %(default)s)")
    parser.add_argument("--step", type=float, default=None, metavar="SECONDS",
                        help="override the model's time step (default: the model's own)")
    parser.add_argument("--stop-after", type=float, default=defaults.stop_after, metavar="SECONDS",
                        help="stop after this much simulated time (default: run until interrupted)")
    parser.add_argument("--exit-on-error", action="store_true",
                        help="exit when a controller ends its session with an ErrorMessage, instead of waiting for "
                             "the next controller (default: off)")
    parser.add_argument("--trace", action="store_true", help="log every message received and sent (default: off)")
    parser.add_argument("--trace-sizes", action="store_true",
                        help="log the frame sizes received and sent whenever they change (default: off)")
    parser.add_argument("--controllers", type=int, default=defaults.controllers, metavar="N",
                        help="how many controllers drive the scene at once, each its own robots (the robots its "
                             "Controls name); with more than one, lockstep steps once every controller's Control "
                             "has arrived. Anyone else asking to drive gets SERVER_BUSY; anyone may read sensors "
                             "(default: %(default)s)")
    parser.add_argument("--session-timeout", type=float, default=DEFAULT_LEASE, metavar="SECONDS",
                        help="a controller's hold on the simulation lapses after this long without a Control, Reset or "
                             "HandshakeInit from it; reads do not renew it "
                             "(it matters only when someone else wants in, or others wait for its Control); "
                             "0 never lapses (default: %(default)s)")
    add_server_flags(parser)


def check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse, through `parser.error`, flags that cannot go together or values out of range."""
    if args.speed != "max":
        try:
            if float(args.speed) <= 0:
                raise ValueError
        except ValueError:
            parser.error(f"--speed must be a positive number or 'max', got '{args.speed}'")
    if args.step is not None and args.step <= 0:
        parser.error(f"--step must be positive, got {args.step}")
    if args.controllers < 1:
        parser.error(f"--controllers must be at least 1, got {args.controllers}")
    if args.controllers > 1 and args.mode != "lockstep":
        parser.error("--controllers above 1 needs --mode lockstep: several controllers step together, "
                     "which free mode's own clock does not do")
    if args.session_timeout < 0:
        parser.error(f"--session-timeout must be 0 (never lapse) or positive, got {args.session_timeout}")
    if args.realtime and args.mode != "lockstep":
        parser.error("--realtime applies to --mode lockstep; free mode paces itself with --speed")


def options_from(args: argparse.Namespace) -> tuple[ServeOptions, str | None]:
    """The ServeOptions of parsed flags, and the bind policy's warning for them, if any.

    coupler.Error names the problem for an address that is refused or key files that cannot be used.
    """
    transport = server_options(args)
    warning = check_bind_address(args.addr, args.allow_remote, authenticated=transport.curve)
    options = ServeOptions(
        address=args.addr, mode=args.mode, realtime=args.realtime,
        speed=None if args.speed == "max" else float(args.speed), stop_after=args.stop_after,
        exit_on_error=args.exit_on_error, trace=args.trace, trace_sizes=args.trace_sizes,
        controllers=args.controllers, session_timeout=args.session_timeout, transport=transport,
    )
    return options, warning


def run(args: argparse.Namespace, prog: str, responder_type: type[Responder] = NativeResponder) -> int:  # type: ignore[assignment]
    logging.basicConfig(
        level=logging.INFO if (args.trace or args.trace_sizes) else logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s: %(message)s",
        stream=sys.stdout,
    )
    try:
        options, warning = options_from(args)
        if warning:
            log.warning("%s", warning)
        simulation = load_scene(args.scene, args.step)
        for problem in getattr(simulation, "unmapped", []):
            log.warning("not served: %s", problem)
        return serve(simulation, options, scene_name=args.scene, responder_type=responder_type)
    except Error as error:
        raise SystemExit(f"{prog}: {error}") from None


def main(argv: list[str] | None = None, prog: str = "coupler serve",
         responder_type: type[Responder] = NativeResponder) -> int:  # type: ignore[assignment]
    """`coupler serve` as a program of its own (`python -m demo.server` runs this)."""
    parser = argparse.ArgumentParser(
        prog=prog, description="Serve a simulated scene to its controllers over the coupler (Click v1) protocol.")
    add_arguments(parser)
    args = parser.parse_args(argv)
    check_arguments(parser, args)
    return run(args, prog, responder_type)
