"""How the numbers move between a MuJoCo scene's `mjData` and the flat arrays of its handshake.

Built once from `coupler.mujoco.layout` and `coupler.wire.flat_layout` into a
`_native.SensorGather` and a `_native.ControlScatter` that hold the places in
`mjData`'s own arrays, so that reading the state and applying controls are
one pass each in C++, whatever the scene, and nothing is looked up by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mujoco
import numpy as np

from coupler import _native
from coupler.wire.errors import Error
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import ValueType
from coupler.mujoco.layout import MOCAP_CONTROLS, SceneLayout

# MuJoCo zeroes every control of the step, with only a warning, when any one is beyond this: the scatter refuses it.
_MAX_CONTROL = float(mujoco.mjMAXVAL)


def sensor_gather(scene: SceneLayout, flat: FlatLayout, data: mujoco.MjData) -> _native.SensorGather:
    """The gather that fills `flat.sensors`' array from `data`."""
    gather = _native.SensorGather(flat.sensors.size)
    copies, rotations = _gather_plan(scene, flat)
    for source, (dst, src) in copies.items():
        gather.add_copies(getattr(data, source), dst, src)
    for source, (dst, src) in rotations.items():
        gather.add_rotations(getattr(data, source), dst, src)
    return gather


def gathered_arrays(scene: SceneLayout, flat: FlatLayout) -> frozenset[str]:
    """The names of the mjData arrays `sensor_gather` reads."""
    copies, rotations = _gather_plan(scene, flat)
    return frozenset(copies) | frozenset(rotations)


_Plan = dict[str, tuple[list[int], list[int]]]


def _gather_plan(scene: SceneLayout, flat: FlatLayout) -> tuple[_Plan, _Plan]:
    """Per mjData array, the (places, sources) of its copies and the (places, quaternion starts) of its rotations
    into `flat.sensors`' array."""
    # source array -> (places, sources) for copies, (places, quaternion starts) for rotations
    copies: dict[str, tuple[list[int], list[int]]] = {}
    rotations: dict[str, tuple[list[int], list[int]]] = {}

    def copy(source: str, places: range, sources: list[int]) -> None:
        dst, src = copies.setdefault(source, ([], []))
        dst += places
        src += sources

    def rotate(source: str, place: int, start: int) -> None:
        dst, src = rotations.setdefault(source, ([], []))
        dst.append(place)
        src.append(start)

    for slot in flat.sensors.slots:
        target = scene.objects[slot.object]
        places = range(slot.offset, slot.offset + slot.size)
        value_type = ValueType(slot.type)
        if slot.part == "angles":
            copy("qpos", places, target.qpos_adr.tolist())
        elif slot.part == "angular_velocities":
            copy("qvel", places, target.dof_adr.tolist())
        elif slot.part == "torques":
            # The actuators' torques (forces) on the joints.
            copy("qfrc_actuator", places, target.dof_adr.tolist())
        elif slot.part == "object_sensors" and value_type == ValueType.POSITION:
            copy("xpos", places, [3 * target.body + k for k in range(3)])
        elif slot.part == "object_sensors" and value_type == ValueType.RPY:
            rotate("xquat", slot.offset, 4 * target.body)
        elif slot.part == "object_sensors" and value_type == ValueType.VELOCITY_3D and target.free_dof >= 0:
            # The free joint's linear velocity: of the body's origin, in the world frame.
            copy("qvel", places, [target.free_dof + k for k in range(3)])
        elif slot.part == "object_sensors" and value_type == ValueType.ANGULAR_VELOCITY_3D:
            # cvel's rotational part is the body's angular velocity in the world frame (qvel's is in the body's).
            copy("cvel", places, [6 * target.body + k for k in range(3)])
        elif slot.part == "sensors":
            reading = target.sensors[slot.sensor][slot.index]
            if reading.type == ValueType.RPY:
                # A quaternion (framequat, ballquat, a ball joint's qpos), sent as roll, pitch and yaw.
                rotate(reading.source, slot.offset, reading.adr)
            else:
                copy(reading.source, places, list(range(reading.adr, reading.adr + reading.dim)))
        else:
            raise Error(f"a MuJoCo scene has no {value_type.name} reading for {slot.part} of '{slot.object}'")
    return copies, rotations


@dataclass(frozen=True)
class ControlRanges:
    """Per flat control value, what a message about a value outside its actuator's ctrlrange needs."""

    scale: np.ndarray  # joint units to the actuator's control: ctrl = value * scale / divisor
    divisor: np.ndarray
    low: np.ndarray  # the ctrlrange, -inf/inf where unlimited
    high: np.ndarray
    names: list[tuple[str, str]]  # each value's (object, control)
    # A mocap body's name by the index of its qw in the values, which the scatter reports when it normalises the
    # body's quaternion from another length.
    quaternions: dict[int, str] = field(default_factory=dict)

    def value_range(self, i: int) -> tuple[float, float]:
        """Value `i`'s ctrlrange in the units the controller sends."""
        low, high = sorted((self.low[i] * self.divisor[i] / self.scale[i],
                            self.high[i] * self.divisor[i] / self.scale[i]))
        return float(low), float(high)


def control_scatter(
    scene: SceneLayout, flat: FlatLayout, data: mujoco.MjData
) -> tuple[_native.ControlScatter, ControlRanges]:
    """The scatter that writes `flat.controls`' arrays to `data.ctrl` (and a mocap body's pose to `data.mocap_pos`
    and `mocap_quat`), refusing a value MuJoCo would zero, and the ranges it reports values outside of."""
    scale: list[float] = []
    divisor: list[float] = []
    low: list[float] = []
    high: list[float] = []
    places: list[int] = []
    objects: list[int] = []
    names: list[tuple[str, str]] = []
    events = []
    poses = []
    quaternions: dict[int, str] = {}
    for k, placed in enumerate(flat.controls.objects):
        target = scene.objects[placed.name]
        places += target.ctrl_adr.tolist()
        scale += target.ctrl_scale.tolist()
        divisor += target.ctrl_divisor.tolist()
        low += target.ctrl_low.tolist()
        high += target.ctrl_high.tolist()
        objects += [k] * len(target.description.controls)
        names += [(placed.name, control) for control in target.description.controls]
        for event in placed.events:
            e = target.events[event]
            events.append(_native.ScatteredEvent(place=e.ctrl_adr, off=e.off, on=e.on))
        if target.mocap >= 0:
            # Its object's controls end with its pose (coupler.mujoco.layout MOCAP_CONTROLS).
            first = placed.offset + placed.size - len(MOCAP_CONTROLS)
            poses.append(_native.ScatteredPose(object=k, first=first, body=target.mocap, name=placed.name))
            quaternions[first + 3] = placed.name
    # A place of -1 is no actuator's but a pose's: the scatter takes the others, in order, as its values.
    values = [_native.ScatteredValue(object=objects[i], place=p, scale=scale[i], low=low[i], high=high[i],
                                     divisor=divisor[i], object_name=names[i][0], control=names[i][1])
              for i, p in enumerate(places) if p >= 0]
    ranges = ControlRanges(scale=np.array(scale), divisor=np.array(divisor), low=np.array(low), high=np.array(high),
                           names=names, quaternions=quaternions)
    scatter = _native.ControlScatter(data.ctrl, len(flat.controls.objects), values, events, data.mocap_pos,
                                     data.mocap_quat, poses, max_control=_MAX_CONTROL)
    return scatter, ranges
