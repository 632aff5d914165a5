"""A scripted pick approach for the arm scene, the closed loop that the demo
client and the frequency and soak benchmarks run: move an arm from where it is
to a pose above the box along a smooth joint-space trajectory, then close the
gripper."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from coupler.controller.controls import Controls
from coupler.wire.errors import Error
from coupler.wire.messages import HandshakeMessage, ValueType
from coupler.controller.sensor_readings import SensorReadings
from coupler.controller.session import Session

# Joint angles (rad) that put the arm scene's tool point 10 cm above the top of
# its box, fingers down (solved once by inverse kinematics on coupler/scenes/arm.xml).
ABOVE_BOX = np.array([0.041, 0.1768, 0.1535, -2.3636, -0.0474, 2.5379, 1.0165])

MOVE_SECONDS = 2.0
SETTLE_SECONDS = 0.5
GRIP_SECONDS = 0.5


def min_jerk(tau: float) -> float:
    """Blend from 0 to 1 with zero velocity and acceleration at both ends."""
    return tau**3 * (10.0 - 15.0 * tau + 6.0 * tau**2)


@dataclass
class PickReport:
    steps: int = 0
    max_tracking_error: float = 0.0  # rad, worst joint over the trajectory
    rms_tracking_error: float = 0.0  # rad, over all joints and steps
    final_error: float = 0.0  # rad, worst joint after settling
    gripper_height_above_box: float | None = None  # m, when the scene reports both positions
    gripper_offset_from_box: float | None = None  # m, horizontal
    gripper_closed: bool = False

    def summary(self) -> str:
        lines = [
            f"pick approach: {self.steps} steps, gripper {'closed' if self.gripper_closed else 'open'}",
            f"  tracking error max {self.max_tracking_error:.4f} rad, rms {self.rms_tracking_error:.4f} rad, "
            f"final {self.final_error:.4f} rad",
        ]
        if self.gripper_height_above_box is not None:
            lines.append(
                f"  tool point {self.gripper_height_above_box:.4f} m above the box centre, "
                f"{self.gripper_offset_from_box:.4f} m off it horizontally"
            )
        return "\n".join(lines)


def find_arm(handshake: HandshakeMessage) -> str | None:
    """The arm to drive: an object whose controls are all joint angles and that has a "gripper" event."""
    for name, described in sorted(handshake.objects.items()):
        if (
            described.control_types
            and all(t == ValueType.ANGLE for t in described.control_types)
            and "gripper" in described.control_events
            and len(described.controls) == len(ABOVE_BOX)
        ):
            return name
    return None


class PickApproach:
    def __init__(self, session: Session, arm: str) -> None:
        self.session = session
        self.arm = arm
        described = session.handshake.objects[arm]
        missing = [c for c in described.controls if c not in described.joint_sensors]
        if missing:
            raise Error(f"arm '{arm}' reports no angle for its controlled joints {missing}")
        # Control i is joint sensor sensor_index[i].
        self.sensor_index = np.array([described.joint_sensors.index(c) for c in described.controls])

    def measured(self, readings: SensorReadings) -> np.ndarray:
        return readings.angles(self.arm)[self.sensor_index]

    def _steps_for(self, seconds: float) -> int:
        return math.ceil(seconds / self.session.handshake.time_step)

    def run(self, controls: Controls) -> PickReport:
        report = PickReport()
        self.session.reset()  # start from the scene's initial state, whatever ran before
        start = self.measured(self.session.sensors())
        move = self._steps_for(MOVE_SECONDS)
        errors = np.empty((move, len(start)))
        for k in range(1, move + 1):
            reference = start + (ABOVE_BOX - start) * min_jerk(k / move)
            controls[self.arm] = reference
            errors[k - 1] = np.abs(reference - self.measured(self.session.step(controls)))
        report.steps = move
        report.max_tracking_error = float(errors.max())
        report.rms_tracking_error = float(np.sqrt(np.mean(errors**2)))

        readings = None
        for _ in range(self._steps_for(SETTLE_SECONDS)):
            readings = self.session.step(controls)
        controls.event(self.arm, "gripper", True)
        for _ in range(self._steps_for(GRIP_SECONDS)):
            readings = self.session.step(controls)
        report.steps += self._steps_for(SETTLE_SECONDS) + self._steps_for(GRIP_SECONDS)
        report.gripper_closed = True
        report.final_error = float(np.abs(ABOVE_BOX - self.measured(readings)).max())
        try:
            gripper = readings.sensor(self.arm, "tcp", ValueType.POSITION)
            box = readings.object_sensor("box", ValueType.POSITION)
        except Error:
            return report  # the scene reports no gripper or box position; the joint errors stand alone
        report.gripper_height_above_box = float(gripper[2] - box[2])
        report.gripper_offset_from_box = float(math.hypot(gripper[0] - box[0], gripper[1] - box[1]))
        return report
