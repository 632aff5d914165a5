"""The protocol's messages as plain Python values.

Each message kind is a dataclass made from the C++ struct of the same name
(coupler/wire/messages.hpp, whose comments say what each field means and in
which unit): the binding exports every struct's fields with their order and
defaults, and `coupler.wire.codec`, the C++ codec bound into Python, turns
these dataclasses into wire frames and back by the same table
(python/native/message_fields.hpp). The enums and constants come from the
C++ headers the same way. User code never touches generated protobuf classes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import field
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


# Which list of a control object carries its values on the wire: VALUES is the current spelling, the others
# Click's deprecated single-type spellings, kept so that such frames re-encode unchanged.
ControlField = Enum("ControlField", _protocol.control_fields, module=__name__)


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


_ENUMS = {"ValueType": ValueType, "ErrorCode": ErrorCode, "ControlField": ControlField}
# Per message struct, (field, annotation, default) in the C++ struct's order (python/native/message_fields.hpp).
_FIELDS: dict[str, list[tuple[str, str, object]]] = {name: fields for name, fields in _protocol.message_fields}


def _field(annotation: str, default: object) -> dataclasses.Field:
    if isinstance(default, (list, dict)):
        return field(default_factory=type(default))
    enum = _ENUMS.get(annotation.split(" ")[0])
    if enum is not None and default is not None:
        default = enum(default)
    # A trace shows an image, not its megabytes.
    return field(default=default, repr=annotation != "bytes")


def _message(name: str, doc: str, **methods: object) -> type:
    """The dataclass of the C++ struct `name` (coupler/wire/messages.hpp): its fields, their order and their
    defaults are that struct's, so that the codec converts one into the other field by field."""
    made = dataclasses.make_dataclass(
        name, [(f, annotation, _field(annotation, default)) for f, annotation, default in _FIELDS[name]],
        namespace=methods)
    made.__module__ = __name__
    made.__doc__ = doc
    for method_name, method in methods.items():
        method.__name__, method.__qualname__ = method_name, f"{name}.{method_name}"  # type: ignore[attr-defined]
    return made


def _types_of_joint(self, joint: int) -> list[ValueType]:
    """The types of joint sensor `joint`'s readings: its joint_types, or joint_sensor_types without them."""
    return _protocol.types_of_joint(self, joint)


def _supports(self, extension: str) -> bool:
    """Whether the server announced this coupler extension (never, for a Click server)."""
    return self.server is not None and extension in self.server.extensions


def _scene(self) -> HandshakeMessage:
    """This handshake without what belongs to the serving process rather than to its scene: the shared memory
    it offers (ring, channel and the "shm" extension), which depends on the address and the process."""
    server = self.server
    if server is not None and EXTENSION_SHARED_MEMORY in server.extensions:
        server = dataclasses.replace(server, extensions=[e for e in server.extensions if e != EXTENSION_SHARED_MEMORY])
    return dataclasses.replace(self, server=server, shared_memory=None, shared_channel="")


Range = _message("Range", "A closed interval [min, max]; limited False means unlimited (min and max then mean nothing).")
ServerInfo = _message("ServerInfo", "Who serves (a coupler extension of the handshake), and which extensions it takes.")
ObjectDescription = _message("ObjectDescription", "One robot or object of a scene, as the handshake describes it.",
                             types_of_joint=_types_of_joint)
CameraDescription = _message("CameraDescription", """coupler extension "images": one camera of the scene.

Pixel (u, v), u to the right and v down from the top-left pixel's centre,
sees the point (x, y, z) of the camera's frame (x right, y up, looking
along -z) at u = cx + fx x / -z, v = cy - fy y / -z; focal lengths and
centre in pixels, near and far in m, position and quaternion (w, x, y, z)
in the frame of the body it is mounted on.""")
SharedMemoryRing = _message("SharedMemoryRing", """coupler extension "shm": `slots` buffers of `slot_bytes` bytes in
one file only the server's user can open (`path`, /proc/PID/fd/N of a memfd), buffer i's data from `data_offset` +
i `slot_bytes`; an answer's payloads that reach `min_bytes` together travel in one buffer.""")
HandshakeInitMessage = _message("HandshakeInitMessage", "A client's first message: its protocol version.")
HandshakeMessage = _message("HandshakeMessage", "The server's answer to a HandshakeInit: its scene and extensions.",
                            supports=_supports, scene=_scene)
ImageRequest = _message("ImageRequest", """coupler extension "images": which images of one camera an answer carries;
with `every`, only when the step it reports is a multiple of that many steps.""")
ObjectControl = _message("ObjectControl", "One object's control values, in its handshake's order, and events.")
ControlMessage = _message("ControlMessage", "Control values for some objects, held for `steps` steps (0: one).")
Sensor = _message("Sensor", "One typed sensor reading: 1 number for scalar and bool types, 3 for vec3.")
ObjectSensors = _message("ObjectSensors", "One object's readings: per joint, then its own and its named sensors.")
SharedSlice = _message("SharedSlice", """coupler extension "shm": where a payload lies in the ring: buffer `slot`,
written as `sequence`, `length` bytes from `offset` in that buffer.""")
Image = _message("Image", "coupler extension \"images\": one rendered image, rows from the top of the picture down "
                 "(see IMAGE_KINDS); time is the simulated time it shows, s.")
SensorMessage = _message("SensorMessage", "The readings of every object after a step, at `simulated_time` (s).")
SensorRequestMessage = _message("SensorRequestMessage", "A read of the readings without stepping.")
ResetMessage = _message("ResetMessage", "Back to the scene's initial state, a keyframe, or a given qpos and qvel.")
ErrorMessage = _message("ErrorMessage", "A refusal: an ErrorCode (or a newer peer's own int) and its one-line text.")

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
