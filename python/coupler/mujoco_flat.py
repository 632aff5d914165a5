"""Index arrays between a MuJoCo scene's `mjData` and the flat arrays of its handshake.

Built once from `coupler.mujoco_layout` and `coupler.flat_layout`, so that
reading the state is a few NumPy gathers and applying controls a few
scatters, whatever the scene.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from coupler.errors import Error
from coupler.flat_layout import FlatLayout
from coupler.messages import ValueType
from coupler.mujoco_layout import SceneLayout


def _indices(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.intp)


@dataclass(frozen=True)
class Gather:
    """out[dst] = source[src]; for the RPY gathers, src holds one quaternion per three places of dst."""

    dst: np.ndarray
    src: np.ndarray


class _GatherBuilder:
    def __init__(self) -> None:
        self.dst: list[int] = []
        self.src: list[int] = []

    def add(self, places: range, sources: Iterable[int]) -> None:
        self.dst += places
        self.src += sources

    def build(self) -> Gather:
        return Gather(_indices(self.dst), _indices(self.src))


@dataclass(frozen=True)
class SensorIndex:
    """Where each number of the flat sensor array comes from in `mjData`."""

    qpos: Gather  # angles
    qvel: Gather  # angular velocities
    qfrc_actuator: Gather  # the actuators' torques (forces) on the joints
    xpos: Gather  # object positions: src holds bodies
    xquat: Gather  # object RPYs: src holds bodies
    sensordata: Gather  # named sensor readings but framequat
    sensor_quat: Gather  # framequat readings, sent as RPY: src holds where each quaternion starts


@dataclass(frozen=True)
class ControlIndex:
    """Per flat control value and per flat event, where it goes in `mjData.ctrl`."""

    ctrl_adr: np.ndarray
    scale: np.ndarray  # joint units to the actuator's control
    low: np.ndarray  # the ctrlrange, -inf/inf where unlimited
    high: np.ndarray
    names: list[tuple[str, str]]  # each value's (object, control), for messages
    event_adr: np.ndarray
    event_off: np.ndarray
    event_on: np.ndarray


def sensor_index(scene: SceneLayout, flat: FlatLayout) -> SensorIndex:
    qpos, qvel, qfrc, xpos, xquat, sensordata, sensor_quat = (_GatherBuilder() for _ in range(7))
    for slot in flat.sensors.slots:
        target = scene.objects[slot.object]
        places = range(slot.offset, slot.offset + slot.size)
        value_type = ValueType(slot.type)
        if slot.part == "angles":
            qpos.add(places, target.qpos_adr.tolist())
        elif slot.part == "angular_velocities":
            qvel.add(places, target.dof_adr.tolist())
        elif slot.part == "torques":
            qfrc.add(places, target.dof_adr.tolist())
        elif slot.part == "object_sensors" and value_type == ValueType.POSITION:
            xpos.add(places, [target.body])
        elif slot.part == "object_sensors" and value_type == ValueType.RPY:
            xquat.add(places, [target.body])
        elif slot.part == "sensors":
            reading = target.sensors[slot.sensor][slot.index]
            if reading.type == ValueType.RPY:
                sensor_quat.add(places, [reading.adr])
            else:
                sensordata.add(places, range(reading.adr, reading.adr + reading.dim))
        else:
            raise Error(f"a MuJoCo scene has no {value_type.name} reading for {slot.part} of '{slot.object}'")
    return SensorIndex(qpos.build(), qvel.build(), qfrc.build(), xpos.build(), xquat.build(), sensordata.build(),
                       sensor_quat.build())


def control_index(scene: SceneLayout, flat: FlatLayout) -> ControlIndex:
    adr, scale, low, high, names = [], [], [], [], []
    event_adr, event_off, event_on = [], [], []
    for placed in flat.controls.objects:
        target = scene.objects[placed.name]
        adr += target.ctrl_adr.tolist()
        scale += target.ctrl_scale.tolist()
        low += target.ctrl_low.tolist()
        high += target.ctrl_high.tolist()
        names += [(placed.name, control) for control in target.description.controls]
        for event in placed.events:
            e = target.events[event]
            event_adr.append(e.ctrl_adr)
            event_off.append(e.off)
            event_on.append(e.on)
    return ControlIndex(
        ctrl_adr=_indices(adr), scale=np.array(scale), low=np.array(low), high=np.array(high),
        names=names,
        event_adr=_indices(event_adr), event_off=np.array(event_off), event_on=np.array(event_on),
    )
