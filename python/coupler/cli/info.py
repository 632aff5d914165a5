"""`coupler info --addr ADDRESS`: what a server serves, as tables, after one handshake."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from coupler.transport.client import Client
from coupler.cli.transport_flags import add_client_flags, client_options
from coupler.serve.app import DEFAULT_ADDRESS
from coupler.wire.errors import ProtocolError
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

# Text the server chose is shown escaped and cut to this many characters.
_MAX_SHOWN = 80


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--addr", default=DEFAULT_ADDRESS,
                        help="the server's address: tcp://host:port or ipc://path (default: %(default)s)")
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
    escaped = text.encode("unicode_escape").decode("ascii")
    return escaped if len(escaped) <= limit else escaped[: limit - 3] + "..."


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


def describe(handshake: HandshakeMessage) -> str:
    """The handshake as a person reads it: one section per table, empty tables left out."""
    sections = ["\n".join([*_server_lines(handshake.server),
                           f"time step: {handshake.time_step} s    protocol version: {handshake.version}"])]
    controls, events, joints, named, object_sensors = [], [], [], [], []
    for name, obj in handshake.objects.items():
        for i, (control, value_type) in enumerate(zip(obj.controls, obj.control_types)):
            # An ACTUATOR_INPUT's unit is what the value goes through (its gain, bias, dynamics), told by the server.
            meaning = _shown(obj.control_meanings[i]) if i < len(obj.control_meanings) else ""
            controls.append([_shown(name), _shown(control), _type(value_type), meaning or value_type.unit,
                             _range(obj.control_ranges, i, value_type.unit)])
        for event, value_type in obj.control_events.items():
            events.append([_shown(name), _shown(event), _type(value_type)])
        for i, joint in enumerate(obj.joint_sensors):
            # Joint limits are in the joint's position units: rad for a hinge, m for a slide.
            joint_types = ", ".join(_type(t) for t in obj.types_of_joint(i))
            joints.append([_shown(name), _shown(joint), joint_types, _range(obj.joint_limits, i, "")])
        for sensor, types in obj.sensors.items():
            # A NUMBER reading's unit is the sensor's own, told by the handshake's sensor_units.
            units = [_shown(obj.sensor_units.get(sensor, "")) if t == ValueType.NUMBER else t.unit for t in types]
            named.append([_shown(name), _shown(sensor), ", ".join(_type(t) for t in types), ", ".join(units)])
        if obj.object_sensors:
            object_sensors.append([_shown(name), ", ".join(_type(t) for t in obj.object_sensors)])
    objects = [[_shown(name), str(len(obj.controls)), str(len(obj.control_events)), str(len(obj.joint_sensors)),
                str(len(obj.sensors))] for name, obj in handshake.objects.items()]
    sections.append(table(["object", "controls", "events", "joint sensors", "named sensors"], objects))
    for header, rows in (
        (["object", "control", "type", "unit", "range"], controls),
        (["object", "event", "type"], events),
        (["object", "joint sensor", "types", "limits (rad, or m for a slide)"], joints),
        (["object", "sensor", "types", "units"], named),
        (["object", "object sensors"], object_sensors),
    ):
        if rows:
            sections.append(table(header, rows))
    return "\n\n".join(sections)


def run(args: argparse.Namespace) -> int:
    with Client(args.addr, timeout=args.timeout, **client_options(args).client_keywords()) as client:
        answer = client.request(HandshakeInitMessage())
        # Leave as the protocol asks: a goodbye only to a server that takes one (a Click server cannot).
        if isinstance(answer, HandshakeMessage) and answer.supports(EXTENSION_GOODBYE):
            client.send(ErrorMessage(code=ErrorCode.SESSION_ENDED, text="coupler info is done"))
    if not isinstance(answer, HandshakeMessage):
        raise ProtocolError(f"{args.addr} answered the handshake with {type(answer).__name__}: {answer}")
    print(describe(answer))
    return 0
