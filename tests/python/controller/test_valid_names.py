"""A control, object or sensor that does not exist is refused in one line that lists the valid names."""

from __future__ import annotations

import numpy as np
import pytest

from coupler.controller.controls import Controls
from coupler.controller.sensor_readings import SensorReadings
from coupler.wire.errors import Error
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import (HandshakeMessage, ObjectDescription, ObjectSensors, Sensor, SensorMessage,
                                   ValueType)
from coupler.wire.name_list import valid_names

V = ValueType


def _arm() -> HandshakeMessage:
    return HandshakeMessage(objects={
        "arm": ObjectDescription(controls=["shoulder", "elbow"], control_types=[V.ANGLE, V.ANGLE],
                                 joint_sensors=["shoulder", "elbow"],
                                 joint_sensor_types=[V.ANGLE, V.ANGULAR_VELOCITY_1D, V.TORQUE_1D],
                                 control_events={"gripper": V.ACTIVATED}, sensors={"imu": [V.ACCELERATION_3D]}),
        "box": ObjectDescription(object_sensors=[V.POSITION]),
    }, time_step=0.002)


def _readings() -> SensorReadings:
    return SensorReadings(_arm(), SensorMessage(objects={
        "arm": ObjectSensors(angles=[0.0, 0.0], angular_velocities=[0.0, 0.0], torques=[0.0, 0.0],
                             sensors={"imu": [Sensor(V.ACCELERATION_3D, (0.0, 0.0, 9.8))]}),
        "box": ObjectSensors()}))


def _flat_readings() -> SensorReadings:
    handshake = _arm()
    flat = FlatLayout(handshake)
    return SensorReadings.from_array(handshake, flat, np.zeros(flat.sensors.values.size), 0.0)


def test_an_unknown_control_lists_the_objects_controls_in_order() -> None:
    with pytest.raises(Error, match=r"^object 'arm' has no control named 'elbw'; valid names: 'shoulder', 'elbow'$"):
        Controls(_arm()).set("arm", "elbw", 0.1)


def test_an_unknown_controllable_object_lists_the_controllable_ones() -> None:
    with pytest.raises(Error, match=r"^no controllable object named 'box'; valid names: 'arm'$"):
        Controls(_arm())["box"]


def test_an_unknown_event_lists_the_objects_events() -> None:
    with pytest.raises(Error, match=r"; valid names: 'gripper'$"):
        Controls(_arm()).event("arm", "grip", True)


@pytest.mark.parametrize("readings", [_readings, _flat_readings])
def test_an_unknown_joint_lists_the_objects_joint_sensors(readings) -> None:
    with pytest.raises(Error, match=r"^object 'arm' has no joint sensor named 'wrist'; valid names: 'shoulder', "
                                    r"'elbow'$"):
        readings().angle("arm", "wrist")


@pytest.mark.parametrize("readings", [_readings, _flat_readings])
def test_an_unknown_sensor_lists_the_objects_sensors(readings) -> None:
    with pytest.raises(Error, match=r"has no sensor named 'gps'; valid names: 'imu'$"):
        readings().sensor("arm", "gps")


@pytest.mark.parametrize("readings", [_readings, _flat_readings])
def test_an_unknown_object_lists_the_objects(readings) -> None:
    with pytest.raises(Error, match=r"no object named 'ram' .*; valid names: 'arm', 'box'$"):
        readings().object_sensor("ram", V.POSITION)


def test_a_long_list_names_the_first_few_and_how_many_more() -> None:
    names = [f"joint{i}" for i in range(40)]
    listed = valid_names(names)
    assert listed.startswith("valid names: 'joint0', 'joint1'")
    assert listed.endswith(", ... and 28 more")
