"""Visual servoing: the arm finds the box with the scene's camera and moves its hand above it.

The controller never reads the box's pose. It asks the server for the
"overview" camera's colour and depth images, finds the box as the red blob
in the colour image, and back-projects the blob's centre pixel with the
intrinsics the handshake announces and the depth there: a point on the box
in the camera's frame, which the camera's mounting pose (also announced)
takes to the world. Inverse kinematics of a local copy of the arm's model
then gives the joint angles that put the hand's tool point above that point,
pointing down, and position controls drive the arm there.

    coupler serve &                      # the arm scene, with its camera
    python examples/visual_servo.py      # prints where it saw the box and where the hand ended
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

import mujoco
import numpy as np

from coupler import Session, ValueType
from coupler.limits import DEFAULT_ADDRESS
from coupler.scenes import scene_path

CAMERA = "overview"
ARM = "arm"
JOINTS = [f"joint{i}" for i in range(1, 8)]
DEFAULT_HEIGHT = 0.12  # m, the tool point above the point seen on the box


def red_blob(rgb: np.ndarray) -> tuple[float, float]:
    """The centre (column, row) of the red pixels, lit or in shade; ValueError when none is red."""
    colour = rgb.astype(int)
    red = (colour[..., 0] > 40) & (colour[..., 0] > 2 * colour[..., 1]) & (colour[..., 0] > 2 * colour[..., 2])
    rows, columns = np.nonzero(red)
    if rows.size == 0:
        raise ValueError(f"no red pixel in the {CAMERA} camera's picture: the box is not in view")
    return float(columns.mean()), float(rows.mean())


def rotation(quaternion: list[float]) -> np.ndarray:
    """The 3x3 rotation of a (w, x, y, z) quaternion: its columns are the rotated frame's axes."""
    matrix = np.zeros(9)
    mujoco.mju_quat2Mat(matrix, np.asarray(quaternion, float))
    return matrix.reshape(3, 3)


@dataclass
class Seen:
    pixel: tuple[float, float]  # (column, row) of the blob's centre
    depth: float  # m along the optical axis at that pixel
    world: np.ndarray  # the point there, in the world frame


def locate_box(session: Session) -> Seen:
    """Where the camera sees the box: a point on its surface, from the colour and depth images alone."""
    camera = session.handshake.cameras[CAMERA]
    if camera.body != "world":
        raise ValueError(f"the {CAMERA} camera is mounted on '{camera.body}': this example expects a fixed camera")
    images = session.sensors(images={CAMERA: ("rgb", "depth")}).images[CAMERA]
    column, row = red_blob(images.rgb)
    depth = float(images.depth[round(row), round(column)])
    # The camera looks along its -z axis with y up; image rows go down.
    in_camera = np.array([(column - camera.cx) / camera.fx * depth, -(row - camera.cy) / camera.fy * depth, -depth])
    world = rotation(camera.quaternion) @ in_camera + np.asarray(camera.position)
    return Seen((column, row), depth, world)


class ArmKinematics:
    """The arm's kinematics from the shipped scene's model: where joint angles put the tool point."""

    def __init__(self) -> None:
        self.model = mujoco.MjModel.from_xml_path(str(scene_path("arm")))
        self.data = mujoco.MjData(self.model)
        self.tcp = self.model.site("tcp").id
        self.joints = [self.model.joint(name).qposadr[0] for name in JOINTS]
        self.dofs = [self.model.joint(name).dofadr[0] for name in JOINTS]

    def solve(self, angles: np.ndarray, target: np.ndarray, iterations: int = 200) -> np.ndarray:
        """Joint angles, from `angles`, that put the tool point at `target` with the orientation it has at
        `angles` (damped least squares on position and orientation)."""
        model, data = self.model, self.data
        data.qpos[self.joints] = angles
        mujoco.mj_kinematics(model, data)
        keep = data.site_xmat[self.tcp].copy()
        jacobian_position, jacobian_rotation = np.zeros((3, model.nv)), np.zeros((3, model.nv))
        for _ in range(iterations):
            mujoco.mj_kinematics(model, data)
            mujoco.mj_comPos(model, data)  # the Jacobian needs the dofs' motion axes it computes
            position_error = target - data.site_xpos[self.tcp]
            turn = np.zeros(3)
            current = np.zeros(4)
            wanted = np.zeros(4)
            mujoco.mju_mat2Quat(current, data.site_xmat[self.tcp])
            mujoco.mju_mat2Quat(wanted, keep)
            mujoco.mju_subQuat(turn, wanted, current)  # in the tool's frame; the Jacobian's is the world's
            error = np.concatenate([position_error, data.site_xmat[self.tcp].reshape(3, 3) @ turn])
            if np.linalg.norm(error) < 1e-5:
                break
            mujoco.mj_jacSite(model, data, jacobian_position, jacobian_rotation, self.tcp)
            jacobian = np.vstack([jacobian_position, jacobian_rotation])[:, self.dofs]
            step = 0.5 * jacobian.T @ np.linalg.solve(jacobian @ jacobian.T + 1e-4 * np.eye(6), error)
            qpos = data.qpos[self.joints] + step
            low, high = model.jnt_range[[model.joint(n).id for n in JOINTS]].T
            data.qpos[self.joints] = np.clip(qpos, low, high)
        return data.qpos[self.joints].copy()


def servo(session: Session, height: float = DEFAULT_HEIGHT, seconds: float = 2.0) -> tuple[Seen, np.ndarray]:
    """Find the box, drive the tool point `height` above the point seen, for `seconds` of simulated time;
    what was seen, and where the tool point ended (read from the arm's tcp sensor)."""
    seen = locate_box(session)
    controls = session.controls()  # position controls holding the joints where they are
    readings = session.sensors()
    angles = np.array([readings.angle(ARM, joint) for joint in JOINTS])
    target = ArmKinematics().solve(angles, seen.world + np.array([0.0, 0.0, height]))
    for joint, angle in zip(JOINTS, target):
        controls.set(ARM, joint, float(angle))
    controls.steps = max(1, round(seconds / session.handshake.time_step))
    readings = session.step(controls)
    return seen, np.asarray(readings.sensor(ARM, "tcp", ValueType.POSITION))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--addr", default=DEFAULT_ADDRESS, help="the arm scene's server (default: %(default)s)")
    parser.add_argument("--height", type=float, default=DEFAULT_HEIGHT,
                        help="metres of the hand's tool point above the box (default: %(default)s)")
    parser.add_argument("--timeout", type=float, default=30.0,
                        help="seconds to wait for each answer; the first image starts the server's renderer "
                             "(default: %(default)s)")
    args = parser.parse_args(argv)
    with Session(args.addr, timeout=args.timeout, reset=True) as session:
        seen, tool = servo(session, args.height)
    print(f"saw the box at pixel ({seen.pixel[0]:.1f}, {seen.pixel[1]:.1f}), {seen.depth:.3f} m away: "
          f"world ({seen.world[0]:.3f}, {seen.world[1]:.3f}, {seen.world[2]:.3f}) m")
    print(f"tool point at ({tool[0]:.3f}, {tool[1]:.3f}, {tool[2]:.3f}) m, "
          f"{tool[2] - seen.world[2]:.3f} m above the point seen")
    return 0


if __name__ == "__main__":
    sys.exit(main())
