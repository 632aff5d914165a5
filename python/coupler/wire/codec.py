"""One codec for every message kind: message dataclasses <-> wire frames.

Frames are serialized deterministically (map entries sorted by key), as the
C++ codec does, so equal messages give equal bytes in both languages.

Decoding then re-encoding gives back the same bytes for every frame this
encoder produces. A Click frame comes back as protobuf writes it
deterministically: the same bytes, except that map entries Click wrote in
hash order come back sorted. Zero values and empty sub-messages (simSettings,
simVars) are left out, as Click leaves them out.
"""

from __future__ import annotations

import math
from typing import Any

from google.protobuf.message import DecodeError

from coupler.wire import protobuf_parity
from coupler._proto import coupler_pb2 as pb
from coupler.wire.errors import Error, ProtocolError
from coupler.wire.peer_text import shown
from coupler.wire.messages import (
    MESSAGE_TYPES,
    ControlField,
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    Message,
    MessageType,
    ObjectControl,
    ObjectDescription,
    ObjectSensors,
    Range,
    ResetMessage,
    Sensor,
    SensorMessage,
    SensorRequestMessage,
    ServerInfo,
    ValueType,
)

__all__ = ["decode", "encode", "to_proto"]

_PROTO_CLASSES: dict[MessageType, type] = {
    MessageType.HANDSHAKE_INIT: pb.HandshakeInitMessage,
    MessageType.HANDSHAKE: pb.HandshakeMessage,
    MessageType.CONTROL: pb.ControlMessage,
    MessageType.SENSOR: pb.SensorMessage,
    MessageType.SENSOR_REQUEST: pb.SensorRequestMessage,
    MessageType.RESET: pb.ResetMessage,
    MessageType.ERROR: pb.ErrorMessage,
}
_MESSAGE_TYPES = {int(t): t for t in MessageType}
_VALUE_TYPES = {int(t): t for t in ValueType}
_ERROR_CODES = {int(c): c for c in ErrorCode}

# The Sensor oneof field that carries each value type.
_SENSOR_FIELDS: dict[ValueType, str] = {
    ValueType.ANGLE: "angle",
    ValueType.ANGULAR_VELOCITY_1D: "angularVelocity1d",
    ValueType.TORQUE_1D: "torque1d",
    ValueType.POSITION: "position",
    ValueType.RPY: "rpy",
    ValueType.ACTIVATED: "activated",
    ValueType.ACCELERATION_3D: "acceleration3d",
    ValueType.FORCE_3D: "force3d",
    ValueType.TORQUE_3D: "torque3d",
    ValueType.ANGULAR_ACCELERATION_3D: "angularAcceleration3d",
    ValueType.VELOCITY_3D: "velocity3d",
    ValueType.ANGULAR_VELOCITY_3D: "angularVelocity3d",
    ValueType.FORCE_1D: "force1d",
    ValueType.LINEAR_POSITION: "linearPosition",
    ValueType.LINEAR_VELOCITY: "linearVelocity",
    ValueType.NUMBER: "number",
}
# How each value type is carried in a Sensor's oneof, looked up once per
# sensor on the hot path: the field, and whether it is a Vec3, a bool or a double.
_VEC3, _BOOL, _DOUBLE = range(3)
_SENSOR_WRITE = {
    t: (name, _VEC3 if t.width == 3 else _BOOL if t == ValueType.ACTIVATED else _DOUBLE)
    for t, name in _SENSOR_FIELDS.items()
}
_SENSOR_READ = {name: (t, t.width == 3) for t, name in _SENSOR_FIELDS.items()}


def _malformed(text: str) -> ProtocolError:
    return ProtocolError(text, ErrorCode.MALFORMED_FRAME)


def _present(value: float) -> bool:
    """Whether protobuf writes this double: any bit pattern but +0.0 (so -0.0 survives)."""
    return value != 0.0 or math.copysign(1.0, value) < 0.0


def _value_types(values: Any, where: str) -> list[ValueType]:
    try:
        return [_VALUE_TYPES[v] for v in values]
    except KeyError as unknown:
        raise _malformed(f"unknown value type {unknown.args[0]} in {where}") from None


def _value_type(value: int, where: str) -> ValueType:
    return _value_types((value,), where)[0]


# ---- Handshake


def _derived_control_type(message: HandshakeMessage) -> ValueType:
    types = {t for described in message.objects.values() for t in described.control_types}
    return types.pop() if len(types) == 1 else ValueType.MULTIPLE


def _fill_handshake(out: Any, message: HandshakeMessage) -> None:
    out.version = message.version
    control_type = message.control_type
    out.controlType = _derived_control_type(message) if control_type is None else control_type
    for name, described in message.objects.items():
        o = out.objects[name]
        o.controlsInOrder.extend(described.controls)
        o.controlTypesInOrder.extend(described.control_types)
        o.jointSensorsInOrder.extend(described.joint_sensors)
        o.jointSensors.extend(described.joint_sensor_types)
        for event, value_type in described.control_events.items():
            o.controlEvents[event] = value_type
        for sensor, types in described.sensors.items():
            o.sensors[sensor].types.extend(types)
        o.objectSensors.extend(described.object_sensors)
        o.controlTargets.extend(described.control_targets)
        _fill_ranges(o.controlRanges, described.control_ranges)
        _fill_ranges(o.jointLimits, described.joint_limits)
        for sensor, unit in described.sensor_units.items():
            o.sensorUnits[sensor] = unit
    if _present(message.time_step):
        out.simSettings.timeStep = message.time_step
    if message.server is not None:
        out.server.SetInParent()  # present even when every field is empty: it is what says "coupler server"
        out.server.name = message.server.name
        out.server.version = message.server.version
        out.server.extensions.extend(message.server.extensions)
    if message.worlds:
        out.worlds = message.worlds


def _fill_ranges(out: Any, ranges: list[Range]) -> None:
    for r in ranges:
        added = out.add()
        added.min = r.min
        added.max = r.max
        added.limited = r.limited


def _read_ranges(protos: Any) -> list[Range]:
    return [Range(min=r.min, max=r.max, limited=r.limited) for r in protos]


def _read_handshake(proto: Any) -> HandshakeMessage:
    objects = {}
    # protobuf hands maps over in an order of its own, different from run to run: name order, as the C++ codec.
    for name, o in sorted(proto.objects.items()):
        where = f"handshake object '{name}'"
        objects[name] = ObjectDescription(
            controls=o.controlsInOrder[:],
            control_types=_value_types(o.controlTypesInOrder, where),
            joint_sensors=o.jointSensorsInOrder[:],
            joint_sensor_types=_value_types(o.jointSensors, where),
            control_events={event: _value_type(t, where) for event, t in sorted(o.controlEvents.items())},
            sensors={sensor: _value_types(s.types, f"{where} sensor '{sensor}'")
                     for sensor, s in sorted(o.sensors.items())},
            object_sensors=_value_types(o.objectSensors, where),
            control_targets=o.controlTargets[:],
            control_ranges=_read_ranges(o.controlRanges),
            joint_limits=_read_ranges(o.jointLimits),
            sensor_units=dict(sorted(o.sensorUnits.items())),
        )
        if o.controlTargets and len(o.controlTargets) != len(o.controlsInOrder):
            raise ProtocolError(f"{where} has {len(o.controlsInOrder)} controls but {len(o.controlTargets)} "
                                "controlTargets")
    server = None
    if proto.HasField("server"):
        server = ServerInfo(name=proto.server.name, version=proto.server.version, extensions=proto.server.extensions[:])
    return HandshakeMessage(
        objects=objects,
        time_step=proto.simSettings.timeStep,
        version=proto.version,
        control_type=_value_type(proto.controlType, "handshake controlType"),
        server=server,
        worlds=proto.worlds,
    )


# ---- Control


def _fill_control(out: Any, message: ControlMessage) -> None:
    for name, control in message.objects.items():
        o = out.objects[name]
        getattr(o, control.field.value).extend(control.values)
        for event, on in control.events.items():
            o.controlEvents[event] = on
    out.steps = message.steps


_CONTROL_FIELDS = tuple((f, f.value) for f in ControlField)


def _read_control(proto: Any) -> ControlMessage:
    objects = {}
    for name, o in proto.objects.items():
        field, values, lists = ControlField.VALUES, [], 0
        for candidate, attribute in _CONTROL_FIELDS:
            repeated = getattr(o, attribute)
            if len(repeated):
                field, values, lists = candidate, repeated[:], lists + 1
        if lists > 1:
            raise _malformed(
                f"control object '{shown(name)}' sets {lists} of values/angles/angularVelocities/torques; "
                "exactly one is allowed"
            )
        objects[name] = ObjectControl(values=values, events=dict(o.controlEvents), field=field)
    return ControlMessage(objects=objects, steps=proto.steps)


# ---- Sensor


def _fill_sensor(out: Any, sensor: Sensor) -> None:
    written = _SENSOR_WRITE.get(sensor.type)
    if written is None:
        raise Error(f"sensor type {_type_name(sensor.type)} cannot be sent")
    field, kind = written
    value = sensor.value
    if len(value) != (3 if kind == _VEC3 else 1):
        width = ValueType(sensor.type).width
        raise Error(f"a {_type_name(sensor.type)} sensor value has {width} numbers, not {len(value)}")
    if kind == _VEC3:
        getattr(out, field).arr.extend(value)
    elif kind == _BOOL:
        out.activated = bool(value[0])
    else:
        setattr(out, field, value[0])


def _type_name(value_type: int) -> str:
    known = _VALUE_TYPES.get(value_type)
    return str(value_type) if known is None else known.name


def _fill_sensors(out: Any, message: SensorMessage) -> None:
    for name, sensors in message.objects.items():
        o = out.objects[name]
        o.angleSensors.extend(sensors.angles)
        o.angularVelocitySensors.extend(sensors.angular_velocities)
        o.torqueSensors.extend(sensors.torques)
        for force in sensors.forces:
            if len(force) != 3:
                raise Error(f"a joint force sensor value has 3 numbers, not {len(force)}")
            o.forceSensors.add().arr.extend(force)
        for sensor in sensors.object_sensors:
            _fill_sensor(o.objectSensors.add(), sensor)
        for sensor_name, readings in sensors.sensors.items():
            target = o.sensors[sensor_name].sensor
            for sensor in readings:
                _fill_sensor(target.add(), sensor)
    if _present(message.simulated_time):
        out.simVars.simulatedTime = message.simulated_time


def _read_vec3(vec: Any, where: str) -> tuple[float, ...]:
    numbers = vec.arr[:]  # slicing copies out of upb far faster than iterating
    if len(numbers) != 3:
        raise _malformed(f"{where}: a vector has {len(numbers)} numbers, not 3")
    return tuple(numbers)


def _read_sensor_list(protos: Any, where: str) -> list[Sensor]:
    readings = []
    for proto in protos:
        field = proto.WhichOneof("value")
        if field is None:
            raise _malformed(f"{where}: a sensor carries no value")
        value_type, is_vector = _SENSOR_READ[field]
        value = getattr(proto, field)
        readings.append(Sensor(value_type, _read_vec3(value, where) if is_vector else (float(value),)))
    return readings


def _read_sensors(proto: Any) -> SensorMessage:
    objects = {}
    for name, o in proto.objects.items():
        where = f"sensor object '{name}'"
        objects[name] = ObjectSensors(
            angles=o.angleSensors[:],
            angular_velocities=o.angularVelocitySensors[:],
            torques=o.torqueSensors[:],
            forces=[_read_vec3(v, where) for v in o.forceSensors],
            object_sensors=_read_sensor_list(o.objectSensors, where),
            sensors={
                sensor: _read_sensor_list(readings.sensor, f"{where} sensor '{sensor}'")
                for sensor, readings in o.sensors.items()
            },
        )
    return SensorMessage(objects=objects, simulated_time=proto.simVars.simulatedTime)


# ---- Messages without content of their own


def _fill_handshake_init(out: Any, message: HandshakeInitMessage) -> None:
    out.version = message.version


def _fill_error(out: Any, message: ErrorMessage) -> None:
    out.error = message.code
    out.errormessage = message.text


def _fill_reset(out: Any, message: ResetMessage) -> None:
    out.qpos.extend(message.qpos)
    out.qvel.extend(message.qvel)


def _fill_nothing(out: Any, message: Message) -> None:
    pass


def _read_error(proto: Any) -> ErrorMessage:
    # A code this side does not know (a newer peer's) stays a plain int.
    return ErrorMessage(code=_ERROR_CODES.get(proto.error, proto.error), text=proto.errormessage)


_FILL = {
    MessageType.HANDSHAKE_INIT: _fill_handshake_init,
    MessageType.HANDSHAKE: _fill_handshake,
    MessageType.CONTROL: _fill_control,
    MessageType.SENSOR: _fill_sensors,
    MessageType.SENSOR_REQUEST: _fill_nothing,
    MessageType.RESET: _fill_reset,
    MessageType.ERROR: _fill_error,
}

_READ = {
    MessageType.HANDSHAKE_INIT: lambda p: HandshakeInitMessage(version=p.version),
    MessageType.HANDSHAKE: _read_handshake,
    MessageType.CONTROL: _read_control,
    MessageType.SENSOR: _read_sensors,
    MessageType.SENSOR_REQUEST: lambda p: SensorRequestMessage(),
    MessageType.RESET: lambda p: ResetMessage(qpos=p.qpos[:], qvel=p.qvel[:]),
    MessageType.ERROR: _read_error,
}

_KIND_NAMES = {t: t.name.replace("_", " ").title().replace(" ", "") for t in MessageType}


def _unparsable(frame: bytes) -> str:
    """Names the kind a broken frame claims to be, when its first field says (as our frames' does)."""
    if len(frame) >= 2 and frame[0] == 0x08 and frame[1] in _MESSAGE_TYPES:
        kind = _KIND_NAMES[_MESSAGE_TYPES[frame[1]]]
        return f"frame of {len(frame)} bytes is not a valid {kind} message: truncated or corrupt"
    return f"frame of {len(frame)} bytes is not a protobuf message"


def to_proto(message: Message) -> Any:
    """The message's generated protobuf counterpart (for tools that print protobuf text).

    Raises coupler.Error for a value that cannot be sent.
    """
    message_type = MESSAGE_TYPES.get(type(message))
    if message_type is None:
        raise TypeError(f"{type(message).__name__} is not a coupler message")
    proto = _PROTO_CLASSES[message_type]()
    proto.messageType = message_type
    try:
        _FILL[message_type](proto, message)
    except (TypeError, ValueError) as error:
        # protobuf's own checks: out-of-range integers, values of the wrong type.
        raise Error(f"cannot encode {type(message).__name__}: {error}") from error
    return proto


def encode(message: Message) -> bytes:
    """The wire frame of a message, map entries sorted by key.

    HandshakeMessage.control_type None becomes the type all controls share,
    or MULTIPLE when they differ or there are none. Raises coupler.Error for
    a value that cannot be sent (a sensor value of the wrong width, a
    MULTIPLE sensor, a number out of its field's range).
    """
    return protobuf_parity.serialize(to_proto(message))


def decode(frame: bytes) -> Message:
    """Read the message type from field 1, then the whole frame as that kind.

    Raises ProtocolError naming the problem for anything that is not a valid
    message, and nothing else. An empty frame is a HandshakeInit of version 0
    (UNDEFINED); unknown versions and error codes are kept as ints for the
    protocol layer to judge.
    """
    header = pb.Message()
    try:
        header.ParseFromString(frame)
    except DecodeError:
        raise _malformed(_unparsable(frame)) from None
    message_type = _MESSAGE_TYPES.get(header.messageType)
    if message_type is None:
        raise ProtocolError(f"unknown message type {header.messageType}", ErrorCode.UNEXPECTED_MESSAGE)
    proto = _PROTO_CLASSES[message_type]()
    try:
        proto.ParseFromString(frame)
        if protobuf_parity.sets_map_entries_aside(proto):
            proto = protobuf_parity.parse_as_cpp(_PROTO_CLASSES[message_type], frame)
    except DecodeError:
        raise _malformed(f"frame of {len(frame)} bytes is not a valid {_KIND_NAMES[message_type]} message") from None
    return _READ[message_type](proto)
