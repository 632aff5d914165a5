"""The shared test vectors: one encoded frame per message kind.

    python tests/vectors/make_vectors.py     # rewrites NAME.bin, NAME.txt and README.md here

Each vector is a realistic message. The C++ tests (tests/cpp/vectors_test.cpp)
build the same messages by hand, from README.md, which this script writes
from the very messages it encodes; both languages must decode every .bin,
re-encode it byte for byte, and encode their own copy of each message into
exactly the .bin. NAME.txt is the frame in protobuf text format, for people.

| object  | controls                        | sensors                                          |
|---------|---------------------------------|--------------------------------------------------|
| `panda` | 7 Angle joints, `gripper` event | joint vectors, `wrist_ft`, `imu`, Position/RPY   |
| `rover` | 2 AngularVelocity1D wheels, a   | joint vectors, `base`, `lift_load`, `bumper`,    |
|         | Torque1D turret, a Force1D lift | `turret_drive`, Position/RPY                     |
| `box`   | none                            | Position/RPY                                     |

`handshake_coupler` is the handshake of a coupler server: the same scene,
with the coupler extensions (ServerInfo, control ranges and joint limits,
limited and unlimited ones) and a `cart` of the coupler value types (its
slide joint's linear types, its ActuatorInput control's meaning);
`sensor_coupler` is its sensor message. `reset_state` is a Reset to a given
state; `handshake_worlds`, `control_worlds` and `sensor_worlds` are the
"worlds" extension of a batched server: its handshake, a Control for every
world (one of them reset), and the answer. `handshake_mocap_keyframes` is
the handshake of a scene with a mocap body (its pose controls, the "mocap"
extension) and keyframes; `reset_keyframe` and `reset_keyframe_index` are
Resets to a keyframe by name and by index (index 0, which is sent).
`handshake_cameras` is the handshake of a scene with a camera (the "images"
extension); `control_images` and `sensor_request_images` ask for its images
(one camera at a rate), and `sensor_images` answers with a depth and an rgb
image. `handshake_shm` adds the ring of shared memory of the "shm" extension;
`sensor_request_shm` asks for an image through it, and `sensor_images_shm`
answers with one lying there.
image. `control_worlds_images` is a Control for every world asking for one
world's images of that camera, and `sensor_worlds_images` its answer;
`control_worlds_shm` asks for them through the ring of shared memory, and
`sensor_worlds_shm` answers with the worlds' arrays and images lying there.

Every Click ValueType but MULTIPLE is a sensor type in the handshake (of a
named or an object sensor) and a Sensor reading in the sensor message;
MULTIPLE is the handshake's derived controlType. Every coupler ValueType
(from 100) but ACTUATOR_INPUT, which is a control type only, is a sensor type
in handshake_coupler and a reading in sensor_coupler.
"""

from __future__ import annotations

import dataclasses
import struct
import sys
from enum import Enum
from pathlib import Path
from typing import Any

from google.protobuf import text_format

from coupler._proto import coupler_pb2 as pb
from coupler.wire.codec import decode, encode
from coupler.wire.messages import (
    CameraDescription,
    ControlField,
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    Image,
    ImageRequest,
    Message,
    ObjectControl,
    ObjectDescription,
    ObjectSensors,
    Range,
    ResetMessage,
    Sensor,
    SensorMessage,
    SensorRequestMessage,
    ServerInfo,
    SharedMemoryRing,
    SharedSlice,
)
from coupler.wire.messages import ValueType as V

HERE = Path(__file__).resolve().parent
ARM_JOINTS = [f"joint{i}" for i in range(1, 8)]
ROVER_JOINTS = ["wheel_left", "wheel_right", "turret", "lift"]
ARM_ANGLES = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785]


def handshake() -> HandshakeMessage:
    return HandshakeMessage(
        objects={
            "panda": ObjectDescription(
                controls=ARM_JOINTS,
                control_types=[V.ANGLE] * 7,
                joint_sensors=ARM_JOINTS,
                joint_sensor_types=[V.ANGLE, V.ANGULAR_VELOCITY_1D, V.TORQUE_1D, V.FORCE_3D],
                control_events={"gripper": V.ACTIVATED},
                sensors={
                    "wrist_ft": [V.FORCE_3D, V.TORQUE_3D],
                    "imu": [V.ACCELERATION_3D, V.ANGULAR_VELOCITY_3D, V.ANGULAR_ACCELERATION_3D],
                },
                object_sensors=[V.POSITION, V.RPY],
                control_targets=ARM_JOINTS,
            ),
            "rover": ObjectDescription(
                controls=ROVER_JOINTS,
                control_types=[V.ANGULAR_VELOCITY_1D, V.ANGULAR_VELOCITY_1D, V.TORQUE_1D, V.FORCE_1D],
                joint_sensors=ROVER_JOINTS,
                joint_sensor_types=[V.ANGLE, V.ANGULAR_VELOCITY_1D, V.TORQUE_1D],
                sensors={
                    "base": [V.VELOCITY_3D],
                    "lift_load": [V.FORCE_1D],
                    "bumper": [V.ACTIVATED],
                    "turret_drive": [V.ANGLE, V.ANGULAR_VELOCITY_1D, V.TORQUE_1D],
                },
                object_sensors=[V.POSITION, V.RPY],
            ),
            "box": ObjectDescription(object_sensors=[V.POSITION, V.RPY]),
        },
        time_step=0.002,
    )


# (min, max) of each panda joint, rounded Panda-class limits.
ARM_LIMITS = [Range(lo, hi, True) for lo, hi in
              [(-2.9, 2.9), (-1.75, 1.75), (-2.9, 2.9), (-3.07, -0.07), (-2.9, 2.9), (-0.0175, 3.75), (-2.9, 2.9)]]


def handshake_coupler() -> HandshakeMessage:
    """A coupler server's handshake: who serves, what it takes, the ranges (one limited at 0, one unlimited)."""
    message = handshake()
    message.objects["panda"].control_ranges = list(ARM_LIMITS)
    message.objects["panda"].joint_limits = list(ARM_LIMITS)
    message.objects["rover"].control_ranges = [
        Range(-10.0, 10.0, True),
        Range(-10.0, 10.0, True),
        Range(),
        Range(0.0, 100.0, True),
    ]
    message.objects["rover"].joint_limits = [Range(), Range(), Range(), Range(0.0, 0.3, True)]
    message.objects["cart"] = cart()
    message.server = ServerInfo(name="coupler", version="0.1.0",
                                extensions=["steps", "goodbye", "ranges", "value-types"])
    return message


def cart() -> ObjectDescription:
    """An object of the coupler value types: a cart on a slide and a tendon drive, with linear and NUMBER sensors."""
    return ObjectDescription(
        controls=["rail_servo", "tendon_drive"],
        control_types=[V.LINEAR_POSITION, V.ACTUATOR_INPUT],
        joint_sensors=["rail"],
        joint_sensor_types=[V.ANGLE, V.ANGULAR_VELOCITY_1D, V.TORQUE_1D],
        sensors={"rail_state": [V.LINEAR_POSITION, V.LINEAR_VELOCITY], "range": [V.NUMBER]},
        control_targets=["rail", "tendon"],
        control_ranges=[Range(-1.0, 1.0, True), Range(0.0, 1.0, True)],
        joint_limits=[Range(-1.0, 1.0, True)],
        sensor_units={"range": "m"},
        joint_types=[V.LINEAR_POSITION, V.LINEAR_VELOCITY, V.FORCE_1D],
        control_meanings=["", "force = 10 * ctrl"],
    )


def control() -> ControlMessage:
    return ControlMessage(
        objects={
            "panda": ObjectControl(values=ARM_ANGLES, events={"gripper": True}),
            "rover": ObjectControl(values=[1.5, -1.5, 0.25, 40.0]),
        }
    )


def control_angles() -> ControlMessage:
    """Click's deprecated single-type spelling, plus the coupler steps extension."""
    return ControlMessage(objects={"panda": ObjectControl(values=ARM_ANGLES, field=ControlField.ANGLES)}, steps=10)


def sensor() -> SensorMessage:
    return SensorMessage(
        objects={
            "panda": ObjectSensors(
                angles=ARM_ANGLES,
                angular_velocities=[0.01, -0.02, 0.0, 0.03, 0.0, -0.01, 0.0],
                torques=[0.5, -12.25, 0.75, 8.5, 0.125, 1.5, 0.0625],
                forces=[(0.0, 0.0, 9.81)] * 7,
                object_sensors=[Sensor(V.POSITION, (-0.45, 0.0, 0.75)), Sensor(V.RPY, (0.0, 0.0, 0.0))],
                sensors={
                    "wrist_ft": [Sensor(V.FORCE_3D, (0.1, -0.2, -14.7)), Sensor(V.TORQUE_3D, (0.01, 0.02, -0.003))],
                    "imu": [
                        Sensor(V.ACCELERATION_3D, (0.0, 0.0, 9.81)),
                        Sensor(V.ANGULAR_VELOCITY_3D, (0.0, 0.5, 0.0)),
                        Sensor(V.ANGULAR_ACCELERATION_3D, (0.0, 2.5, 0.0)),
                    ],
                },
            ),
            "rover": ObjectSensors(
                angles=[12.5, 12.25, 0.5, 0.125],
                angular_velocities=[1.5, -1.5, 0.0, 0.0],
                torques=[2.0, 2.25, 0.25, 40.0],
                object_sensors=[Sensor(V.POSITION, (1.0, 2.0, 0.1)), Sensor(V.RPY, (0.0, 0.0, 1.25))],
                sensors={
                    "base": [Sensor(V.VELOCITY_3D, (0.5, 0.0, 0.0))],
                    "lift_load": [Sensor(V.FORCE_1D, (39.5,))],
                    "bumper": [Sensor(V.ACTIVATED, (1.0,))],
                    # A zero in a oneof is still sent: the angular velocity 0.0 checks that.
                    "turret_drive": [
                        Sensor(V.ANGLE, (0.5,)),
                        Sensor(V.ANGULAR_VELOCITY_1D, (0.0,)),
                        Sensor(V.TORQUE_1D, (0.25,)),
                    ],
                },
            ),
            "box": ObjectSensors(
                object_sensors=[Sensor(V.POSITION, (0.05, 0.1, 0.775)), Sensor(V.RPY, (0.0, 0.0, 0.5))],
            ),
        },
        simulated_time=1.25,
    )


def sensor_coupler() -> SensorMessage:
    """The sensor message of handshake_coupler's scene: the cart's coupler value types too."""
    message = sensor()
    message.objects["cart"] = ObjectSensors(
        angles=[0.25],
        angular_velocities=[-0.5],
        torques=[1.5],
        sensors={
            "rail_state": [Sensor(V.LINEAR_POSITION, (0.25,)), Sensor(V.LINEAR_VELOCITY, (-0.5,))],
            "range": [Sensor(V.NUMBER, (-1.0,))],  # a rangefinder that sees nothing
        },
    )
    return message


def handshake_worlds() -> HandshakeMessage:
    """A batched server's handshake: two copies of a one-joint arm."""
    arm = ObjectDescription(controls=["shoulder"], control_types=[V.ANGLE], joint_sensors=["shoulder"],
                            joint_sensor_types=[V.ANGLE, V.ANGULAR_VELOCITY_1D], control_events={"gripper": V.ACTIVATED})
    return HandshakeMessage(objects={"arm": arm}, time_step=0.002,
                            server=ServerInfo(name="coupler", version="0.1.0", extensions=["steps", "worlds"]), worlds=2)


def control_worlds() -> ControlMessage:
    """Both worlds' shoulder angle and gripper (world-major), world 1 reset to a given state instead of stepped."""
    return ControlMessage(steps=5, worlds=2, world_controls=[0.5, 1.0, -0.25, 0.0], reset_worlds=[1],
                          reset_qpos=[0.125], reset_qvel=[-1.5])


def sensor_worlds() -> SensorMessage:
    """The answer: per world its shoulder angle and angular velocity, and each world's time."""
    return SensorMessage(simulated_time=0.01, world_sensors=[0.5, 2.5, 0.125, -1.5], world_times=[0.01, 0.0])


def handshake_mocap_keyframes() -> HandshakeMessage:
    """A scene with a mocap body, whose pose is its controls, and two keyframes, one of them unnamed."""
    pose = ["x", "y", "z", "qw", "qx", "qy", "qz"]
    target = ObjectDescription(controls=pose, control_types=[V.MOCAP_POSITION] * 3 + [V.MOCAP_QUATERNION] * 4,
                               object_sensors=[V.POSITION, V.RPY], control_targets=["target"] * 7,
                               control_ranges=[Range()] * 3 + [Range(-1.0, 1.0, True)] * 4)
    return HandshakeMessage(objects={"target": target}, time_step=0.002, keyframes=["home", ""],
                            server=ServerInfo(name="coupler", version="0.1.0", extensions=["keyframes", "mocap"]))


def handshake_cameras() -> HandshakeMessage:
    """A scene with a pendulum and a camera: a fixed one, with its intrinsics and mounting."""
    pendulum = ObjectDescription(controls=["hinge"], control_types=[V.TORQUE_1D], joint_sensors=["hinge"],
                                 joint_sensor_types=[V.ANGLE, V.ANGULAR_VELOCITY_1D, V.TORQUE_1D])
    camera = CameraDescription(name="overview", width=4, height=2, kinds=["rgb", "depth", "segmentation"], fx=1.25,
                               fy=1.25, cx=1.5, cy=0.5, near=0.01, far=50.0, body="world",
                               position=[0.0, -1.0, 1.5], quaternion=[0.875, 0.5, 0.0, 0.0])
    return HandshakeMessage(objects={"pendulum": pendulum}, time_step=0.002, cameras={"overview": camera},
                            max_image_width=4096, max_image_height=4096,
                            server=ServerInfo(name="coupler", version="0.1.0", extensions=["images"]))


def control_images() -> ControlMessage:
    return ControlMessage(objects={"pendulum": ObjectControl(values=[0.5])},
                          images=[ImageRequest("overview", ["rgb", "depth"]), ImageRequest("wrist", ["depth"], 10)])


def sensor_images() -> SensorMessage:
    """The pendulum's state, with a depth image (float32 little-endian) and an rgb image of 2x1 pixels."""
    depth = b"".join(struct.pack("<f", metres) for metres in (1.5, 2.25))
    return SensorMessage(objects={"pendulum": ObjectSensors(angles=[0.25], angular_velocities=[0.0], torques=[0.5])},
                         simulated_time=0.5,
                         images=[Image("overview", "depth", 2, 1, 0.5, depth),
                                 Image("overview", "rgb", 2, 1, 0.5, bytes([255, 0, 0, 0, 128, 255]))])


def handshake_shm() -> HandshakeMessage:
    """handshake_cameras with a ring of 4 buffers of 1 MiB in shared memory."""
    return dataclasses.replace(
        handshake_cameras(), server=ServerInfo(name="coupler", version="0.1.0", extensions=["images", "shm"]),
        shared_memory=SharedMemoryRing(path="/proc/4242/fd/7", slots=4, slot_bytes=1 << 20, data_offset=4096,
                                       min_bytes=16384))


def sensor_images_shm() -> SensorMessage:
    """The pendulum's state, with a 4x2 rgb image lying in buffer 2 of the ring, written as sequence 7."""
    return SensorMessage(objects={"pendulum": ObjectSensors(angles=[0.25], angular_velocities=[0.0], torques=[0.5])},
                         simulated_time=0.5,
                         images=[Image("overview", "rgb", 4, 2, 0.5, shared=SharedSlice(2, 7, 64, 24))])


def control_worlds_images() -> ControlMessage:
    """Both worlds stepped, asking for world 1's rgb image of the overview camera."""
    return ControlMessage(worlds=2, world_controls=[0.5, 1.0, -0.25, 0.0],
                          images=[ImageRequest("overview", ["rgb"])], image_worlds=[1])


def sensor_worlds_images() -> SensorMessage:
    """The answer: both worlds' readings and times, and world 1's rgb image of 2x1 pixels."""
    return SensorMessage(simulated_time=0.01, world_sensors=[0.5, 2.5, 0.125, -1.5], world_times=[0.01, 0.01],
                         world_images=[Image("overview", "rgb", 2, 1, 0.0, bytes([255, 0, 0, 0, 128, 255]))],
                         image_worlds=[1])


def control_worlds_shm() -> ControlMessage:
    """Both worlds stepped, asking for the answer's arrays and world 1's rgb image through shared memory."""
    return ControlMessage(worlds=2, world_controls=[0.5, 1.0, -0.25, 0.0],
                          images=[ImageRequest("overview", ["rgb"])], image_worlds=[1], shared_memory=True)


def sensor_worlds_shm() -> SensorMessage:
    """The answer: both worlds' times in the frame; their readings, world data and world 1's rgb image of 2x1
    pixels lying in buffer 1 of the ring, written as sequence 9."""
    return SensorMessage(simulated_time=0.01, world_times=[0.01, 0.01],
                         world_images=[Image("overview", "rgb", 2, 1, 0.0, shared=SharedSlice(1, 9, 128, 6))],
                         image_worlds=[1], world_sensors_shared=SharedSlice(1, 9, 0, 32),
                         world_data_shared=SharedSlice(1, 9, 64, 16))


def vectors() -> dict[str, Message]:
    return {
        "handshake_init": HandshakeInitMessage(),
        "handshake": handshake(),
        "handshake_coupler": handshake_coupler(),
        "control": control(),
        "control_angles": control_angles(),
        "sensor": sensor(),
        "sensor_coupler": sensor_coupler(),
        "sensor_request": SensorRequestMessage(),
        "reset": ResetMessage(),
        "reset_state": ResetMessage(qpos=[0.25, -0.5, 1.0], qvel=[0.0, 2.0, -0.125]),
        "handshake_worlds": handshake_worlds(),
        "control_worlds": control_worlds(),
        "sensor_worlds": sensor_worlds(),
        "handshake_mocap_keyframes": handshake_mocap_keyframes(),
        "reset_keyframe": ResetMessage(keyframe="home"),
        "reset_keyframe_index": ResetMessage(keyframe_index=0),
        "handshake_cameras": handshake_cameras(),
        "control_images": control_images(),
        "sensor_request_images": SensorRequestMessage(images=[ImageRequest("overview", ["segmentation"], 3)]),
        "sensor_images": sensor_images(),
        "handshake_shm": handshake_shm(),
        "sensor_request_shm": SensorRequestMessage(images=[ImageRequest("overview", ["rgb"])], shared_memory=True),
        "sensor_images_shm": sensor_images_shm(),
        "control_worlds_images": control_worlds_images(),
        "sensor_worlds_images": sensor_worlds_images(),
        "control_worlds_shm": control_worlds_shm(),
        "sensor_worlds_shm": sensor_worlds_shm(),
        "error": ErrorMessage(code=ErrorCode.CONTROL_MISMATCH, text="unknown object 'robot9'"),
    }


# ---- README.md: the vectors' content, for building the same messages by hand

README_HEAD = """\
# Shared test vectors

One frame per message kind, written by `make_vectors.py` (which also writes
this file from the same messages: do not edit it by hand). `NAME.bin` is the
frame, `NAME.txt` the same frame in protobuf text format.

Each language decodes every `.bin`, re-encodes it byte for byte, and encodes
its own copy of each message, built from the description below, into exactly
the `.bin`.

How to read the description:

- Field names are those of the message structs (the same in Python and C++).
  A field not listed is empty or zero.
- Objects and named sensors are maps: the encoder sorts them by key, so the
  order below does not matter. Lists are in the order given.
- Numbers are written as the shortest decimal that reads back as the same
  double. A sensor is written `TYPE (numbers)`; an ACTIVATED value of 1.0
  is true.
- `control_type` left unset in a handshake is derived when encoding: the type
  all controls share, else MULTIPLE.
- A range is written `[min, max]` (limited true) or `unlimited` (limited
  false, min and max 0).
"""


def _text(value: Any) -> str:
    if isinstance(value, Range):
        return f"[{_text(value.min)}, {_text(value.max)}]" if value.limited else "unlimited"
    if isinstance(value, ErrorCode):
        return f"{value.name} ({int(value)})"
    if isinstance(value, Enum):
        return value.name
    if isinstance(value, Sensor):
        return f"{value.type.name} ({', '.join(_text(v) for v in value.value)})"
    if isinstance(value, ImageRequest):
        every = "" if value.every is None else f" every {value.every} steps"
        return f"{_text(value.camera)} ({_text(value.kinds)}){every}"
    if isinstance(value, Image):
        where = (f"data (hex) {value.data.hex()}" if value.shared is None else
                 f"shared: slot {value.shared.slot}, sequence {value.shared.sequence}, offset {value.shared.offset},"
                 f" length {value.shared.length}")
        return f"{_text(value.camera)} {value.kind} {value.width}x{value.height} at {_text(value.time)} s, {where}"
    if isinstance(value, tuple):
        return f"({', '.join(_text(v) for v in value)})"
    if isinstance(value, list) and value and isinstance(value[0], Image | ImageRequest):
        return "; ".join(_text(v) for v in value)
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value)
    if isinstance(value, str):
        return f"`{value}`"
    return repr(value)


def _describe(value: Any, indent: str) -> list[str]:
    """Markdown list lines for a dataclass's non-default fields, nesting dataclasses and maps."""
    lines = []
    for f in dataclasses.fields(value):
        item = getattr(value, f.name)
        if item is None and f.name == "control_type":
            derived = decode(encode(value)).control_type
            lines.append(f"{indent}- control_type: unset (encodes as the derived {derived.name})")
            continue
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if item == default and f.name != "version":
            continue
        if isinstance(item, dict):
            lines.append(f"{indent}- {f.name}:")
            for key, entry in item.items():
                if dataclasses.is_dataclass(entry):
                    lines.append(f"{indent}  - `{key}`:")
                    lines.extend(_describe(entry, indent + "    "))
                else:
                    lines.append(f"{indent}  - `{key}`: {_text(entry)}")
        elif dataclasses.is_dataclass(item):
            lines.append(f"{indent}- {f.name}:")
            lines.extend(_describe(item, indent + "  "))
        else:
            lines.append(f"{indent}- {f.name}: {_text(item)}")
    return lines


def readme(messages: dict[str, Message]) -> str:
    sections = [README_HEAD]
    for name, message in messages.items():
        lines = [f"## {name}.bin: {type(message).__name__}", ""]
        lines.extend(_describe(message, "") or ["(no fields)"])
        sections.append("\n".join(lines) + "\n")
    return "\n".join(sections)


def main() -> int:
    messages = vectors()
    for name, message in messages.items():
        frame = encode(message)
        (HERE / f"{name}.bin").write_bytes(frame)
        # protoc's classes only print the frame: the message kinds are named alike.
        proto = getattr(pb, type(message).__name__).FromString(frame)
        (HERE / f"{name}.txt").write_text(text_format.MessageToString(proto))
    (HERE / "README.md").write_text(readme(messages))
    print(f"wrote {len(messages)} vectors and README.md to {HERE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
