"""`coupler info`: what a server serves (`--addr`), or would serve (`--scene`), as tables or as JSON.

    coupler info --addr tcp://127.0.0.1:5555   # ask a running server (coupler or Click) for its handshake
    coupler info --scene model.xml             # the handshake `coupler serve --scene model.xml` would send
    coupler info --scene arm --json            # the same as JSON (protobuf's JSON mapping), for scripts

For a scene, the handshake is built by the code a server builds it with
(`coupler.scenes.load_scene`, `coupler.serve.server_info.with_server_info`),
so what is printed is what a server would send.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from google.protobuf import json_format

from coupler._proto import coupler_pb2
from coupler.cli.transport_flags import add_client_flags, client_options
from coupler.scenes import load_scene, scene_names
from coupler.serve.app import DEFAULT_ADDRESS
from coupler.serve.server_info import with_server_info
from coupler.transport.client import Client
from coupler.wire.codec import encode
from coupler.wire.errors import ProtocolError
from coupler.wire.peer_text import shown
from coupler.wire.messages import (
    EXTENSION_GOODBYE,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    Range,
    ServerInfo,
    ValueType,
)

# Text the server chose is shown escaped and cut to this many characters, as any peer's text is
# (`coupler.wire.peer_text`).
_MAX_SHOWN = 80


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--addr", default=DEFAULT_ADDRESS,
                        help="the server's address: tcp://host:port or ipc://path (default: %(default)s)")
    source.add_argument("--scene", default=None,
                        help=f"instead of asking a server, print what `coupler serve --scene SCENE` would announce, "
                             f"without starting one: one of {', '.join(scene_names())}, or a path to an MJCF file; "
                             "parts a server could not serve are listed after the tables (default: ask --addr)")
    parser.add_argument("--json", action="store_true",
                        help="print the handshake as one JSON object (protobuf's JSON mapping of the wire message: "
                             "field names as in proto/coupler.proto, types by name, empty fields included) instead "
                             "of tables (default: tables)")
    add_client_flags(parser)


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain-text table whose columns are as wide as their widest cell."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    lines = ["  ".join(str(cell).ljust(width) for cell, width in zip(line, widths)).rstrip()
             for line in [header, ["-" * w for w in widths], *rows]]
    return "\n".join(lines)


def _type(value_type: ValueType) -> str:
    return ValueType(value_type).name


def _shown(text: str, limit: int = _MAX_SHOWN) -> str:
    return shown(text, limit)


def _server_lines(server: ServerInfo | None) -> list[str]:
    if server is None:
        return ["server: not told (a Click peer)", "extensions: none (Click peer: plain Click v1 only)"]
    # The whole list is bounded too: a server may announce any number of names.
    extensions = _shown(", ".join(server.extensions), 4 * _MAX_SHOWN) or "none"
    return [f"server: {_shown(server.name)} {_shown(server.version)}", f"extensions: {extensions}"]


def _range(ranges: list[Range], i: int, unit: str) -> str:
    """A range as "min .. max unit", "unlimited", or "not told" when the server sent none for it."""
    if i >= len(ranges):
        return "not told"
    r = ranges[i]
    if not r.limited:
        return "unlimited"
    return f"{r.min:g} .. {r.max:g} {unit}".rstrip()


def _units(types: Sequence[ValueType]) -> str:
    return ", ".join(t.unit or "-" for t in types)


def describe(handshake: HandshakeMessage) -> str:
    """The handshake as a person reads it: one section per table, empty tables left out."""
    header = [*_server_lines(handshake.server),
              f"time step: {handshake.time_step} s    protocol version: {handshake.version}"]
    if handshake.keyframes:
        listed = ", ".join(f"{k} '{name}'" if name else f"{k} (unnamed)" for k, name in enumerate(handshake.keyframes))
        header.append(f"keyframes: {_shown(listed, 4 * _MAX_SHOWN)}")
    sections = ["\n".join(header)]
    controls, events, joints, named, object_sensors = [], [], [], [], []
    for name, obj in handshake.objects.items():
        for i, (control, value_type) in enumerate(zip(obj.controls, obj.control_types)):
            # What the control drives: the server's own text, so shown escaped.
            target = _shown(obj.control_targets[i]) if i < len(obj.control_targets) else ""
            # An ACTUATOR_INPUT's unit is what the value goes through (its gain, bias, dynamics), told by the server.
            meaning = _shown(obj.control_meanings[i]) if i < len(obj.control_meanings) else ""
            controls.append([_shown(name), _shown(control), target or "-", _type(value_type),
                             meaning or value_type.unit or "-", _range(obj.control_ranges, i, value_type.unit)])
        for event, value_type in obj.control_events.items():
            events.append([_shown(name), _shown(event), _type(value_type)])
        for i, joint in enumerate(obj.joint_sensors):
            # Joint limits are in the joint's position units: rad for a hinge, m for a slide.
            types = obj.types_of_joint(i)
            joints.append([_shown(name), _shown(joint), ", ".join(_type(t) for t in types), _units(types),
                           _range(obj.joint_limits, i, "")])
        for sensor, types in obj.sensors.items():
            # A NUMBER reading's unit is the sensor's own, told by the handshake's sensor_units.
            units = [_shown(obj.sensor_units.get(sensor, "")) if t == ValueType.NUMBER else t.unit for t in types]
            named.append([_shown(name), _shown(sensor), ", ".join(_type(t) for t in types),
                          ", ".join(u or "-" for u in units)])
        if obj.object_sensors:
            object_sensors.append([_shown(name), ", ".join(_type(t) for t in obj.object_sensors),
                                   _units(obj.object_sensors)])
    objects = [[_shown(name), str(len(obj.controls)), str(len(obj.control_events)), str(len(obj.joint_sensors)),
                str(len(obj.sensors))] for name, obj in handshake.objects.items()]
    sections.append(table(["object", "controls", "events", "joint sensors", "named sensors"], objects))
    cameras = [[_shown(c.name), f"{c.width}x{c.height}", ", ".join(_shown(k) for k in c.kinds),
                f"{c.fx:.6g}, {c.fy:.6g}", f"{c.cx:g}, {c.cy:g}", f"{c.near:.4g} .. {c.far:.4g}", _shown(c.body)]
               for c in handshake.cameras.values()]
    for header, rows in (
        (["object", "control", "drives", "type", "unit", "range"], controls),
        (["object", "event", "type"], events),
        (["object", "joint sensor", "types", "units", "limits (rad, or m for a slide)"], joints),
        (["object", "sensor", "types", "units"], named),
        (["object", "object sensors", "units"], object_sensors),
        (["camera", "size", "kinds", "fx, fy (px)", "cx, cy (px)", "near .. far (m)", "mounted on"], cameras),
    ):
        if rows:
            sections.append(table(header, rows))
    return "\n\n".join(sections)


def as_json(handshake: HandshakeMessage) -> str:
    """The handshake as protobuf's JSON mapping of its wire frame: what a script reads with any JSON parser."""
    message = coupler_pb2.HandshakeMessage.FromString(encode(handshake))
    fields = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    return json.dumps(fields, indent=2, sort_keys=True)


def scene_handshake(scene: str) -> tuple[HandshakeMessage, list[str]]:
    """The handshake `coupler serve --scene SCENE` would announce, and the parts of the scene it cannot serve.

    coupler.Error names a scene that does not load.
    """
    simulation = load_scene(scene)
    from coupler.mujoco.camera_serving import serve_cameras  # needs MuJoCo, which the scene has loaded
    from coupler.mujoco.simulation import MujocoSimulation

    if isinstance(simulation, MujocoSimulation):
        serve_cameras(simulation)
    return with_server_info(simulation.handshake()), list(getattr(simulation, "unmapped", []))


def _server_handshake(args: argparse.Namespace) -> HandshakeMessage:
    with Client(args.addr, timeout=args.timeout, **client_options(args).client_keywords()) as client:
        answer = client.request(HandshakeInitMessage())
        # Leave as the protocol asks: a goodbye only to a server that takes one (a Click server cannot).
        if isinstance(answer, HandshakeMessage) and answer.supports(EXTENSION_GOODBYE):
            client.send(ErrorMessage(code=ErrorCode.SESSION_ENDED, text="coupler info is done"))
    if isinstance(answer, ErrorMessage):
        # Its text escaped and cut, as all a server says is here: a hostile one must not forge lines or flood them.
        raise ProtocolError(f"{args.addr} refused the handshake ({_code_name(answer.code)}): {_shown(answer.text)}")
    if not isinstance(answer, HandshakeMessage):
        raise ProtocolError(f"{args.addr} answered the handshake with a {type(answer).__name__}")
    return answer


def _code_name(code: int) -> str:
    try:
        return ErrorCode(code).name
    except ValueError:
        return f"error code {code}"


def run(args: argparse.Namespace) -> int:
    unmapped: list[str] = []
    if args.scene is not None:
        handshake, unmapped = scene_handshake(args.scene)
    else:
        handshake = _server_handshake(args)
    if args.json:
        print(as_json(handshake))
        return 0
    print(describe(handshake))
    if unmapped:
        # As `coupler serve` names them: it refuses the scene without --serve-partial.
        print(f"\nnot served ({len(unmapped)}; coupler serve refuses the scene without --serve-partial):")
        print("\n".join(f"  {problem}" for problem in unmapped))
    return 0
