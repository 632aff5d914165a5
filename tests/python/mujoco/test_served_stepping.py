"""A served scene steps as MuJoCo does: after every Control its state is the one `mj_step` leaves on a copy of the
model given the same controls, bit for bit, for each integrator and whichever path serves the Control (the native
hot path, or Python for one of more steps than the hot path takes)."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from coupler.controller.session import Session  # noqa: E402
from coupler.mujoco import native_stepper  # noqa: E402
from coupler.mujoco.simulation import MujocoSimulation  # noqa: E402
from coupler.serve.lockstep_loop import LockstepLoop  # noqa: E402
from coupler.serve.long_control import LONG_CONTROL_STEPS  # noqa: E402
from coupler.serve.native_responder import NativeResponder  # noqa: E402
from coupler.serve.simulation_server import SimulationServer  # noqa: E402
from coupler.wire.errors import Error  # noqa: E402

# Two damped links under gravity, a motor with a gear and a position servo: contacts-free, but every stage of a
# step (actuation, passive forces, the integrator's own) matters.
_ARM = """
<mujoco>
  <option timestep="0.002" integrator="{integrator}"/>
  <worldbody>
    <body name="arm" pos="0 0 0.5">
      <joint name="shoulder" type="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      <body name="forearm" pos="0.3 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0" damping="0.05"/>
        <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.025"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="shoulder" joint="shoulder" gear="2" ctrlrange="-1 1" ctrllimited="true"/>
    <position name="elbow" joint="elbow" kp="5"/>
  </actuator>
</mujoco>
"""

# One step (the hot path), a few, and more than the hot path takes (Python's path, in chunks).
_STEPS = (1, 3, LONG_CONTROL_STEPS + 1)


@contextlib.contextmanager
def _served(simulation: MujocoSimulation, address: str) -> Iterator[None]:
    """`simulation` served on `address` by a lockstep loop in a thread, until the block ends."""
    stop = threading.Event()
    with NativeResponder(address, SimulationServer(simulation)) as responder:
        loop = threading.Thread(target=LockstepLoop(responder).run, args=(stop, 0.05))
        loop.start()
        try:
            yield
        finally:
            stop.set()
            loop.join(timeout=10)
    assert not loop.is_alive()


@pytest.mark.parametrize("integrator", ["Euler", "implicitfast", "RK4"])
def test_a_served_scene_ends_every_control_where_mj_step_on_a_copy_ends_bit_for_bit(integrator: str,
                                                                                   tmp_path: Path) -> None:
    xml = _ARM.format(integrator=integrator)
    served = MujocoSimulation.from_xml_string(xml)
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    rng = np.random.default_rng(3)
    with _served(served, f"ipc://{tmp_path / 's.sock'}"), Session(f"ipc://{tmp_path / 's.sock'}") as session:
        controls = session.controls()
        for k in range(12):
            steps = _STEPS[k % len(_STEPS)]
            controls["arm"][:] = rng.uniform(-1.5, 1.5, 2)  # the motor's beyond its range now and then
            controls.steps = steps
            session.step(controls)
            data.ctrl[:] = served.data.ctrl  # how values become ctrl is another test's: here, the steps
            mujoco.mj_step(model, data, nstep=steps)
            for field in ("time", "qpos", "qvel", "qacc_warmstart", "ctrl"):
                assert np.array_equal(getattr(served.data, field), getattr(data, field)), (field, k)


@pytest.fixture
def library_looked_up_again() -> Iterator[None]:
    """MuJoCo's library and functions are looked up afresh in the test, and again after it."""
    native_stepper.mujoco_library.cache_clear()
    native_stepper.mujoco_functions.cache_clear()
    yield
    native_stepper.mujoco_library.cache_clear()
    native_stepper.mujoco_functions.cache_clear()


def test_without_the_mujoco_packages_library_no_scene_is_made_and_one_line_names_the_folder(
        library_looked_up_again: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(native_stepper._LIBRARY_NAMES, sys.platform, "libmujoco-absent.so*")
    with pytest.raises(Error) as refused:
        MujocoSimulation.from_xml_string(_ARM.format(integrator="Euler"))
    folder = str(Path(mujoco.__file__).parent)
    assert str(refused.value) == (f"no libmujoco-absent.so* in {folder}: serving a MuJoCo scene needs the library "
                                  "the `mujoco` package ships there")


def test_a_library_lacking_a_function_the_stepper_calls_is_refused_in_one_line_naming_it(
        library_looked_up_again: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native_stepper, "_FUNCTIONS", (*native_stepper._FUNCTIONS, "mj_stepAbsent"))
    with pytest.raises(Error, match=r"^the `mujoco` package's library \S+ lacks mj_stepAbsent: ") as refused:
        MujocoSimulation.from_xml_string(_ARM.format(integrator="Euler"))
    assert "\n" not in str(refused.value)
