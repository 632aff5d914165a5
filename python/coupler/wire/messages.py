"""The protocol's messages as plain Python values.

Each message kind is a dataclass; `coupler.wire.codec`, the C++ codec bound
into Python, turns them into wire frames and back, reading and writing their
fields by name (python/native/codec_binding.cpp). User code never touches
generated protobuf classes. Field names are the C++ structs' (coupler/messages.hpp),
so a reader of one language can read the other.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from typing import Union

from coupler import _native

__all__ = [
    "MESSAGE_TYPES",
    "PROTOCOL_VERSION",
    "ControlField",
    "ControlMessage",
    "ErrorCode",
    "ErrorMessage",
    "HandshakeInitMessage",
    "HandshakeMessage",
    "Message",
    "MessageType",
    "ObjectControl",
    "ObjectDescription",
    "ObjectSensors",
    "Range",
    "ServerInfo",
    "ResetMessage",
    "Sensor",
    "SensorMessage",
    "SensorRequestMessage",
    "ValueType",
    "EXTENSION_GOODBYE",
    "EXTENSION_RANGES",
    "EXTENSION_STEPS",
    "EXTENSION_VALUE_TYPES",
    "EXTENSION_WORLDS",
    "EXTENSION_KEYFRAMES",
    "EXTENSION_MOCAP",
    "EXTENSION_IMAGES",
    "EXTENSION_SHARED_MEMORY",
    "SharedMemoryRing",
    "SharedSlice",
    "IMAGE_BYTES_PER_PIXEL",
    "IMAGE_KINDS",
    "CameraDescription",
    "Image",
    "ImageRequest",
]


_protocol = _native.protocol

MessageType = IntEnum("MessageType", _protocol.message_types, module=__name__)
ErrorCode = IntEnum("ErrorCode", _protocol.error_codes, module=__name__)


class _ValueTypeUnits(IntEnum):
    """What a control or sensor value means; the unit is fixed per type (coupler/wire/types.hpp lists them)."""

    @property
    def width(self) -> int:
        """How many numbers one value of this type has (1 or 3)."""
        return _protocol.value_type_widths[self]

    @property
    def unit(self) -> str:
        """The SI unit every value of this type carries ("" for on/off, the scene-wide MULTIPLE, an actuator's
        own input, a NUMBER, whose unit its sensor names, and a quaternion component)."""
        return _protocol.value_type_units[self]


# ANGLE, ANGULAR_VELOCITY_1D, ..., MULTIPLE (only as the scene-wide control type); from 100 the coupler
# extensions "value-types" (LINEAR_POSITION ... NUMBER) and "mocap" (MOCAP_POSITION, MOCAP_QUATERNION).
ValueType = _ValueTypeUnits("ValueType", _protocol.value_types, module=__name__, qualname="ValueType")


class ControlField(Enum):
    """Which list of a control object carries its values on the wire.

    VALUES is the current spelling; the others are Click's deprecated
    single-type spellings, kept so that such frames re-encode unchanged.
    """

    VALUES = "values"
    ANGLES = "angles"
    ANGULAR_VELOCITIES = "angularVelocities"
    TORQUES = "torques"


PROTOCOL_VERSION: int = _protocol.version

# The coupler extensions a server announces by name in its handshake (ServerInfo.extensions); a client uses one
# only when it is announced. What each adds: coupler/wire/messages.hpp and docs/protocol.md.
_extensions = _protocol.extensions
EXTENSION_STEPS: str = _extensions["STEPS"]
EXTENSION_GOODBYE: str = _extensions["GOODBYE"]
EXTENSION_RANGES: str = _extensions["RANGES"]
EXTENSION_VALUE_TYPES: str = _extensions["VALUE_TYPES"]
EXTENSION_WORLDS: str = _extensions["WORLDS"]
EXTENSION_MOCAP: str = _extensions["MOCAP"]
EXTENSION_KEYFRAMES: str = _extensions["KEYFRAMES"]
EXTENSION_IMAGES: str = _extensions["IMAGES"]
EXTENSION_SHARED_MEMORY: str = _extensions["SHARED_MEMORY"]
# What a camera can render, and the bytes of one pixel of each kind (coupler/wire/image_kinds.hpp).
IMAGE_KINDS: tuple[str, ...] = _protocol.image_kinds
IMAGE_BYTES_PER_PIXEL: dict[str, int] = _protocol.image_bytes_per_pixel


@dataclass
class CameraDescription:
    """coupler extension "images": one camera of the scene.

    Pixel (u, v), u to the right and v down from the top-left pixel's centre,
    sees the point (x, y, z) of the camera's frame (x right, y up, looking
    along -z) at u = cx + fx x / -z, v = cy - fy y / -z.
    """

    name: str = ""
    width: int = 0  # pixels
    height: int = 0
    kinds: list[str] = field(default_factory=list)
    fx: float = 0.0  # pixels
    fy: float = 0.0
    cx: float = 0.0
    cy: float = 0.0
    near: float = 0.0  # m along the optical axis
    far: float = 0.0
    body: str = ""  # the body it is mounted on
    position: list[float] = field(default_factory=list)  # m, in the body's frame
    quaternion: list[float] = field(default_factory=list)  # w, x, y, z, in the body's frame


@dataclass
class ImageRequest:
    """coupler extension "images": which images of one camera an answer carries; with `every`, only when the
    step it reports is a multiple of that many steps."""

    camera: str = ""
    kinds: list[str] = field(default_factory=list)
    every: int | None = None


@dataclass
class SharedSlice:
    """coupler extension "shm": where a payload lies in the ring: buffer `slot`, written as `sequence`,
    `length` bytes from `offset` in that buffer."""

    slot: int = 0
    sequence: int = 0
    offset: int = 0
    length: int = 0


@dataclass
class SharedMemoryRing:
    """coupler extension "shm": `slots` buffers of `slot_bytes` bytes in one file only the server's user can
    open (`path`, /proc/PID/fd/N of a memfd), buffer i's data from `data_offset` + i `slot_bytes`; an answer's
    payloads that reach `min_bytes` together travel in one buffer."""

    path: str = ""
    slots: int = 0
    slot_bytes: int = 0
    data_offset: int = 0
    min_bytes: int = 0


@dataclass
class Image:
    """coupler extension "images": one rendered image, rows from the top of the picture down (see IMAGE_KINDS)."""

    camera: str = ""
    kind: str = ""
    width: int = 0
    height: int = 0
    time: float = 0.0  # s, the simulated time it shows
    data: bytes = field(default=b"", repr=False)  # a trace shows the image, not its megabytes
    # coupler extension "shm": the pixels lie in the shared memory there instead of in data.
    shared: SharedSlice | None = None


@dataclass
class HandshakeInitMessage:
    version: int = PROTOCOL_VERSION
    # coupler extension "shm": lease the server's shared channel (plain Controls and reads through shared memory).
    shared_channel: bool = False


@dataclass
class Range:
    """A closed interval [min, max]; limited False means unlimited (min and max then mean nothing)."""

    min: float = 0.0
    max: float = 0.0
    limited: bool = False


@dataclass
class ServerInfo:
    """Who serves (a coupler extension of the handshake), and which extensions it takes."""

    name: str = ""
    version: str = ""
    extensions: list[str] = field(default_factory=list)


@dataclass
class ObjectDescription:
    """One robot or object of a scene, as the handshake describes it."""

    controls: list[str] = field(default_factory=list)
    control_types: list[ValueType] = field(default_factory=list)
    joint_sensors: list[str] = field(default_factory=list)
    joint_sensor_types: list[ValueType] = field(default_factory=list)
    control_events: dict[str, ValueType] = field(default_factory=dict)
    sensors: dict[str, list[ValueType]] = field(default_factory=dict)
    object_sensors: list[ValueType] = field(default_factory=list)
    # coupler extension: per control, what it drives (a joint sensor's name for a joint actuator); may be empty.
    control_targets: list[str] = field(default_factory=list)
    # coupler extension "ranges": one per control (in the units the controller
    # sends) and one per joint sensor; empty from a server without it.
    control_ranges: list[Range] = field(default_factory=list)
    joint_limits: list[Range] = field(default_factory=list)
    # coupler extension "value-types": per named sensor with NUMBER readings, their unit.
    sensor_units: dict[str, str] = field(default_factory=dict)
    # coupler extension "value-types": per joint sensor, joint after joint, the types of its readings
    # (a slide's LINEAR_POSITION, LINEAR_VELOCITY, FORCE_1D); empty: joint_sensor_types for every joint.
    joint_types: list[ValueType] = field(default_factory=list)
    # coupler extension "value-types": per control, what an ACTUATOR_INPUT value goes through; may be empty.
    control_meanings: list[str] = field(default_factory=list)

    def types_of_joint(self, joint: int) -> list[ValueType]:
        """The types of joint sensor `joint`'s readings: its joint_types, or joint_sensor_types without them."""
        width = len(self.joint_sensor_types)
        if not width or len(self.joint_types) != len(self.joint_sensors) * width or joint >= len(self.joint_sensors):
            return list(self.joint_sensor_types)
        return self.joint_types[joint * width : (joint + 1) * width]


@dataclass
class HandshakeMessage:
    objects: dict[str, ObjectDescription] = field(default_factory=dict)
    time_step: float = 0.0
    version: int = PROTOCOL_VERSION
    # None: derived when encoding (the common type, or MULTIPLE).
    control_type: ValueType | None = None
    # coupler extension: None from a Click server, which then takes plain Click v1 only.
    server: ServerInfo | None = None
    # coupler extension "worlds": how many copies of the scene the server steps (0: one, without the extension).
    worlds: int = 0
    # coupler extension "keyframes": the model's keyframes in index order ("" for an unnamed one).
    keyframes: list[str] = field(default_factory=list)
    # coupler extension "images": the cameras images can be asked of, and the largest size a camera may have.
    cameras: dict[str, CameraDescription] = field(default_factory=dict)  # by name
    max_image_width: int = 0
    max_image_height: int = 0
    # coupler extension "shm": the ring a client on the same host may map (None: none offered).
    shared_memory: SharedMemoryRing | None = None
    # coupler extension "shm": the shared channel leased to the client that asked for it ("": none).
    shared_channel: str = ""

    def supports(self, extension: str) -> bool:
        """Whether the server announced this coupler extension (never, for a Click server)."""
        return self.server is not None and extension in self.server.extensions

    def scene(self) -> HandshakeMessage:
        """This handshake without what belongs to the serving process rather than to its scene: the shared memory
        it offers (ring, channel and the "shm" extension), which depends on the address and the process."""
        server = self.server
        if server is not None and EXTENSION_SHARED_MEMORY in server.extensions:
            server = dataclasses.replace(server, extensions=[e for e in server.extensions
                                                             if e != EXTENSION_SHARED_MEMORY])
        return dataclasses.replace(self, server=server, shared_memory=None, shared_channel="")


@dataclass
class ObjectControl:
    values: list[float] = field(default_factory=list)
    events: dict[str, bool] = field(default_factory=dict)
    field: ControlField = ControlField.VALUES


@dataclass
class ControlMessage:
    objects: dict[str, ObjectControl] = field(default_factory=dict)
    # coupler extension: hold the controls for this many steps; 0 means one.
    steps: int = 0
    # coupler extension "worlds": a Control for every world at once, for this
    # many worlds (0: an ordinary Control). Per world (world-major), its control
    # values in the control layout's order, then one number per control event
    # (nonzero: on); empty steps no world. `coupler.wire.world_frames` reads
    # and writes them as NumPy arrays.
    worlds: int = 0
    world_controls: list[float] = field(default_factory=list)
    # The worlds to reset (ascending, each once) instead of stepping them, to
    # one whole qpos (qvel) per world listed, or to the scene's initial state when empty.
    reset_worlds: list[int] = field(default_factory=list)
    reset_qpos: list[float] = field(default_factory=list)
    reset_qvel: list[float] = field(default_factory=list)
    # coupler extension "images": the answer carries these images of the state after the step.
    images: list[ImageRequest] = field(default_factory=list)
    # coupler extension "shm": the answer's big payloads through the announced shared memory.
    shared_memory: bool = False
    # "worlds" and "images" together: the worlds whose images the answer to a
    # Control for every world carries (ascending); empty: every world.
    image_worlds: list[int] = field(default_factory=list)


@dataclass
class Sensor:
    """One typed sensor reading: 1 number for scalar and bool types, 3 for vec3."""

    type: ValueType
    value: tuple[float, ...]


@dataclass
class ObjectSensors:
    angles: list[float] = field(default_factory=list)
    angular_velocities: list[float] = field(default_factory=list)
    torques: list[float] = field(default_factory=list)
    forces: list[tuple[float, ...]] = field(default_factory=list)
    object_sensors: list[Sensor] = field(default_factory=list)
    sensors: dict[str, list[Sensor]] = field(default_factory=dict)


@dataclass
class SensorMessage:
    objects: dict[str, ObjectSensors] = field(default_factory=dict)
    simulated_time: float = 0.0
    # coupler extension "worlds", the answer to a Control for every world: per
    # world (world-major), its readings in the sensor layout's order, and each
    # world's simulated time (s).
    world_sensors: list[float] = field(default_factory=list)
    world_times: list[float] = field(default_factory=list)
    # Per world (world-major), the MuJoCo arrays the server was asked to send
    # (`coupler serve --world-data`), each read right after the world's step.
    world_data: list[float] = field(default_factory=list)
    # coupler extension "images": the images asked for, of the state above.
    images: list[Image] = field(default_factory=list)
    # "worlds" and "images" together, the answer to a Control for every world
    # asking for images: per camera and kind, one Image whose data holds the
    # images of the worlds image_worlds lists, one after another (time unset).
    world_images: list[Image] = field(default_factory=list)
    image_worlds: list[int] = field(default_factory=list)
    # "worlds" and "shm" together: world_sensors and world_data lie in the shared memory there instead (float64,
    # world-major), and are then left empty.
    world_sensors_shared: SharedSlice | None = None
    world_data_shared: SharedSlice | None = None


@dataclass
class SensorRequestMessage:
    # coupler extension "images": the answer carries these images.
    images: list[ImageRequest] = field(default_factory=list)
    # coupler extension "shm": the answer's big payloads through the announced shared memory.
    shared_memory: bool = False


@dataclass
class ResetMessage:
    # coupler extension: the state to start from after the reset (MuJoCo
    # qpos and qvel, complete); empty means the scene's own initial state.
    qpos: list[float] = field(default_factory=list)
    qvel: list[float] = field(default_factory=list)
    # coupler extension "keyframes": reset to this keyframe of the handshake's
    # instead, by name or by index (at most one); qpos and qvel, when given, replace its own.
    keyframe: str = ""
    keyframe_index: int | None = None


@dataclass
class ErrorMessage:
    code: int = ErrorCode.VERSION_NOT_SUPPORTED
    text: str = ""


Message = Union[
    HandshakeInitMessage,
    HandshakeMessage,
    ControlMessage,
    SensorMessage,
    SensorRequestMessage,
    ResetMessage,
    ErrorMessage,
]

MESSAGE_TYPES: dict[type, MessageType] = {
    HandshakeInitMessage: MessageType.HANDSHAKE_INIT,
    HandshakeMessage: MessageType.HANDSHAKE,
    ControlMessage: MessageType.CONTROL,
    SensorMessage: MessageType.SENSOR,
    SensorRequestMessage: MessageType.SENSOR_REQUEST,
    ResetMessage: MessageType.RESET,
    ErrorMessage: MessageType.ERROR,
}
