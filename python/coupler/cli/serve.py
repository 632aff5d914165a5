"""`coupler serve`: serve a scene (a shipped one, or any MJCF file) to its controllers.

    coupler serve                                   # arm scene, lockstep, tcp://127.0.0.1:5555
    coupler serve --scene two_arms --mode free
    coupler serve --scene path/to/model.xml --realtime
    coupler serve --record run.mcap                 # every frame and MuJoCo state, to MCAP
    coupler serve --publish tcp://127.0.0.1:5556    # the same, to any number of subscribers

The flags become one `ServeOptions` (`options_from`), and `serve_options` assembles the server from it:
the scene and its checks, the recording and publishing observers, the batched worlds.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import signal
import sys
import threading
from typing import TYPE_CHECKING

from coupler.cli.number_flags import float_in, int_in
from coupler.cli.open_files import raise_open_file_limit
from coupler.cli.transport_flags import add_server_flags, server_options
from coupler.cli.world_flags import BatchedResponder, add_world_flags, batched, check_world_flags
from coupler.mujoco.camera_size import DEFAULT_HEIGHT as DEFAULT_CAMERA_HEIGHT
from coupler.mujoco.camera_size import DEFAULT_WIDTH as DEFAULT_CAMERA_WIDTH
from coupler.mujoco.camera_size import MAX_HEIGHT as MAX_CAMERA_HEIGHT
from coupler.mujoco.camera_size import MAX_WIDTH as MAX_CAMERA_WIDTH
from coupler.mujoco.camera_size import CameraSize, parse_camera_size
from coupler.scenes import load_scene, scene_names
from coupler.serve.app import ServeOptions, serve
from coupler.serve.long_control import LONG_CONTROL_STEPS
from coupler.serve.native_responder import NativeResponder
from coupler.serve.responder import Responder
from coupler.serve.simulation import Simulation
from coupler.transport.bind_policy import check_bind_address
from coupler.wire.peer_text import shown
from coupler.wire.errors import Error
from coupler.wire.missing_extra import needs_extra

if TYPE_CHECKING:
    from coupler.record.publisher import FramePublisher
    from coupler.record.recording_process import RecordingProcess

log = logging.getLogger("coupler.serve")

# Limits of the numeric flags: beyond them a value is a typo or an attack on the machine
# (a step of 1e-300 s never advances, a speed of inf spins a core, a million controllers
# never all arrive), never a setting anyone needs.
MIN_STEP, MAX_STEP = 1e-6, 1.0
MIN_SPEED, MAX_SPEED = 1e-3, 1e3
MAX_STOP_AFTER = 1e9
MAX_SESSION_TIMEOUT = 86400.0
MAX_CONTROLLERS = 64
MAX_PUBLISH_HWM = 10**7
LOG_TIME_FLAG = "--log-time"  # also `coupler record`'s
LOG_TIMES = ("wall", "sim")  # coupler.record.log_clock's, which needs the record extra
LOG_TIME_HELP = ("the MCAP log time of {file}'s messages: wall (when they were received) or sim (the simulated "
                 "time, continued across resets, from the wall time of the first message), so that Foxglove plays "
                 "the run at simulation speed")
PUBLISH_HWM_FLAG = "--publish-hwm"  # also `coupler record`'s: the same queue, seen from the subscriber

_speed_number = float_in(MIN_SPEED, MAX_SPEED)


def _speed(text: str) -> float | str:
    return "max" if text == "max" else _speed_number(text)


def _camera_size(text: str) -> tuple[str, int, int]:
    try:
        size = parse_camera_size(text)
    except Error as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return size.camera, size.width, size.height


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of `coupler serve`, with the defaults of `ServeOptions`."""
    defaults = ServeOptions()
    parser.add_argument("--addr", default=defaults.address,
                        help="address to bind: tcp://host:port, ipc://path or inproc://name (default: %(default)s)")
    parser.add_argument("--allow-remote", action="store_true",
                        help="allow binding a TCP address other than loopback (reachable from other machines); "
                             "without it such an --addr is refused (default: off)")
    parser.add_argument("--scene", default=defaults.scene,
                        help=f"scene to serve: one of {', '.join(scene_names())}, or a path to an MJCF file "
                             "(default: %(default)s)")
    parser.add_argument("--serve-empty", action="store_true",
                        help="serve a scene whose handshake holds no robot or object (nothing to control or read); "
                             "without it such a scene is refused at start-up (default: off)")
    parser.add_argument("--serve-partial", action="store_true",
                        help="serve a scene of which some parts cannot be served (a robot with no named body, an actuator "
                             "acting on two robots, ...), leaving those out with a warning naming each; without it "
                             "such a scene is refused at start-up, naming them (default: off)")
    parser.add_argument("--robot", action="append", default=list(defaults.robots), metavar="BODY",
                        help="serve the body BODY with everything below it as one robot (or object) named BODY, "
                             "however the model groups it otherwise: both arms of a robot whose arms sit on a "
                             "static torso, say; repeatable, for bodies not inside one another (default: each "
                             "mechanism mounted on the world or on static bodies is one robot)")
    parser.add_argument("--camera", action="append", type=_camera_size, default=list(defaults.cameras),
                        metavar="NAME=WxH",
                        help="render the model's camera NAME at W x H pixels (at most "
                             f"{MAX_CAMERA_WIDTH}x{MAX_CAMERA_HEIGHT}); repeatable (default: each camera's MJCF "
                             f"resolution, or {DEFAULT_CAMERA_WIDTH}x{DEFAULT_CAMERA_HEIGHT} where it sets none)")
    parser.add_argument("--no-cameras", action="store_true",
                        help="offer none of the model's cameras: the handshake announces no camera and no "
                             "\"images\" extension, as a recording made without them had (default: off)")
    parser.add_argument("--mode", choices=["lockstep", "free"], default=defaults.mode,
                        help="lockstep: one step per Control (Click semantics); free: the simulation steps on its "
                             "own clock with the latest controls (default: %(default)s)")
    parser.add_argument("--realtime", action="store_true",
                        help="in lockstep, never run ahead of the wall clock (sleeps when early) (default: off)")
    parser.add_argument("--speed", type=_speed, default=defaults.speed,
                        help=f"free mode pace as a real-time factor (1 = real time), from {MIN_SPEED:g} to "
                             f"{MAX_SPEED:g}, or 'max' for as fast as possible (default: %(default)g)")
    parser.add_argument("--step", type=float_in(MIN_STEP, MAX_STEP, unit="s"), default=defaults.time_step,
                        metavar="SECONDS",
                        help=f"override the model's time step, from {MIN_STEP:g} to {MAX_STEP:g} s "
                             "(default: the model's own)")
    parser.add_argument("--keyframe", default=defaults.keyframe, metavar="NAME|INDEX",
                        help="start, and reset, at this keyframe of the model (qpos, qvel, act, ctrl, mocap_pos, "
                             "mocap_quat): its name, or its index when no keyframe has that name; an unknown one is "
                             "refused at start-up, listing the model's keyframes. A Reset can ask for any other "
                             "(default: keyframe 0 when the model has keyframes, else the model's reference "
                             "configuration)")
    parser.add_argument("--stop-after", type=float_in(MIN_STEP, MAX_STOP_AFTER, unit="s"),
                        default=defaults.stop_after, metavar="SECONDS",
                        help=f"stop after this much simulated time, from {MIN_STEP:g} to {MAX_STOP_AFTER:g} s: at "
                             f"the first Control reaching it; a Control of more than {LONG_CONTROL_STEPS} steps is cut "
                             "there and answered SessionEnded (default: run until interrupted)")
    parser.add_argument("--exit-on-error", action="store_true",
                        help="exit when a controller ends its session with an ErrorMessage, instead of waiting for "
                             "the next controller (default: off)")
    parser.add_argument("--trace", action="store_true", help="log every message received and sent (default: off)")
    parser.add_argument("--trace-sizes", action="store_true",
                        help="log the frame sizes received and sent whenever they change (default: off)")
    parser.add_argument("--controllers", type=int_in(1, MAX_CONTROLLERS), default=defaults.controllers, metavar="N",
                        help=f"how many controllers drive the scene at once (1 to {MAX_CONTROLLERS}), each its own "
                             "robots (the robots its "
                             "Controls name); with more than one, lockstep steps once every controller's Control "
                             "has arrived. Anyone else asking to drive gets SERVER_BUSY; anyone may read sensors "
                             "(default: %(default)s)")
    parser.add_argument("--session-timeout", type=float_in(MIN_STEP, MAX_SESSION_TIMEOUT, zero_allowed=True, unit="s"),
                        default=defaults.session_timeout, metavar="SECONDS",
                        help="a controller's hold on the simulation lapses after this long without a Control, Reset or "
                             "HandshakeInit from it; reads do not renew it "
                             "(it matters only when someone else wants in, or others wait for its Control); "
                             f"0 never lapses, at most {MAX_SESSION_TIMEOUT:g} (default: %(default)s)")
    parser.add_argument("--record", default=defaults.record, metavar="PATH",
                        help="record every request and answer frame, and the MuJoCo state after each lockstep step "
                             "(in --mode free, at most a thousand a wall second; every world's, with --worlds: `coupler plot`, `render` and `replay` take --world), "
                             "to this MCAP file (protobuf profile; needs the record extra); a process of its own "
                             "writes it, beside it until the server serves, so a server that fails to start leaves "
                             "an existing file as it was (default: no recording)")
    parser.add_argument(LOG_TIME_FLAG, choices=LOG_TIMES, default=defaults.log_time,
                        help=LOG_TIME_HELP.format(file="the --record file") + " (default: %(default)s)")
    parser.add_argument("--overwrite", action="store_true", default=defaults.overwrite,
                        help="replace the --record file if it exists (default: off, an existing file is refused)")
    parser.add_argument("--publish", default=defaults.publish, metavar="ADDRESS",
                        help="publish every frame and the MuJoCo state after each lockstep step (in --mode free, at "
                             "most a thousand a wall second; every world's) on a "
                             "ZeroMQ PUB "
                             "socket bound here (tcp://host:port or ipc://path; loopback unless --allow-remote; "
                             "CURVE like --addr when --curve-secret is given), one topic per message kind, for any "
                             "number of subscribers such as `coupler record` (default: not published)")
    parser.add_argument(PUBLISH_HWM_FLAG, type=int_in(1, MAX_PUBLISH_HWM), default=defaults.publish_hwm, metavar="N",
                        help="messages queued for each subscriber of --publish; a subscriber further behind loses "
                             "messages (it counts them from sequence numbers) and the server never waits for it "
                             "(default: %(default)s)")
    # Plumbing of ServeProcess, which ties a server to its owner: not for people.
    parser.add_argument("--stop-on-stdin-eof", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--remove-on-exit", default=None, metavar="DIR", help=argparse.SUPPRESS)
    add_world_flags(parser, defaults.worlds, defaults.threads)
    add_server_flags(parser)


def check_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse, through `parser.error`, flags that cannot go together or values out of range."""
    if args.controllers > 1 and args.mode != "lockstep":
        parser.error("--controllers above 1 needs --mode lockstep: several controllers step together, "
                     "which free mode's own clock does not do")
    if args.realtime and args.mode != "lockstep":
        parser.error("--realtime applies to --mode lockstep; free mode paces itself with --speed")
    check_world_flags(parser, args)


def options_from(args: argparse.Namespace) -> tuple[ServeOptions, str | None]:
    """The ServeOptions of parsed flags, and the bind policy's warning for them, if any.

    coupler.Error names the problem for an address that is refused or key files that cannot be used.
    """
    transport = server_options(args)
    warning = check_bind_address(args.addr, args.allow_remote, authenticated=transport.curve)
    if args.publish is not None:
        warning = check_bind_address(args.publish, args.allow_remote, authenticated=transport.curve) or warning
    options = ServeOptions(
        address=args.addr, allow_remote=args.allow_remote, scene=args.scene, time_step=args.step,
        serve_empty=args.serve_empty, serve_partial=args.serve_partial, robots=tuple(args.robot),
        cameras=tuple(args.camera), no_cameras=args.no_cameras,
        keyframe=args.keyframe, mode=args.mode, realtime=args.realtime,
        speed=None if args.speed == "max" else args.speed, stop_after=args.stop_after,
        exit_on_error=args.exit_on_error, trace=args.trace, trace_sizes=args.trace_sizes,
        controllers=args.controllers, session_timeout=args.session_timeout, record=args.record, overwrite=args.overwrite,
        log_time=args.log_time,
        publish=args.publish, publish_hwm=args.publish_hwm, worlds=args.worlds, threads=args.threads,
        world_data=args.world_data,
        stop_on_stdin_eof=args.stop_on_stdin_eof, remove_on_exit=args.remove_on_exit, transport=transport,
    )
    return options, warning


def run(args: argparse.Namespace, responder_type: type[Responder] = NativeResponder) -> int:  # type: ignore[assignment]
    """Serve as the flags say; coupler.Error names what stops the server from starting."""
    logging.basicConfig(
        level=logging.INFO if (args.trace or args.trace_sizes) else logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s: %(message)s",
        stream=sys.stdout,
    )
    options, warning = options_from(args)
    if warning:
        log.warning("%s", warning)
    return serve_options(options, responder_type)


def serve_options(options: ServeOptions, responder_type: type[Responder] = NativeResponder) -> int:  # type: ignore[assignment]
    """Assemble the server `options` describe (the scene and its checks, the observers, the worlds) and serve
    until it stops; the exit status. coupler.Error names what stops it from starting. The folder of
    `remove_on_exit` is removed however serving ends."""
    try:
        return _serve_assembled(options, responder_type)
    finally:
        if options.remove_on_exit is not None:
            shutil.rmtree(options.remove_on_exit, ignore_errors=True)


def _serve_assembled(options: ServeOptions, responder_type: type[Responder]) -> int:
    if options.stop_on_stdin_eof:
        _stop_on_stdin_eof()
    raise_open_file_limit()
    simulation = _checked_scene(options)
    cameras_said = _serve_cameras(simulation, options)
    if "mujoco" in sys.modules:
        # Only a MuJoCo scene loads it; its timers would read the clock twice per stage of every step, for no one.
        from coupler.mujoco.profiler_timers import stop_profiler_timers

        stop_profiler_timers()
    publisher, recording = _observers(options, simulation)
    if options.worlds is not None:
        simulation = batched(simulation, options.worlds, options.threads, options.transport.max_frame_bytes,
                             options.world_data)
        responder_type = BatchedResponder
    if cameras_said is not None:
        print(cameras_said, flush=True)  # once the scene is sure to be served: a refusal stays its one line
    status = 1
    try:
        status = serve(simulation, options, scene_name=options.scene, responder_type=responder_type,
                       observer=publisher, on_serving=recording.started if recording is not None else None)
    finally:
        if recording is not None:
            written = recording.close()
            if recording.incomplete is not None:
                print(recording.incomplete, flush=True)
                status = 1
            elif written:
                status = 1  # the writer's own summary says what failed
        if publisher is not None:
            publisher.close()
            if options.publish is not None:
                print(publisher.summary(), flush=True)
    return status


# How many unservable parts a refusal names: its one line stays readable for a model with hundreds.
_UNMAPPED_NAMED = 5


def _checked_scene(options: ServeOptions) -> Simulation:
    """The scene to serve; coupler.Error for one with parts it cannot serve (without --serve-partial) or nothing
    to serve (without --serve-empty)."""
    simulation = load_scene(options.scene, options.time_step, options.robots, options.keyframe)
    time_step = simulation.handshake().time_step
    if not MIN_STEP <= time_step <= MAX_STEP:
        raise Error(f"scene '{shown(options.scene)}' has a time step of {time_step:g} s: coupler serves time steps "
                    f"from {MIN_STEP:g} to {MAX_STEP:g} s, as --step takes (--step overrides the model's)")
    unmapped = list(getattr(simulation, "unmapped", []))
    if unmapped and not options.serve_partial:
        named = "; ".join(unmapped[:_UNMAPPED_NAMED]) + ("; ..." if len(unmapped) > _UNMAPPED_NAMED else "")
        raise Error(f"scene '{options.scene}' has {len(unmapped)} part(s) coupler cannot serve: {named} "
                    "(--serve-partial serves the rest)")
    for problem in unmapped:
        log.warning("not served: %s", problem)
    if not simulation.handshake().objects and not options.serve_empty:
        raise Error(f"scene '{options.scene}' serves nothing: no robot and no object with joints "
                    "(--serve-empty serves it anyway)")
    return simulation


def _serve_cameras(simulation: Simulation, options: ServeOptions) -> str | None:
    """Offer a MuJoCo scene's cameras (the "images" extension); the one line saying so, if any. With --worlds,
    world 0's renderer renders every world."""
    if "coupler.mujoco.simulation" not in sys.modules:
        return None  # not a MuJoCo scene (the static one, served without the sim extra): no camera to offer
    from coupler.mujoco.camera_serving import serve_cameras  # needs MuJoCo, which the scene has loaded
    from coupler.mujoco.simulation import MujocoSimulation

    if not isinstance(simulation, MujocoSimulation):
        return None
    if options.no_cameras:
        if options.cameras:
            raise Error("--camera with --no-cameras: a size is given for a camera that is not served")
        return None
    return serve_cameras(simulation, [CameraSize(*size) for size in options.cameras])


def _observers(options: ServeOptions,
               simulation: Simulation) -> tuple[FramePublisher | None, RecordingProcess | None]:
    """The publisher that --record and --publish share (the recording's writer subscribes first, so it misses
    nothing), or (None, None) without either flag."""
    if options.record is None and options.publish is None:
        return None, None
    with needs_extra("coupler serve --record and --publish", "record"):
        from coupler.record.publisher import FramePublisher
        from coupler.record.recording_process import RecordingProcess
        from coupler.record.scene_record import scene_attachments, scene_metadata
    publisher = FramePublisher(scene_metadata(simulation, options.scene), scene_attachments(simulation))
    recording: RecordingProcess | None = None
    try:
        if options.record is not None:
            recording = RecordingProcess(options.record, publisher, options.overwrite, options.log_time)
        if options.publish is not None:
            endpoint = publisher.bind(options.publish, options.publish_hwm, options.transport)
            print(f"publishing on {endpoint}", flush=True)
    except BaseException:
        if recording is not None:
            recording.close()
        publisher.close()
        raise
    return publisher, recording


def _stop_on_stdin_eof() -> None:
    """Stop as SIGTERM would once standard input closes: how an owner (ServeProcess) ties a server to itself,
    since the kernel closes the pipe whenever the owner ends."""

    def wait_for_eof() -> None:
        # The file descriptor itself: a daemon thread blocked in sys.stdin's buffer aborts the interpreter's exit.
        while os.read(0, 4096):
            pass
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=wait_for_eof, name="stdin watch", daemon=True).start()


def main(argv: list[str] | None = None, prog: str = "coupler serve",
         responder_type: type[Responder] = NativeResponder) -> int:  # type: ignore[assignment]
    """`coupler serve` as a program of its own (`python -m demo.server` runs this)."""
    parser = argparse.ArgumentParser(
        prog=prog, description="Serve a simulated scene to its controllers over the coupler (Click v1) protocol.")
    add_arguments(parser)
    args = parser.parse_args(argv)
    check_arguments(parser, args)
    try:
        return run(args, responder_type)
    except Error as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 1
