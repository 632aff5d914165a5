"""A served scene is settled for its readings by only the stages of mj_forward they need
(coupler.mujoco.readings_stages): its readings are those mj_forward leaves, bit for bit, its steps those of mj_step, and
the stages its readings do not need (accelerations, constraint forces) are left to the next step."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from coupler.mujoco.flat import gathered_arrays  # noqa: E402
from coupler.mujoco.readings_stages import settling  # noqa: E402
from coupler.mujoco.simulation import MujocoSimulation  # noqa: E402
from coupler.scenes import SCENES_DIR  # noqa: E402
from walker_scene import walker  # noqa: E402

# Each case: MuJoCo's integrator and its flags.
_INTEGRATORS = {
    "Euler": ("Euler", ""),
    "implicitfast": ("implicitfast", ""),
    "RK4": ("RK4", ""),
    # mj_step compares the forward and inverse dynamics between its stages: every RK4 step starts afresh.
    "RK4 with fwdinv": ("RK4", '<flag fwdinv="enable"/>'),
}
# The arrays the walker's readings are gathered from, beside qpos and qvel.
_READ = ("xpos", "xquat", "cvel", "qfrc_actuator")


def _walker(tmp_path: Path, integrator: str) -> Path:
    path = tmp_path / "walker.xml"
    path.write_text(walker(*_INTEGRATORS[integrator]))
    return path


def _apply(simulation: MujocoSimulation, value: float) -> None:
    """Every control of `simulation` set to `value`."""
    flat = simulation.flat.controls
    simulation.apply_values(np.full(flat.values.size, value), np.ones(len(flat.objects), bool),
                            np.ones(flat.events_on.size, bool), np.zeros(flat.events_on.size, bool))


@pytest.mark.parametrize("integrator", list(_INTEGRATORS))
def test_a_scene_settled_by_its_readings_stages_reads_as_mj_forward_and_steps_as_mj_step_leave_it(
        tmp_path: Path, integrator: str) -> None:
    path = _walker(tmp_path, integrator)
    served = MujocoSimulation(path)
    stages, forwarded = settling(served.model, gathered_arrays(served.layout, served.flat))
    assert stages is not None and forwarded == (integrator != "RK4 with fwdinv")
    model = mujoco.MjModel.from_xml_path(str(path))
    data, forwarded_copy = mujoco.MjData(model), mujoco.MjData(model)
    readings = np.zeros(served.flat.sensors.values.size)
    rng = np.random.default_rng(11)
    for k in range(40):
        value, steps = rng.uniform(-1.5, 1.5), 1 + k % 4  # now and then beyond a control's range
        _apply(served, value)
        served.step(steps)
        served.sensor_values(readings)
        data.ctrl[:] = served.data.ctrl  # how values become ctrl is another test's: here, the steps and readings
        mujoco.mj_step(model, data, nstep=steps)
        for field in ("time", "qpos", "qvel", "qacc_warmstart", "ctrl"):
            assert np.array_equal(getattr(served.data, field), getattr(data, field)), (field, k)
        mujoco.mj_copyData(forwarded_copy, model, data)
        mujoco.mj_forward(model, forwarded_copy)
        for field in _READ:
            assert np.array_equal(getattr(served.data, field), getattr(forwarded_copy, field)), (field, k)


def test_a_read_leaves_the_accelerations_its_readings_do_not_need_to_the_next_step(tmp_path: Path) -> None:
    served = MujocoSimulation(_walker(tmp_path, "Euler"))
    _apply(served, 0.5)
    served.step(20)  # falling onto the floor: accelerations and contact forces change from step to step
    stepped = served.data.qacc.copy()
    served.sensor_values(np.zeros(served.flat.sensors.values.size))
    assert np.array_equal(served.data.qacc, stepped)
    whole = mujoco.MjData(served.model)
    mujoco.mj_copyData(whole, served.model, served.data)
    mujoco.mj_forward(served.model, whole)
    assert not np.array_equal(whole.qacc, stepped)  # which mj_forward would have computed anew


def test_a_scene_with_mujoco_sensors_is_settled_by_all_of_mj_forward() -> None:
    served = MujocoSimulation(SCENES_DIR / "arm.xml")
    assert settling(served.model, gathered_arrays(served.layout, served.flat)) == (None, True)
    _apply(served, 0.3)
    served.step(5)
    served.sensor_values(np.zeros(served.flat.sensors.values.size))
    whole = mujoco.MjData(served.model)
    mujoco.mj_copyData(whole, served.model, served.data)
    mujoco.mj_forward(served.model, whole)
    for field in ("qacc", "sensordata"):
        assert np.array_equal(getattr(served.data, field), getattr(whole, field)), field
