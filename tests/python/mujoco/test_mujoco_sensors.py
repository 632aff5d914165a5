"""Every MuJoCo sensor is served under its own name: with a Click type where one means the same,
else as one NUMBER per value; the scene's own sensors are those of the served thing "world"."""

from __future__ import annotations

from pathlib import Path

import mujoco
import pytest

from coupler.wire.messages import ValueType
from coupler.mujoco.layout import SCENE_SENSORS
from coupler.mujoco.simulation import MujocoSimulation

MODELS = Path(__file__).parent / "models"
V = ValueType
# Sensor types the model cannot hold without a mesh file or a plugin.
_NOT_IN_MODEL = {mujoco.mjtSensor.mjSENS_TACTILE, mujoco.mjtSensor.mjSENS_PLUGIN}


@pytest.fixture(scope="module")
def sim() -> MujocoSimulation:
    sim = MujocoSimulation(MODELS / "every_sensor.xml")
    sim.step(50)
    return sim


def _readings(sim: MujocoSimulation) -> dict[str, tuple[str, list]]:
    return {name: (obj, readings) for obj, o in sim.sensors().objects.items() for name, readings in o.sensors.items()}


def test_the_model_has_every_sensor_type() -> None:
    model = mujoco.MjModel.from_xml_path(str(MODELS / "every_sensor.xml"))
    every = {int(v) for v in mujoco.mjtSensor.__members__.values()} - {int(t) for t in _NOT_IN_MODEL}
    assert {int(t) for t in model.sensor_type} == every


@pytest.mark.parametrize(("sensor", "obj", "types"), [
    ("ball_touch", "ball", [V.FORCE_1D]),
    ("tool_acc", "arm", [V.ACCELERATION_3D]),
    ("reach_pos", "arm", [V.LINEAR_POSITION]),
    ("reach_vel", "arm", [V.LINEAR_VELOCITY]),
    ("shoulder_pos", "arm", [V.ANGLE]),
    ("swivel_quat", "arm", [V.RPY]),
    ("tool_linvel", "arm", [V.VELOCITY_3D]),
    ("arm_com", "arm", [V.POSITION]),
    ("tool_compass", "arm", [V.NUMBER] * 3),
    ("coupling_pos", "arm", [V.NUMBER]),
    ("shoulder_motor_frc", "arm", [V.NUMBER]),  # gear 5: not the joint torque
    ("tool_x", "arm", [V.NUMBER] * 3),
    ("arm_angmom", "arm", [V.NUMBER] * 3),
    ("ball_tool_fromto", "ball", [V.NUMBER] * 6),
    ("lookout_range", SCENE_SENSORS, [V.NUMBER]),
    ("sim_clock", SCENE_SENSORS, [V.NUMBER]),
    ("user_numbers", SCENE_SENSORS, [V.NUMBER] * 3),
])
def test_each_sensor_has_the_type_that_fits_under_its_own_name(sim: MujocoSimulation, sensor: str, obj: str,
                                                                types: list[ValueType]) -> None:
    assert sim.handshake().objects[obj].sensors[sensor] == types


def test_number_readings_are_the_sensors_values_in_order(sim: MujocoSimulation) -> None:
    readings = _readings(sim)
    for name in ("tool_compass", "ball_tool_fromto", "lookout_range", "kinetic_energy"):
        _, sent = readings[name]
        assert [r.value[0] for r in sent] == list(sim.data.sensor(name).data), name


def test_the_clock_sensor_reads_the_simulated_time(sim: MujocoSimulation) -> None:
    message = sim.sensors()
    assert message.objects[SCENE_SENSORS].sensors["sim_clock"][0].value == (pytest.approx(message.simulated_time),)


def test_a_linear_reading_is_the_slide_position_in_metres(sim: MujocoSimulation) -> None:
    _, sent = _readings(sim)["reach_pos"]
    assert sent[0].value == (sim.data.joint("reach").qpos[0],)


def test_a_scene_without_sensors_of_its_own_serves_no_world() -> None:
    assert SCENE_SENSORS not in MujocoSimulation(MODELS / "slide_cart.xml").handshake().objects


@pytest.mark.parametrize(("sensor", "obj", "unit"), [
    ("lookout_range", SCENE_SENSORS, "m"),
    ("sim_clock", SCENE_SENSORS, "s"),
    ("kinetic_energy", SCENE_SENSORS, "J"),
    ("ball_in_camera", "ball", "px"),
    ("arm_angmom", "arm", "kg m^2/s"),
    ("reach_limit_pos", "arm", "m"),  # a slide's limit
    ("coupling_pos", "arm", ""),  # a fixed tendon: its coefficients' units
    ("user_numbers", SCENE_SENSORS, ""),  # the model's own
])
def test_number_readings_carry_their_sensors_unit_in_the_handshake(sim: MujocoSimulation, sensor: str, obj: str,
                                                                   unit: str) -> None:
    assert sim.handshake().objects[obj].sensor_units[sensor] == unit


def test_only_sensors_with_number_readings_have_a_unit_in_the_handshake(sim: MujocoSimulation) -> None:
    for described in sim.handshake().objects.values():
        numbers = {name for name, types in described.sensors.items() if ValueType.NUMBER in types}
        assert set(described.sensor_units) == numbers
