"""An arm that moves: a controller swinging the arm scene's arm, for tests that watch it."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

from coupler.controller.session import Session

SWING_HZ = 0.5  # of the arm's swing, in simulated time
PACE = 0.004  # seconds between steps: the arm moves at about half its real speed, smoothly


def swing_pose(lean: float) -> list[float]:
    """The arm's joint angles at `lean` from -1 to 1: elbow bent, turning and leaning from side to side, high
    above the table and the box on it."""
    return [0.8 * lean, 0.2 * lean, 0.0, -2.0, 0.0, 2.2, 0.8]


@dataclass
class MovingArm:
    publish: str  # the server's publish address
    steps: int = 0
    error: BaseException | None = None  # what stopped the controller, if anything did


def swing(session: Session, arm: MovingArm, stop: threading.Event) -> None:
    try:
        controls = session.controls()
        dt = session.handshake.time_step
        while not stop.wait(PACE):
            phase = 2 * math.pi * SWING_HZ * arm.steps * dt
            controls["arm"] = swing_pose(math.sin(phase))
            session.step(controls)
            arm.steps += 1
    except BaseException as error:  # kept for the tests' messages: a thread's exception is otherwise lost
        arm.error = error
