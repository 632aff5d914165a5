"""MuJoCo's own warnings go to coupler's rate-limited log; a Reset to a state that is not finite is refused."""

from __future__ import annotations

import logging

import mujoco
import numpy as np
import pytest

from coupler.mujoco import warning_log
from coupler.mujoco.simulation import MujocoSimulation
from coupler.serve.rate_limited_log import DEFAULT_BURST, RateLimitedLog
from coupler.serve.simulation_server import SimulationServer
from coupler.wire.messages import ErrorCode, ErrorMessage, ResetMessage, SensorRequestMessage

PENDULUM = """
<mujoco>
  <worldbody>
    <body name="pendulum"><joint name="swing" axis="0 1 0"/><geom size="0.1" mass="1"/></body>
  </worldbody>
</mujoco>
"""


def test_mujoco_warnings_are_logged_at_a_bounded_rate_and_no_log_file_is_written(tmp_path, monkeypatch, caplog, capfd):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(warning_log, "_limited", RateLimitedLog(warning_log.log))
    simulation = MujocoSimulation(mujoco.MjModel.from_xml_string(PENDULUM))
    with caplog.at_level(logging.WARNING, logger="coupler.mujoco"):
        for _ in range(50):  # each reset clears MuJoCo's warning counts: every step warns again
            simulation.reset_to([1e12], [])
            simulation.step()
    warned = [r for r in caplog.records if "MuJoCo warning: " in r.getMessage()]
    assert 1 <= len(warned) <= DEFAULT_BURST
    assert "huge value in QPOS" in warned[0].getMessage()
    assert "WARNING" not in capfd.readouterr().out
    assert not (tmp_path / "MUJOCO_LOG.TXT").exists()


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_reset_to_a_state_that_is_not_finite_is_refused_and_the_state_kept(bad):
    sim = SimulationServer(MujocoSimulation(mujoco.MjModel.from_xml_string(PENDULUM)))
    before = sim.handle(SensorRequestMessage())
    for reset in (ResetMessage(qpos=[bad]), ResetMessage(qvel=[bad])):
        answer = sim.handle(reset)
        assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.CONTROL_MISMATCH
        assert "not finite" in answer.text
    assert sim.handle(SensorRequestMessage()) == before
