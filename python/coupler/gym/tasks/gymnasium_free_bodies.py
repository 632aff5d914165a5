"""Gymnasium's Ant-v5 and Humanoid-v5 (a free-floating body on legs), computed over a batch of worlds.

Each reproduces `gymnasium.envs.mujoco.ant_v5` or `humanoid_v5` with its
default arguments: the same model file, frame skip, observation (qpos
without x and y, qvel, then MuJoCo's contact forces `cfrc_ext`, clipped to
+-1 for Ant, and for Humanoid also `cinert`, `cvel` and `qfrc_actuator`),
reward terms in the same arithmetic order, termination, info keys and reset
noise. What these read besides the state is computed by MuJoCo after the
step (`mj_rnePostConstraint`) or left by it (the kinematics of the state
before the last integration, whose `xpos` or `xipos` measure progress): the
server reads these arrays of every world right after its step and sends
them with the readings (`coupler serve --world-data`, the task's
`world_data`). The rows a task is given are each world's sensor array
followed by those arrays; every term is NumPy over all rows at once.
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np
from gymnasium import spaces

from coupler.gym.tasks.gymnasium_locomotion import GYMNASIUM_ASSETS, bind_motors, motor_values, norm
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import HandshakeMessage

_FREE_POSITION = ("x", "y", "z", "qw", "qx", "qy", "qz")
_FREE_VELOCITY = ("vx", "vy", "vz", "wx", "wy", "wz")
_SPATIAL = ("torque x", "torque y", "torque z", "force x", "force y", "force z")


def _names(m: mujoco.MjModel, kind: mujoco.mjtObj, count: int) -> list[str]:
    return [mujoco.mj_id2name(m, kind, k) or f"{k}" for k in range(count)]


def _joint_labels(m: mujoco.MjModel, velocity: bool) -> list[str]:
    """One label per qpos (or qvel) number: the joint's name, and for a free joint which coordinate."""
    labels = []
    for j, name in enumerate(_names(m, mujoco.mjtObj.mjOBJ_JOINT, m.njnt)):
        if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
            labels += [f"{name} {part}" for part in (_FREE_VELOCITY if velocity else _FREE_POSITION)]
        else:
            labels.append(f"{name} {'velocity' if velocity else 'position'}")
    return labels


class GymnasiumFreeBody:
    """What Ant and Humanoid share: the model, the action space, the arrays read after the step, the reset."""

    model_file = ""
    frame_skip = 5
    reset_noise_scale = 0.0
    world_data: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.scene = str(GYMNASIUM_ASSETS / self.model_file)
        self.model = m = mujoco.MjModel.from_xml_path(self.scene)
        self.dt = m.opt.timestep * self.frame_skip
        self.init_qpos = m.qpos0.copy()
        self.init_qvel = np.zeros(m.nv)
        low, high = m.actuator_ctrlrange.copy().astype(np.float32).T
        self.action_space = spaces.Box(low=low, high=high, dtype=np.float32)
        self.action_names = _names(m, mujoco.mjtObj.mjOBJ_ACTUATOR, m.nu)
        self.bodies = _names(m, mujoco.mjtObj.mjOBJ_BODY, m.nbody)
        data = mujoco.MjData(m)
        self._shapes = {name: getattr(data, name).shape for name in self.world_data}
        self._slices: dict[str, slice] = {}
        self._actuator_of_value = np.zeros(0, dtype=np.intp)
        self._gear = np.zeros(0)

    def bind(self, handshake: HandshakeMessage, flat: FlatLayout) -> None:
        """Each control value's actuator, and where each world-data array lies in a row (after the sensors); Error
        when the served scene is not this task's model."""
        self._actuator_of_value, self._gear = bind_motors(self.model, handshake, flat, self.model_file)
        start = flat.sensors.values.size
        for name, shape in self._shapes.items():
            size = int(np.prod(shape))
            self._slices[name] = slice(start, start + size)
            start += size

    def array(self, rows: np.ndarray, name: str) -> np.ndarray:
        """Per row, the world-data array `name` in its mjData shape."""
        return rows[:, self._slices[name]].reshape(len(rows), *self._shapes[name])

    def control_values(self, actions: np.ndarray) -> np.ndarray:
        """Rows of control values whose ctrl equals the rows of `actions` (Gymnasium's ctrl)."""
        ctrl = np.asarray(actions, dtype=np.float64)[..., self._actuator_of_value]
        return motor_values(ctrl, self._gear)

    def _positions(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        qpos = self.array(rows, "qpos")
        return {"x_position": qpos[:, 0], "y_position": qpos[:, 1],
                "distance_from_origin": norm(qpos[:, 0], qpos[:, 1])}


class GymnasiumAnt(GymnasiumFreeBody):
    """Gymnasium's Ant-v5 with its default arguments."""

    model_file = "ant.xml"
    reset_noise_scale = 0.1
    world_data = ("qpos", "qvel", "xpos", "cfrc_ext")
    ctrl_cost_weight = 0.5
    contact_cost_weight = 5e-4
    healthy_reward = 1.0
    healthy_z_range = (0.2, 1.0)
    contact_force_range = (-1.0, 1.0)

    def __init__(self) -> None:
        super().__init__()
        m = self.model
        size = m.nq - 2 + m.nv + (m.nbody - 1) * 6
        self.observation_space = spaces.Box(low=-np.inf, high=np.inf, shape=(size,), dtype=np.float64)
        self.observation_names = (_joint_labels(m, False)[2:] + _joint_labels(m, True)
                                  + [f"{body} cfrc_ext {part}" for body in self.bodies[1:] for part in _SPATIAL])

    def reset_state(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Ant's reset_model: uniform qpos noise, then normal qvel noise."""
        noise = self.reset_noise_scale
        qpos = self.init_qpos + rng.uniform(low=-noise, high=noise, size=self.model.nq)
        qvel = self.init_qvel + noise * rng.standard_normal(self.model.nv)
        return qpos, qvel

    def _contact_forces(self, rows: np.ndarray) -> np.ndarray:
        low, high = self.contact_force_range
        return np.clip(self.array(rows, "cfrc_ext"), low, high)

    def observations(self, rows: np.ndarray) -> np.ndarray:
        n = len(rows)
        return np.concatenate((self.array(rows, "qpos")[:, 2:], self.array(rows, "qvel"),
                               self._contact_forces(rows)[:, 1:].reshape(n, -1)), axis=-1)

    def reset_infos(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        return self._positions(rows)

    def _healthy(self, rows: np.ndarray) -> np.ndarray:
        qpos, qvel = self.array(rows, "qpos"), self.array(rows, "qvel")
        low, high = self.healthy_z_range
        finite = np.isfinite(qpos).all(axis=-1) & np.isfinite(qvel).all(axis=-1)
        return finite & (low <= qpos[:, 2]) & (qpos[:, 2] <= high)

    def step_terms(self, before: np.ndarray, after: np.ndarray,
                   actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        # The main body's position is mjData.xpos[1] as mj_step leaves it.
        xy_velocity = (self.array(after, "xpos")[:, 1, :2] - self.array(before, "xpos")[:, 1, :2]) / self.dt
        x_velocity, y_velocity = xy_velocity[:, 0], xy_velocity[:, 1]
        forward_reward = x_velocity * 1
        healthy = self._healthy(after)
        healthy_reward = healthy * self.healthy_reward
        rewards = forward_reward + healthy_reward
        ctrl_cost = self.ctrl_cost_weight * np.sum(np.square(actions), axis=-1)
        contact_cost = self.contact_cost_weight * np.sum(
            np.square(self._contact_forces(after)).reshape(len(after), -1), axis=-1)
        costs = ctrl_cost + contact_cost
        infos = self._positions(after) | {
            "x_velocity": x_velocity, "y_velocity": y_velocity, "reward_forward": forward_reward,
            "reward_ctrl": -ctrl_cost, "reward_contact": -contact_cost, "reward_survive": healthy_reward}
        return rewards - costs, ~healthy, infos


class GymnasiumHumanoid(GymnasiumFreeBody):
    """Gymnasium's Humanoid-v5 with its default arguments."""

    model_file = "humanoid.xml"
    reset_noise_scale = 1e-2
    world_data = ("qpos", "qvel", "ctrl", "xipos", "cinert", "cvel", "qfrc_actuator", "cfrc_ext", "ten_length",
                  "ten_velocity")
    forward_reward_weight = 1.25
    ctrl_cost_weight = 0.1
    contact_cost_weight = 5e-7
    contact_cost_range = (-np.inf, 10.0)
    healthy_reward = 5.0
    healthy_z_range = (1.0, 2.0)

    def __init__(self) -> None:
        super().__init__()
        m = self.model
        size = m.nq - 2 + m.nv + (m.nbody - 1) * (10 + 6 + 6) + m.nv - 6
        self.observation_space = spaces.Box(low=-np.inf, high=np.inf, shape=(size,), dtype=np.float64)
        bodies = self.bodies[1:]
        self.observation_names = (_joint_labels(m, False)[2:] + _joint_labels(m, True)
                                  + [f"{body} cinert {k}" for body in bodies for k in range(10)]
                                  + [f"{body} cvel {part}" for body in bodies for part in _SPATIAL]
                                  + [f"{label} qfrc_actuator" for label in _joint_labels(m, True)[6:]]
                                  + [f"{body} cfrc_ext {part}" for body in bodies for part in _SPATIAL])
        self._mass = m.body_mass.copy()
        self._total_mass = self._mass.sum()
        # The last rows whose mass centre was computed, and it: a step's rows after are the next step's before.
        self._centred_rows: np.ndarray | None = None
        self._centre = np.zeros((0, 2))

    def reset_state(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Humanoid's reset_model: uniform qpos noise, then uniform qvel noise."""
        noise = self.reset_noise_scale
        qpos = self.init_qpos + rng.uniform(low=-noise, high=noise, size=self.model.nq)
        qvel = self.init_qvel + rng.uniform(low=-noise, high=noise, size=self.model.nv)
        return qpos, qvel

    def observations(self, rows: np.ndarray) -> np.ndarray:
        n = len(rows)
        return np.concatenate((self.array(rows, "qpos")[:, 2:], self.array(rows, "qvel"),
                               self.array(rows, "cinert")[:, 1:].reshape(n, -1),
                               self.array(rows, "cvel")[:, 1:].reshape(n, -1),
                               self.array(rows, "qfrc_actuator")[:, 6:],
                               self.array(rows, "cfrc_ext")[:, 1:].reshape(n, -1)), axis=-1)

    def _tendons(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        return {"tendon_length": self.array(rows, "ten_length"), "tendon_velocity": self.array(rows, "ten_velocity")}

    def reset_infos(self, rows: np.ndarray) -> dict[str, np.ndarray]:
        return self._positions(rows) | self._tendons(rows)

    def _mass_centre(self, rows: np.ndarray) -> np.ndarray:
        """Per row, Gymnasium's mass_center: the x and y of the mass-weighted mean of the bodies' xipos."""
        if rows is self._centred_rows:
            return self._centre  # the rows a step ended with are the next step's rows before it
        # Gymnasium sums the bodies' products (mass times xipos) one after the other, in body order: a running sum
        # (accumulate, never pairwise) over all rows at once adds them so, bit for bit. Only x and y are wanted,
        # and each coordinate is summed apart from the others.
        products = self._mass[:, None] * self.array(rows, "xipos")[:, :, 0:2]
        centre = np.add.accumulate(products, axis=1)[:, -1] / self._total_mass
        self._centred_rows, self._centre = rows, centre
        return centre

    def step_terms(self, before: np.ndarray, after: np.ndarray,
                   actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        xy_velocity = (self._mass_centre(after) - self._mass_centre(before)) / self.dt
        x_velocity, y_velocity = xy_velocity[:, 0], xy_velocity[:, 1]
        forward_reward = self.forward_reward_weight * x_velocity
        z = self.array(after, "qpos")[:, 2]
        low, high = self.healthy_z_range
        healthy = (low < z) & (z < high)
        healthy_reward = healthy * self.healthy_reward
        rewards = forward_reward + healthy_reward
        ctrl_cost = self.ctrl_cost_weight * np.sum(np.square(self.array(after, "ctrl")), axis=-1)
        contact_cost = self.contact_cost_weight * np.sum(
            np.square(self.array(after, "cfrc_ext")).reshape(len(after), -1), axis=-1)
        contact_cost = np.clip(contact_cost, *self.contact_cost_range)
        costs = ctrl_cost + contact_cost
        infos = self._positions(after) | self._tendons(after) | {
            "x_velocity": x_velocity, "y_velocity": y_velocity, "reward_survive": healthy_reward,
            "reward_forward": forward_reward, "reward_ctrl": -ctrl_cost, "reward_contact": -contact_cost}
        return rewards - costs, ~healthy, infos


def ant() -> GymnasiumAnt:
    return GymnasiumAnt()


def humanoid() -> GymnasiumHumanoid:
    return GymnasiumHumanoid()
