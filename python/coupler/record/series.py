"""A recording as time series: per object, each Control's values and the joint readings answering it, each
control paired with the joint its actuator drives (the handshake's `controlTargets`), with their units."""

from __future__ import annotations

from dataclasses import dataclass, field

from coupler.record.recording import Recorded, Recording, RecordingError
from coupler.wire.codec import decode
from coupler.wire.errors import Error
from coupler.wire.messages import ControlMessage, HandshakeMessage, Message, SensorMessage, ValueType
from coupler.wire.peer_text import shown


@dataclass
class ObjectSeries:
    controls: list[str]
    angles: list[str]  # the joint sensors, in the order of the Sensor's angle list (empty: no angle readings)
    # per control, the joint sensor it drives ("" when it drives none, or the server does not say)
    targets: list[str] = field(default_factory=list)
    control_units: list[str] = field(default_factory=list)  # per control, as an axis names it
    angle_units: list[str] = field(default_factory=list)  # per joint sensor: rad, or m for a slide
    time: list[float] = field(default_factory=list)
    control_values: list[list[float]] = field(default_factory=list)  # per sample, one value per control
    angle_values: list[list[float]] = field(default_factory=list)

    def driven(self) -> list[tuple[str, int, int]]:
        """(control name, control index, angle index) of every control driving a joint that has angle readings:
        the target the handshake names, else (a server that names none) the joint sensor of the same name."""
        pairs = []
        for c, name in enumerate(self.controls):
            target = self.targets[c] if c < len(self.targets) and self.targets[c] else name
            if target in self.angles:
                pairs.append((name, c, self.angles.index(target)))
        return pairs

    def tracked(self) -> list[tuple[str, int, int]]:
        """The driven pairs whose control is a position in the joint's own unit (a servo's set point): those
        with a tracking error; a torque or force has none."""
        return [(name, c, a) for name, c, a in self.driven() if self.control_units[c] == self.angle_units[a]]


def _decoded(message: Recorded, number: int, kind: type[Message]) -> Message:
    """The message recorded on a topic of `kind`; RecordingError for one that is not a frame of that kind."""
    try:
        decoded = decode(message.data)
    except Error as error:
        raise RecordingError(f"message {number} of the recording ({shown(message.topic)}) is not a frame: "
                             f"{error}") from None
    if not isinstance(decoded, kind):
        raise RecordingError(f"message {number} of the recording, on {shown(message.topic)}, is a "
                             f"{type(decoded).__name__}, not a {kind.__name__}")
    return decoded


def _control_units(controls: list[str], types: list[ValueType]) -> list[str]:
    """Per control its unit, or what stands for one: an actuator's own units, none, or not given (a server
    that does not say each control's type)."""
    units = [kind.unit or ("actuator units" if kind == ValueType.ACTUATOR_INPUT else "no unit") for kind in types]
    return units + ["unit not given"] * (len(controls) - len(units))


def series(recording: Recording) -> dict[str, ObjectSeries]:
    """Every object's controls and angle readings at the simulated time of each Control's answer."""
    objects: dict[str, ObjectSeries] = {}
    control: ControlMessage | None = None
    for number, message in enumerate(recording):
        if message.kind == "Handshake" and message.answer:
            handshake = _decoded(message, number, HandshakeMessage)
            assert isinstance(handshake, HandshakeMessage)
            for name, description in handshake.objects.items():
                # joint_sensor_types are the readings every joint sensor gives; angles come in joint order.
                has_angles = ValueType.ANGLE in description.joint_sensor_types
                angles = list(description.joint_sensors) if has_angles else []
                angle_units = ["m" if ValueType.LINEAR_POSITION in description.types_of_joint(j) else "rad"
                               for j in range(len(angles))]
                objects.setdefault(name, ObjectSeries(
                    list(description.controls), angles, list(description.control_targets),
                    _control_units(description.controls, description.control_types), angle_units))
        elif message.request:
            decoded = _decoded(message, number, ControlMessage) if message.kind == "Control" else None
            control = decoded if isinstance(decoded, ControlMessage) else None
        elif message.kind == "Sensor" and message.answer and control is not None:
            sensors = _decoded(message, number, SensorMessage)
            assert isinstance(sensors, SensorMessage)
            for name, values in control.objects.items():
                found = objects.get(name)
                if found is None or name not in sensors.objects or len(values.values) != len(found.controls):
                    continue
                found.time.append(sensors.simulated_time)
                found.control_values.append(list(values.values))
                found.angle_values.append(list(sensors.objects[name].angles))
            control = None
    return {name: s for name, s in objects.items() if s.time}
