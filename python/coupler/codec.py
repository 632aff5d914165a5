"""One codec for every message kind: message dataclasses <-> wire frames.

Frames are serialized deterministically (map entries sorted by key), as the
C++ codec does, so equal messages give equal bytes in both languages.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.message import DecodeError

from coupler._proto import coupler_pb2 as pb
from coupler.errors import Error, ProtocolError
from coupler.messages import (
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
    ResetMessage,
    Sensor,
    SensorMessage,
    SensorRequestMessage,
    ValueType,
)

_PROTO_CLASSES: dict[MessageType, type] = {
    MessageType.HANDSHAKE_INIT: pb.HandshakeInitMessage,
    MessageType.HANDSHAKE: pb.HandshakeMessage,
    MessageType.CONTROL: pb.ControlMessage,
    MessageType.SENSOR: pb.SensorMessage,
    MessageType.SENSOR_REQUEST: pb.SensorRequestMessage,
    MessageType.RESET: pb.ResetMessage,
    MessageType.ERROR: pb.ErrorMessage,
}

_VALUE_TYPES = frozenset(int(t) for t in ValueType)

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
}
_SENSOR_TYPES = {name: value_type for value_type, name in _SENSOR_FIELDS.items()}


def _malformed(text: str) -> ProtocolError:
    return ProtocolError(text, ErrorCode.MALFORMED_FRAME)


def _value_type(value: int, where: str) -> ValueType:
    if value not in _VALUE_TYPES:
        raise _malformed(f"unknown value type {value} in {where}")
    return ValueType(value)


def _value_types(values: Any, where: str) -> list[ValueType]:
    return [_value_type(v, where) for v in values]


# ---- Handshake


def _fill_handshake(out: Any, message: HandshakeMessage) -> None:
    out.version = message.version
    out.controlType = message.control_type if message.control_type is not None else _derived_control_type(message)
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
    out.simSettings.timeStep = message.time_step


def _derived_control_type(message: HandshakeMessage) -> ValueType:
    types = {t for described in message.objects.values() for t in described.control_types}
    return types.pop() if len(types) == 1 else ValueType.MULTIPLE


def _read_handshake(proto: Any) -> HandshakeMessage:
    objects = {}
    for name, o in proto.objects.items():
        where = f"handshake object '{name}'"
        objects[name] = ObjectDescription(
            controls=list(o.controlsInOrder),
            control_types=_value_types(o.controlTypesInOrder, where),
            joint_sensors=list(o.jointSensorsInOrder),
            joint_sensor_types=_value_types(o.jointSensors, where),
            control_events={event: _value_type(t, where) for event, t in o.controlEvents.items()},
            sensors={sensor: _value_types(s.types, where) for sensor, s in o.sensors.items()},
            object_sensors=_value_types(o.objectSensors, where),
        )
    return HandshakeMessage(
        objects=objects,
        time_step=proto.simSettings.timeStep,
        version=proto.version,
        control_type=_value_type(proto.controlType, "handshake controlType"),
    )


# ---- Control


def _fill_control(out: Any, message: ControlMessage) -> None:
    for name, control in message.objects.items():
        o = out.objects[name]
        getattr(o, control.field.value).extend(control.values)
        for event, on in control.events.items():
            o.controlEvents[event] = on
    out.steps = message.steps


def _read_control(proto: Any) -> ControlMessage:
    objects = {}
    for name, o in proto.objects.items():
        lists = [f for f in ControlField if len(getattr(o, f.value))]
        if len(lists) > 1:
            raise _malformed(
                f"control object '{name}' sets {len(lists)} of values/angles/angularVelocities/torques; "
                "exactly one is allowed"
            )
        field = lists[0] if lists else ControlField.VALUES
        objects[name] = ObjectControl(values=list(getattr(o, field.value)), events=dict(o.controlEvents), field=field)
    return ControlMessage(objects=objects, steps=proto.steps)


# ---- Sensor


def _fill_sensor(out: Any, sensor: Sensor) -> None:
    if len(sensor.value) != sensor.type.width:
        raise Error(f"a {sensor.type.name} sensor value has {sensor.type.width} numbers, not {len(sensor.value)}")
    field = _SENSOR_FIELDS.get(sensor.type)
    if field is None:
        raise Error(f"sensor type {sensor.type.name} cannot be sent")
    if sensor.type.width == 3:
        getattr(out, field).arr.extend(sensor.value)
    elif sensor.type == ValueType.ACTIVATED:
        out.activated = bool(sensor.value[0])
    else:
        setattr(out, field, sensor.value[0])


def _read_vec3(vec: Any, where: str) -> tuple[float, ...]:
    if len(vec.arr) != 3:
        raise _malformed(f"{where}: a vector has {len(vec.arr)} numbers, not 3")
    return tuple(vec.arr)


def _read_sensor(proto: Any, where: str) -> Sensor:
    field = proto.WhichOneof("value")
    if field is None:
        raise _malformed(f"{where}: a sensor carries no value")
    value_type = _SENSOR_TYPES[field]
    if value_type.width == 3:
        return Sensor(value_type, _read_vec3(getattr(proto, field), where))
    return Sensor(value_type, (float(getattr(proto, field)),))


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
    out.simVars.simulatedTime = message.simulated_time


def _read_sensors(proto: Any) -> SensorMessage:
    objects = {}
    for name, o in proto.objects.items():
        where = f"sensor object '{name}'"
        objects[name] = ObjectSensors(
            angles=list(o.angleSensors),
            angular_velocities=list(o.angularVelocitySensors),
            torques=list(o.torqueSensors),
            forces=[_read_vec3(v, where) for v in o.forceSensors],
            object_sensors=[_read_sensor(s, where) for s in o.objectSensors],
            sensors={
                sensor: [_read_sensor(s, f"{where} sensor '{sensor}'") for s in readings.sensor]
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


def _fill_nothing(out: Any, message: Message) -> None:
    pass


_FILL = {
    MessageType.HANDSHAKE_INIT: _fill_handshake_init,
    MessageType.HANDSHAKE: _fill_handshake,
    MessageType.CONTROL: _fill_control,
    MessageType.SENSOR: _fill_sensors,
    MessageType.SENSOR_REQUEST: _fill_nothing,
    MessageType.RESET: _fill_nothing,
    MessageType.ERROR: _fill_error,
}

_READ = {
    MessageType.HANDSHAKE_INIT: lambda p: HandshakeInitMessage(version=p.version),
    MessageType.HANDSHAKE: _read_handshake,
    MessageType.CONTROL: _read_control,
    MessageType.SENSOR: _read_sensors,
    MessageType.SENSOR_REQUEST: lambda p: SensorRequestMessage(),
    MessageType.RESET: lambda p: ResetMessage(),
    MessageType.ERROR: lambda p: ErrorMessage(code=p.error, text=p.errormessage),
}

_KNOWN_TYPES = frozenset(int(t) for t in MessageType)


def to_proto(message: Message) -> Any:
    """The message's generated protobuf counterpart (for tools that print protobuf text)."""
    message_type = MESSAGE_TYPES[type(message)]
    proto = _PROTO_CLASSES[message_type]()
    proto.messageType = message_type
    _FILL[message_type](proto, message)
    return proto


def encode(message: Message) -> bytes:
    """The wire frame of a message. Raises coupler.Error for a value that cannot be sent."""
    return to_proto(message).SerializeToString(deterministic=True)


def decode(frame: bytes) -> Message:
    """Read the message type from field 1, then the whole frame as that kind.

    Raises ProtocolError naming the problem for anything that is not a valid
    message. An empty frame is a HandshakeInit of version 0 (UNDEFINED).
    """
    header = pb.Message()
    try:
        header.ParseFromString(frame)
    except DecodeError:
        raise _malformed(f"frame of {len(frame)} bytes is not a protobuf message") from None
    if header.messageType not in _KNOWN_TYPES:
        raise ProtocolError(f"unknown message type {header.messageType}", ErrorCode.UNEXPECTED_MESSAGE)
    message_type = MessageType(header.messageType)
    proto = _PROTO_CLASSES[message_type]()
    try:
        proto.ParseFromString(frame)
    except DecodeError:
        kind = message_type.name.replace("_", " ").title().replace(" ", "")
        raise _malformed(f"frame of {len(frame)} bytes is not a valid {kind} message") from None
    return _READ[message_type](proto)
