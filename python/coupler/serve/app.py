"""The server application: a simulation, a responder bound to an address, the
loop of its mode, and the summary printed on exit. `coupler serve` (and
`python -m demo.server`) parse their flags into `ServeOptions` and call `serve`."""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from coupler import _native, limits
from coupler.serve.controller_sessions import DEFAULT_LEASE
from coupler.serve.frame_observer import NativePublisher, observed
from coupler.serve.free_run_loop import FreeRunLoop
from coupler.serve.lockstep_loop import LockstepLoop
from coupler.serve.memory_trim import memory_given_back
from coupler.serve.native_responder import NativeResponder
from coupler.serve.responder import Responder
from coupler.serve.run_clock import RunClock
from coupler.serve.simulation import Simulation
from coupler.serve.serve_process import SERVING
from coupler.serve.simulation_server import SimulationServer
from coupler.transport.options import TransportOptions
from coupler.wire.peer_text import shown

DEFAULT_ADDRESS = limits.DEFAULT_ADDRESS
DEFAULT_SCENE = "arm"
DEFAULT_PUBLISH_HWM: int = _native.FramePublisher.DEFAULT_HWM  # ZeroMQ's own default, as C++ defines it

log = logging.getLogger("coupler.serve")


@dataclass(frozen=True)
class ServeOptions:
    """How a scene is served: one field per flag of `coupler serve`, whose defaults are the defaults here."""

    address: str = DEFAULT_ADDRESS
    allow_remote: bool = False  # bind a TCP address other than loopback
    scene: str = DEFAULT_SCENE  # a shipped scene's name or an MJCF path
    time_step: float | None = None  # seconds; None keeps the model's own
    keyframe: str | None = None  # a keyframe's name or index to start and reset at; None: keyframe 0, if any
    serve_empty: bool = False  # serve a scene with nothing to control or read
    serve_partial: bool = False  # serve what can be served of a scene, leaving the rest out
    robots: tuple[str, ...] = ()  # bodies each served as one robot with everything below it
    cameras: tuple[tuple[str, int, int], ...] = ()  # (camera, width, height): sizes other than the model's
    no_cameras: bool = False  # announce no camera (the "images" extension) whatever the model has
    mode: Literal["lockstep", "free"] = "lockstep"
    realtime: bool = False  # lockstep: never run ahead of the wall clock
    speed: float | None = 1.0  # free mode: real-time factor; None runs as fast as possible
    stop_after: float | None = None  # simulated seconds; None runs until stopped
    exit_on_error: bool = False  # exit when a controller ends its session
    trace: bool = False  # log every message
    trace_sizes: bool = False  # log frame sizes when they change
    controllers: int = 1
    session_timeout: float = DEFAULT_LEASE
    record: str | None = None  # MCAP file to record to
    overwrite: bool = False  # replace an existing `record` file
    log_time: str = "wall"  # the `record` file's log time: wall (received) or sim (simulated time)
    publish: str | None = None  # address to publish frames and states on
    publish_hwm: int = DEFAULT_PUBLISH_HWM  # messages queued per subscriber of `publish`
    worlds: int | None = None  # copies of the scene driven by the worlds extension; None serves one, without it
    threads: int = 1  # threads stepping the worlds
    world_data: tuple[str, ...] = ()  # mjData arrays sent with every world's readings
    stop_on_stdin_eof: bool = False  # stop when standard input closes (the owner of the process ended)
    remove_on_exit: str | None = None  # a folder the server removes when it stops (its owner's private one)
    transport: TransportOptions = field(default_factory=TransportOptions)


def print_summary(sim: SimulationServer, simulation: Simulation, wall: float, clock: RunClock | None) -> None:
    """What happened, on stdout: time, steps, rates, controls, errors, refusals, clamps, deadlines."""
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


def serve(
    simulation: Simulation,
    options: ServeOptions,
    scene_name: str = "",
    responder_type: type[Responder] = NativeResponder,  # type: ignore[assignment]
    observer: NativePublisher | None = None,
    on_serving: Callable[[], None] | None = None,
) -> int:
    """Serve `simulation` until SIGINT, SIGTERM, `stop_after` or (with `exit_on_error`) a goodbye; print the summary.

    `observer` (the publisher --record and --publish share) sees every request, answer and step (a free run's at most a
    thousand a wall second, `coupler.serve.frame_observer`); `on_serving` is called
    once the address is bound and the serving line printed (a recording is put in place then).
    Raises coupler.Error when the address cannot be bound. Returns the exit status.
    """
    sim = SimulationServer(simulation, lockstep=options.mode == "lockstep", controllers=options.controllers,
                           session_timeout=options.session_timeout)
    sim.trace = options.trace

    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())

    responder = observed(responder_type(options.address, sim, trace_sizes=options.trace_sizes,
                                        **options.transport.server_keywords()), observer)
    with responder:
        # A model's names and a scene's path are anyone's text: a newline or an escape sequence must not reach
        # a terminal or forge a line.
        objects = shown(", ".join(sim.handshake.objects))
        print(f"{SERVING} '{shown(scene_name)}' ({objects}) on {responder.endpoint}, mode {options.mode}, "
              f"time step {sim.handshake.time_step} s", flush=True)
        if on_serving is not None:
            on_serving()
        clock: RunClock | None
        loop: LockstepLoop | FreeRunLoop
        if options.mode == "free":
            clock = RunClock(options.speed)
            loop = FreeRunLoop(responder, clock, options.stop_after, options.exit_on_error)
        else:
            clock = RunClock(1.0) if options.realtime else None
            loop = LockstepLoop(responder, clock, options.stop_after, options.exit_on_error)
        started = time.monotonic()
        with memory_given_back():
            loop.run(stop)
        print_summary(sim, simulation, time.monotonic() - started, clock)
    return 0

