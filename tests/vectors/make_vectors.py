"""The shared test vectors: one encoded frame per message kind.

    python tests/vectors/make_vectors.py     # rewrites NAME.bin and NAME.txt here

Each vector is a realistic message: two robots (a 7-joint arm and a wheeled
rover), a free box, every ValueType, control events and named sensors. The
C++ tests (tests/cpp/vectors_test.cpp) build the same messages by hand; both
languages must decode every .bin, re-encode it byte for byte, and encode
their own copy of each message into exactly the .bin. NAME.txt is the frame in
protobuf text format, for people.
"""

from __future__ import annotations

import sys
from pathlib import Path

from google.protobuf import text_format

from coupler.codec import encode, to_proto
from coupler.messages import (
    ControlField,
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    Message,
    ObjectControl,
    ObjectDescription,
    ObjectSensors,
    ResetMessage,
    Sensor,
    SensorMessage,
    SensorRequestMessage,
    ValueType as V,
)

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
            ),
            "rover": ObjectDescription(
                controls=ROVER_JOINTS,
                control_types=[V.ANGULAR_VELOCITY_1D, V.ANGULAR_VELOCITY_1D, V.TORQUE_1D, V.FORCE_1D],
                joint_sensors=ROVER_JOINTS,
                joint_sensor_types=[V.ANGLE, V.ANGULAR_VELOCITY_1D, V.TORQUE_1D],
                sensors={"base": [V.VELOCITY_3D], "lift_load": [V.FORCE_1D], "bumper": [V.ACTIVATED]},
                object_sensors=[V.POSITION, V.RPY],
            ),
            "box": ObjectDescription(object_sensors=[V.POSITION, V.RPY]),
        },
        time_step=0.002,
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
                },
            ),
            "box": ObjectSensors(
                object_sensors=[Sensor(V.POSITION, (0.05, 0.1, 0.775)), Sensor(V.RPY, (0.0, 0.0, 0.5))],
            ),
        },
        simulated_time=1.25,
    )


def vectors() -> dict[str, Message]:
    return {
        "handshake_init": HandshakeInitMessage(),
        "handshake": handshake(),
        "control": control(),
        "control_angles": control_angles(),
        "sensor": sensor(),
        "sensor_request": SensorRequestMessage(),
        "reset": ResetMessage(),
        "error": ErrorMessage(code=ErrorCode.CONTROL_MISMATCH, text="unknown object 'robot9'"),
    }


def main() -> int:
    for name, message in vectors().items():
        (HERE / f"{name}.bin").write_bytes(encode(message))
        (HERE / f"{name}.txt").write_text(text_format.MessageToString(to_proto(message)))
        print(f"wrote {name}.bin", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
