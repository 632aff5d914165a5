"""The test models served for real (the native server path): a controller finds every
MuJoCo sensor by its own name with its values, and drives every control."""

from __future__ import annotations

from pathlib import Path

import mujoco
import pytest

from coupler.controller.session import Session
from peers import coupler_server, free_tcp_address

MODELS = Path(__file__).parent / "models"
_QUATERNIONS = (mujoco.mjtSensor.mjSENS_FRAMEQUAT, mujoco.mjtSensor.mjSENS_BALLQUAT)


@pytest.mark.parametrize("model_name", ["every_sensor", "floating_base"])
def test_a_served_model_gives_every_sensor_by_its_own_name_with_its_number_of_values(model_name: str) -> None:
    path = MODELS / f"{model_name}.xml"
    model = mujoco.MjModel.from_xml_path(str(path))
    address = free_tcp_address()
    with coupler_server(address, "--scene", str(path)), Session(address, reset=True) as session:
        readings = session.step(session.controls()).message
    by_name = {name: r for o in readings.objects.values() for name, r in o.sensors.items()}
    for s in range(model.nsensor):
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_SENSOR, s)
        expected = 3 if int(model.sensor_type[s]) in _QUATERNIONS else int(model.sensor_dim[s])
        assert sum(len(r.value) for r in by_name[name]) == expected, name


def test_a_served_tendon_robot_takes_a_control_for_every_actuator() -> None:
    path = MODELS / "tendon_legs.xml"
    address = free_tcp_address()
    with coupler_server(address, "--scene", str(path)), Session(address, reset=True) as session:
        controls = session.controls()
        controls["walker"][:] = [1.0, -1.0, 1.0, -1.0, 0.3, 0.15, 0.3, 0.15]
        before = session.sensors().angles("walker")
        after = session.step(controls)
        for _ in range(50):
            after = session.step(controls)
    assert len(controls["walker"]) == 8
    assert abs(after.angles("walker") - before).max() > 0.01
