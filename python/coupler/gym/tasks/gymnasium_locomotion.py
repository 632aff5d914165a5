"""Gymnasium's MuJoCo tasks of hinges and slides (HalfCheetah, Hopper, Walker2d, Swimmer, InvertedPendulum `-v5`),
computed over a batch of worlds.

Each reproduces `gymnasium.envs.mujoco.*_v5` with its default arguments: the
same model file (Gymnasium's own), frame skip, observation (qpos without
the x (and y) position, then qvel, clipped to +-10 where Gymnasium clips), reward
terms in the same arithmetic order, termination, info keys and reset noise
drawn in the same order from the environment's generator. Every term is a
NumPy expression over the rows of all worlds' sensor arrays at once, so a
vector environment of N worlds computes them in one pass.

The served readings hold every joint's position and velocity; in these
models every joint has one degree of freedom, so they are qpos and qvel.
Gymnasium's action is the actuators' ctrl while a coupler motor takes a
force in joint units (ctrl = value / gear): actions are turned into the
values whose ctrl is the action bit for bit (`motor_values`), which
exists for every action of the float32 action space.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium
import mujoco
import numpy as np
from gymnasium import spaces

from coupler.wire.errors import Error
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import HandshakeMessage, ValueType

GYMNASIUM_ASSETS = Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets"
_MOTOR_TYPES = (ValueType.TORQUE_1D, ValueType.FORCE_1D)


@dataclass(frozen=True)
class Locomotion:
    """The defaults of one Gymnasium `-v5` locomotion environment."""

    model_file: str
    frame_skip: int
    ctrl_cost_weight: float
    reset_noise_scale: float
    normal_qvel_noise: bool  # qvel noise scale * standard normal (HalfCheetah), else uniform like qpos
    clip_qvel: float | None  # observation's qvel clipped to +-this
    healthy_reward: float | None  # None: no healthy reward, never terminated
    healthy_z_range: tuple[float, float] = (-np.inf, np.inf)
    healthy_angle_range: tuple[float, float] = (-np.inf, np.inf)
    healthy_state_range: tuple[float, float] | None = None  # bounds of state_vector()[2:] (Hopper)
    forward_reward_weight: float = 1.0
    excluded_positions: int = 1  # the first qpos left out of the observation: x, or x and y (Swimmer)


HALF_CHEETAH = Locomotion("half_cheetah.xml", 5, 0.1, 0.1, True, None, None)
HOPPER = Locomotion("hopper.xml", 4, 1e-3, 5e-3, False, 10.0, 1.0, (0.7, np.inf), (-0.2, 0.2), (-100.0, 100.0))
WALKER2D = Locomotion("walker2d_v5.xml", 4, 1e-3, 5e-3, False, 10.0, 1.0, (0.8, 2.0), (-1.0, 1.0))
SWIMMER = Locomotion("swimmer.xml", 4, 1e-4, 0.1, False, None, None, excluded_positions=2)
# The pendulum's spec only gives its model, frame skip and reset noise; its terms are InvertedPendulum's own.
INVERTED_PENDULUM = Locomotion("inverted_pendulum.xml", 2, 0.0, 0.01, False, None, None, excluded_positions=0)


class GymnasiumLocomotion:
    """A batch task (see `coupler.gym.tasks.batch_task`) reproducing one `Locomotion` of Gymnasium."""

    def __init__(self, spec: Locomotion) -> None:
        self.spec = spec
        self.scene = str(GYMNASIUM_ASSETS / spec.model_file)
        self.frame_skip = spec.frame_skip
        self.model = mujoco.MjModel.from_xml_path(self.scene)
        m = self.model
        if not np.all(np.isin(m.jnt_type, (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE))):
            raise Error(f"{spec.model_file}: every joint must be a hinge or a slide")
        self.dt = m.opt.timestep * self.frame_skip
        self.init_qpos = m.qpos0.copy()
        self.init_qvel = np.zeros(m.nv)
        low, high = m.actuator_ctrlrange.copy().astype(np.float32).T
        self.action_space = spaces.Box(low=low, high=high, dtype=np.float32)
        size = m.nq - spec.excluded_positions + m.nv
        self.observation_space = spaces.Box(low=-np.inf, high=np.inf, shape=(size,), dtype=np.float64)
        joints = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(m.njnt)]
        self.observation_names = ([f"{joints[j]} position" for j in range(spec.excluded_positions, m.njnt)]
                                  + [f"{joints[j]} velocity" for j in range(m.njnt)])
        self.action_names = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_ACTUATOR, a)
                             or mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, m.actuator_trnid[a][0])
                             for a in range(m.nu)]
        self._qpos = np.zeros(0, dtype=np.intp)
        self._qvel = np.zeros(0, dtype=np.intp)
        self._actuator_of_value = np.zeros(0, dtype=np.intp)
        self._gear = np.zeros(0)

    def bind(self, handshake: HandshakeMessage, flat: FlatLayout) -> None:
        """Find qpos and qvel in the served sensor array and each control value's actuator; Error when the served
        scene is not this task's model."""
        m = self.model
        place: dict[str, tuple[int, int]] = {}
        for name, slots in flat.objects.items():
            joints = handshake.objects[name].joint_sensors
            if {"angles", "angular_velocities"} <= set(slots.joint_parts):
                for k, joint in enumerate(joints):
                    place[joint] = (slots.joint_parts["angles"][0] + k, slots.joint_parts["angular_velocities"][0] + k)
        names = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j) for j in range(m.njnt)]
        missing = [n for n in names if n not in place]
        if missing or m.nq != m.njnt:
            raise Error(f"the served scene is not {self.spec.model_file}: it reads no position of joint "
                        f"{', '.join(missing) or '?'}")
        self._qpos = np.array([place[n][0] for n in names], dtype=np.intp)
        self._qvel = np.array([place[n][1] for n in names], dtype=np.intp)
        self._actuator_of_value, self._gear = bind_motors(m, handshake, flat, self.spec.model_file)

    def control_values(self, actions: np.ndarray) -> np.ndarray:
        """Rows of control values (N x values) whose ctrl equals the rows of `actions` (Gymnasium's ctrl)."""
        ctrl = np.asarray(actions, dtype=np.float64)[..., self._actuator_of_value]
        return motor_values(ctrl, self._gear)

    def reset_state(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Gymnasium's reset_model: uniform qpos noise, then qvel noise, drawn in its order."""
        spec, m = self.spec, self.model
        noise = spec.reset_noise_scale
        qpos = self.init_qpos + rng.uniform(low=-noise, high=noise, size=m.nq)
        if spec.normal_qvel_noise:
            qvel = self.init_qvel + noise * rng.standard_normal(m.nv)
        else:
            qvel = self.init_qvel + rng.uniform(low=-noise, high=noise, size=m.nv)
        return qpos, qvel

    def qpos(self, sensors: np.ndarray) -> np.ndarray:
        return sensors[..., self._qpos]

    def observations(self, sensors: np.ndarray) -> np.ndarray:
        """Rows of observations from rows of sensor arrays."""
        qvel = sensors[..., self._qvel]
        if self.spec.clip_qvel is not None:
            qvel = np.clip(qvel, -self.spec.clip_qvel, self.spec.clip_qvel)
        return np.concatenate((sensors[..., self._qpos[self.spec.excluded_positions:]], qvel), axis=-1)

    def reset_infos(self, sensors: np.ndarray) -> dict[str, np.ndarray]:
        qpos = self.qpos(sensors)
        infos = {"x_position": qpos[..., 0]}
        if self.spec.excluded_positions == 2:
            infos |= {"y_position": qpos[..., 1], "distance_from_origin": norm(qpos[..., 0], qpos[..., 1])}
        if self.spec.healthy_reward is not None:
            infos["z_distance_from_origin"] = qpos[..., 1] - self.init_qpos[1]
        return infos

    def _healthy(self, sensors: np.ndarray) -> np.ndarray:
        spec = self.spec
        qpos = self.qpos(sensors)
        z, angle = qpos[..., 1], qpos[..., 2]
        healthy = ((spec.healthy_z_range[0] < z) & (z < spec.healthy_z_range[1])
                   & (spec.healthy_angle_range[0] < angle) & (angle < spec.healthy_angle_range[1]))
        if spec.healthy_state_range is not None:
            low, high = spec.healthy_state_range
            state = np.concatenate((qpos, sensors[..., self._qvel]), axis=-1)[..., 2:]
            healthy &= np.all((low < state) & (state < high), axis=-1)
        return healthy

    def step_terms(self, before: np.ndarray, after: np.ndarray,
                   actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
        """Rows of rewards, terminations and info values of steps from sensor rows `before` to `after`."""
        spec = self.spec
        x_before, x_after = self.qpos(before)[..., 0], self.qpos(after)[..., 0]
        x_velocity = (x_after - x_before) / self.dt
        forward_reward = spec.forward_reward_weight * x_velocity
        ctrl_cost = spec.ctrl_cost_weight * np.sum(np.square(actions), axis=-1)
        infos: dict[str, Any] = {"x_position": x_after}
        if spec.healthy_reward is None:
            rewards = forward_reward - ctrl_cost
            terminated = np.zeros(np.shape(rewards), dtype=bool)
            if spec.excluded_positions == 2:
                y_after = self.qpos(after)[..., 1]
                infos |= {"y_position": y_after, "distance_from_origin": norm(x_after, y_after),
                          "x_velocity": x_velocity, "y_velocity": (y_after - self.qpos(before)[..., 1]) / self.dt}
            else:
                infos |= {"x_velocity": x_velocity}
            infos |= {"reward_forward": forward_reward, "reward_ctrl": -ctrl_cost}
        else:
            healthy = self._healthy(after)
            healthy_reward = healthy * spec.healthy_reward
            rewards = (forward_reward + healthy_reward) - ctrl_cost
            terminated = ~healthy
            infos |= {"z_distance_from_origin": self.qpos(after)[..., 1] - self.init_qpos[1],
                      "x_velocity": x_velocity, "reward_forward": forward_reward, "reward_ctrl": -ctrl_cost,
                      "reward_survive": healthy_reward}
        return rewards, terminated, infos


def motor_values(ctrl: np.ndarray, gear: np.ndarray) -> np.ndarray:
    """The motors' values (forces in joint units) whose ctrl, the value divided by the gear as the server computes
    it, is `ctrl`: `ctrl * gear`.

    No value comes closer. The product rounds to the float nearest the exact one, and dividing by the gear keeps
    the order of values, so where this one's ctrl misses `ctrl` by a rounding, every other misses by more. For a
    float32 action it is exact (a float32 times a gear of a few significant bits is exact in float64, and divided
    back it is the action); a float64 action that no value reaches comes back one bit off.
    """
    return ctrl * gear


def bind_motors(model: mujoco.MjModel, handshake: HandshakeMessage, flat: FlatLayout,
                model_file: str) -> tuple[np.ndarray, np.ndarray]:
    """Per control value of the served scene, its actuator in `model` and the gear it is divided by; Error when
    the served controls are not the model's motors."""
    actuators, gears = [], []
    for o in flat.controls.objects:
        described = handshake.objects[o.name]
        for control, value_type, target in zip(described.controls, described.control_types,
                                               described.control_targets, strict=True):
            a = _actuator(model, control, target)
            if a < 0 or value_type not in _MOTOR_TYPES:
                raise Error(f"the served scene is not {model_file}: control '{control}' is not its motor")
            actuators.append(a)
            gears.append(float(model.actuator_gear[a][0]))
    if sorted(actuators) != list(range(model.nu)) or flat.controls.events_on.size:
        raise Error(f"the served scene is not {model_file}: its controls are not the model's motors")
    return np.array(actuators, dtype=np.intp), np.array(gears)


def _actuator(m: mujoco.MjModel, control: str, target: str) -> int:
    """The actuator named `control`, or the unnamed one on joint `target` (the server names it after its joint);
    -1 when none."""
    named = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_ACTUATOR, control)
    if named >= 0:
        return named
    joint = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, target)
    on_joint = [a for a in range(m.nu) if m.actuator_trnid[a][0] == joint
                and not mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_ACTUATOR, a)]
    return on_joint[0] if joint >= 0 and len(on_joint) == 1 else -1


def norm(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The length of (x, y), as np.linalg.norm computes it for one vector: the square root of a dot product (which
    may fuse a multiply and an add, so x * x + y * y can differ in the last bit)."""
    xy = np.stack((x, y), axis=-1)
    return np.sqrt(np.vecdot(xy, xy))


class InvertedPendulum(GymnasiumLocomotion):
    """Gymnasium's InvertedPendulum-v5: observation qpos and qvel, reward 1 while the pole is within 0.2 rad."""

    def __init__(self) -> None:
        super().__init__(INVERTED_PENDULUM)

    def reset_infos(self, sensors: np.ndarray) -> dict[str, np.ndarray]:
        return {}

    def step_terms(self, before: np.ndarray, after: np.ndarray,
                   actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        observations = self.observations(after)
        terminated = ~np.all(np.isfinite(observations), axis=-1) | (np.abs(observations[..., 1]) > 0.2)
        rewards = (~terminated).astype(np.int64)
        return rewards, terminated, {"reward_survive": rewards}


def half_cheetah() -> GymnasiumLocomotion:
    return GymnasiumLocomotion(HALF_CHEETAH)


def hopper() -> GymnasiumLocomotion:
    return GymnasiumLocomotion(HOPPER)


def walker2d() -> GymnasiumLocomotion:
    return GymnasiumLocomotion(WALKER2D)


def swimmer() -> GymnasiumLocomotion:
    return GymnasiumLocomotion(SWIMMER)


def inverted_pendulum() -> GymnasiumLocomotion:
    return InvertedPendulum()
