"""Models nobody wrote for coupler, as users bring them: every MJCF Gymnasium ships and MuJoCo's own test model, served
by a lockstep loop and driven through a Session, end each Control where mj_step on a copy of the model ends, bit for
bit (the served ctrl copied across: how values become ctrl is the mapping tests')."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")
gymnasium = pytest.importorskip("gymnasium")

from coupler.controller.session import Session  # noqa: E402
from coupler.mujoco.simulation import MujocoSimulation  # noqa: E402
from served_loop import Served  # noqa: E402

_MODELS = sorted((Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets").glob("*.xml"))
_MODELS.append(Path(mujoco.__file__).parent / "testdata" / "model.xml")
_CONTROLS = 30


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("path", _MODELS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_a_model_nobody_wrote_for_coupler_steps_as_mj_step_does_bit_for_bit(path: Path, tmp_path: Path) -> None:
    served = MujocoSimulation(path)
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    rng = np.random.default_rng(7)
    address = f"ipc://{tmp_path / 'model.sock'}"
    with Served(served, address), Session(address, timeout=10.0) as session:
        if model.nkey:
            mujoco.mj_resetDataKeyframe(model, data, 0)  # where a served scene with keyframes starts
        controls = session.controls()
        driven = [name for name, described in session.handshake.objects.items() if described.controls]
        assert driven or model.nu == 0
        for k in range(_CONTROLS):
            for name in driven:
                controls[name][:] = rng.uniform(-2.0, 2.0, len(controls[name]))  # now and then beyond a range
            controls.steps = 1 + k % 4
            session.step(controls)
            data.ctrl[:] = served.data.ctrl
            mujoco.mj_step(model, data, nstep=controls.steps)
            for field in ("time", "qpos", "qvel", "act"):
                assert np.array_equal(getattr(served.data, field), getattr(data, field)), (field, k)
