"""coupler simulation server: serves a MuJoCo scene (or the static scene) to a controller.

    python -m demo.server                        # arm scene, lockstep, tcp://127.0.0.1:5555
    python -m demo.server --scene two_arms --mode free
    python -m demo.server --scene path/to/model.xml --realtime
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from coupler.bind_policy import check_bind_address
from coupler.controller_sessions import DEFAULT_LEASE
from coupler.errors import Error
from coupler.free_run_loop import FreeRunLoop
from coupler.lockstep_loop import LockstepLoop
from coupler.native_responder import NativeResponder
from coupler.pyzmq_responder import PyzmqResponder
from coupler.run_clock import RunClock
from coupler.simulation import Simulation
from coupler.simulation_server import SimulationServer
from coupler.transport_flags import add_server_flags, server_options

SCENES_DIR = Path(__file__).resolve().parent / "scenes"
DEFAULT_ADDRESS = "tcp://127.0.0.1:5555"

log = logging.getLogger("demo.server")


def scene_names() -> list[str]:
    return ["static"] + sorted(p.stem for p in SCENES_DIR.glob("*.xml"))


def load_simulation(scene: str, time_step: float | None) -> Simulation:
    """The static scene, a scene of demo/scenes by name, or any MJCF file by path."""
    if scene == "static":
        from demo.static_scene import TIME_STEP, StaticScene

        return StaticScene(time_step or TIME_STEP)
    path = Path(scene)
    if not path.suffix:
        path = SCENES_DIR / f"{scene}.xml"
    if not path.is_file():
        raise SystemExit(f"demo.server: no scene '{scene}': give one of {', '.join(scene_names())} or an MJCF file path")
    from coupler.mujoco_simulation import MujocoSimulation

    return MujocoSimulation(path, time_step=time_step)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m demo.server",
        description="Serve a simulated scene to its controllers over the coupler (Click v1) protocol.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--addr", default=DEFAULT_ADDRESS,
                        help="address to bind: tcp://host:port, ipc://path or inproc://name")
    parser.add_argument("--allow-remote", action="store_true",
                        help="allow binding a TCP address other than loopback (reachable from other machines); "
                             "without it such an --addr is refused")
    parser.add_argument("--scene", default="arm",
                        help=f"scene to serve: one of {', '.join(scene_names())}, or a path to an MJCF file")
    parser.add_argument("--mode", choices=["lockstep", "free"], default="lockstep",
                        help="lockstep: one step per Control (Click semantics); "
                             "free: the simulation steps on its own clock with the latest controls")
    parser.add_argument("--realtime", action="store_true",
                        help="in lockstep, never run ahead of the wall clock (sleeps when early)")
    parser.add_argument("--speed", default="1",
                        help="free mode pace as a real-time factor (1 = real time), or 'max' for as fast as possible")
    parser.add_argument("--step", type=float, default=None, metavar="SECONDS",
                        help="override the model's time step; None keeps the model's own")
    parser.add_argument("--stop-after", type=float, default=None, metavar="SECONDS",
                        help="stop after this much simulated time; None runs until interrupted")
    parser.add_argument("--exit-on-error", action="store_true",
                        help="exit when a controller ends its session with an ErrorMessage, "
                             "instead of waiting for the next controller")
    parser.add_argument("--trace", action="store_true", help="log every message received and sent")
    # ---- who drives: one controller at a time, or several in lockstep
    parser.add_argument("--controllers", type=int, default=1, metavar="N",
                        help="how many controllers drive the scene at once, each its own robots (the robots its "
                             "Controls name); with more than one, lockstep steps once every controller's Control "
                             "has arrived. Anyone else asking to drive gets SERVER_BUSY; anyone may read sensors")
    parser.add_argument("--session-timeout", type=float, default=DEFAULT_LEASE, metavar="SECONDS",
                        help="a controller's hold on the simulation lapses after this long without a request from it "
                             "(it matters only when someone else wants in, or others wait for its Control); "
                             "0 never lapses")
    # ---- end who drives
    # ---- server path: native C++ by default, pyzmq with --pure-python
    parser.add_argument("--pure-python", action="store_true",
                        help="serve through pyzmq and the Python codec, every request as a message; by default "
                             "the native C++ server reads each Control into arrays and answers from arrays, "
                             "in both modes (with --trace every request goes through messages); "
                             "both paths send the same frames")
    # ---- end server path
    parser.add_argument("--trace-sizes", action="store_true",
                        help="log the frame sizes received and sent whenever they change")
    # ---- transport security and liveness
    add_server_flags(parser)
    # ---- end transport security and liveness
    args = parser.parse_args(argv)
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
    return args


def transport_options(args: argparse.Namespace) -> tuple[dict[str, Any], str | None]:
    """The server's transport keywords from the flags, and the bind policy's warning for them, if any.

    Exits naming the problem for an address that is refused or key files that cannot be used.
    """
    try:
        transport = server_options(args)
        warning = check_bind_address(args.addr, args.allow_remote, authenticated="curve_key_pair" in transport)
    except Error as error:
        raise SystemExit(f"demo.server: {error}") from None
    return transport, warning


def print_summary(sim: SimulationServer, simulation: Simulation, wall: float, clock: RunClock | None) -> None:
    stats = sim.stats
    simulated = simulation.sensors().simulated_time
    lines = [
        f"simulated time:        {simulated:.4f} s",
        f"wall time:             {wall:.3f} s",
        f"steps:                 {stats.steps}",
        f"steps per wall second: {stats.steps / wall if wall > 0 else 0.0:.1f}",
        f"real-time factor:      {simulated / wall if wall > 0 else 0.0:.3f}",
        f"controls received:     {stats.controls}",
        f"steps without control: {stats.steps_without_control}",
        f"errors sent:           {stats.errors_sent}",
        f"refused, busy:         {stats.refused_busy}",
    ]
    clamped = getattr(simulation, "clamped_values", None)
    if clamped is not None:
        lines.append(f"values clamped:        {clamped}")
    if clock is not None and clock.speed is not None:
        lines.append(f"deadlines missed:      {clock.deadlines_missed}")
    if not sim.lockstep and stats.steps:
        lines.append(f"controller could not keep up: {stats.steps_without_control} of {stats.steps} steps")
    print("\n".join(lines), flush=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if (args.trace or args.trace_sizes) else logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s: %(message)s",
        stream=sys.stdout,
    )
    transport, warning = transport_options(args)
    if warning:
        log.warning("%s", warning)
    simulation = load_simulation(args.scene, args.step)
    for problem in getattr(simulation, "unmapped", []):
        log.warning("not served: %s", problem)
    sim = SimulationServer(simulation, lockstep=args.mode == "lockstep", controllers=args.controllers,
                           session_timeout=args.session_timeout)
    sim.trace = args.trace

    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())

    responder_type = PyzmqResponder if args.pure_python else NativeResponder
    try:
        responder = responder_type(args.addr, sim, trace_sizes=args.trace_sizes, **transport)
    except Error as error:
        raise SystemExit(f"demo.server: {error}") from None
    with responder:
        objects = ", ".join(sim.handshake.objects)
        print(f"serving scene '{args.scene}' ({objects}) on {responder.endpoint}, mode {args.mode}, "
              f"time step {sim.handshake.time_step} s", flush=True)
        clock: RunClock | None = None
        if args.mode == "free":
            clock = RunClock(None if args.speed == "max" else float(args.speed))
            loop: LockstepLoop | FreeRunLoop = FreeRunLoop(responder, clock, args.stop_after, args.exit_on_error)
        else:
            clock = RunClock(1.0) if args.realtime else None
            loop = LockstepLoop(responder, clock, args.stop_after, args.exit_on_error)
        started = time.monotonic()
        loop.run(stop)
        print_summary(sim, simulation, time.monotonic() - started, clock)
    return 0


if __name__ == "__main__":
    sys.exit(main())
