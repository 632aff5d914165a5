"""`coupler info ADDRESS`: what a server serves, as tables, after one handshake."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from coupler.transport.client import Client
from coupler.transport.flags import add_client_flags, client_options
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import HandshakeInitMessage, HandshakeMessage, ValueType


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("address", help="the server's address: tcp://host:port, ipc://path")
    parser.add_argument("--timeout", type=float, default=5.0, metavar="SECONDS",
                        help="give up when the server does not answer in time (default: %(default)s)")
    add_client_flags(parser)


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain-text table whose columns are as wide as their widest cell."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    lines = ["  ".join(str(cell).ljust(width) for cell, width in zip(line, widths)).rstrip()
             for line in [header, ["-" * w for w in widths], *rows]]
    return "\n".join(lines)


def _type(value_type: ValueType) -> str:
    return ValueType(value_type).name


def describe(handshake: HandshakeMessage) -> str:
    """The handshake as a person reads it: one section per table, empty tables left out."""
    sections = [f"time step: {handshake.time_step} s    protocol version: {handshake.version}"]
    controls, events, joints, named, object_sensors = [], [], [], [], []
    for name, obj in handshake.objects.items():
        for control, value_type in zip(obj.controls, obj.control_types):
            controls.append([name, control, _type(value_type), value_type.unit])
        for event, value_type in obj.control_events.items():
            events.append([name, event, _type(value_type)])
        for joint, value_type in zip(obj.joint_sensors, obj.joint_sensor_types):
            joints.append([name, joint, _type(value_type), value_type.unit])
        for sensor, types in obj.sensors.items():
            named.append([name, sensor, ", ".join(_type(t) for t in types), ", ".join(t.unit for t in types)])
        if obj.object_sensors:
            object_sensors.append([name, ", ".join(_type(t) for t in obj.object_sensors)])
    objects = [[name, str(len(obj.controls)), str(len(obj.control_events)), str(len(obj.joint_sensors)),
                str(len(obj.sensors))] for name, obj in handshake.objects.items()]
    sections.append(table(["object", "controls", "events", "joint sensors", "named sensors"], objects))
    for header, rows in (
        (["object", "control", "type", "unit"], controls),
        (["object", "event", "type"], events),
        (["object", "joint sensor", "type", "unit"], joints),
        (["object", "sensor", "types", "units"], named),
        (["object", "object sensors"], object_sensors),
    ):
        if rows:
            sections.append(table(header, rows))
    return "\n\n".join(sections)


def run(args: argparse.Namespace) -> int:
    if not args.timeout > 0:
        raise ProtocolError(f"--timeout must be a positive number of seconds, got {args.timeout}")
    with Client(args.address, timeout=args.timeout, **client_options(args).client_keywords()) as client:
        answer = client.request(HandshakeInitMessage())
    if not isinstance(answer, HandshakeMessage):
        raise ProtocolError(f"{args.address} answered the handshake with {type(answer).__name__}: {answer}")
    print(describe(answer))
    return 0
