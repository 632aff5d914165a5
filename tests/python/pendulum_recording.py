"""A pendulum on a hinge, with a motor; and a recording of two runs of it, the second from a Reset, as `coupler serve
--record` writes one."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np

from coupler.record.channels import STATE_TOPIC
from coupler.record.mcap_log import McapLog
from coupler.record.scene_record import MODEL_BINARY
from coupler.record.state_frame import encode_state

PENDULUM = """
<mujoco>
  <worldbody>
    <body name="pole"><joint name="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.02"/></body>
  </worldbody>
  <actuator><motor name="torque" joint="hinge"/></actuator>
</mujoco>
"""
STEP = 0.01  # seconds between two states


def two_runs(path: Path) -> Path:
    """100 states from 0 s with the hinge at +0.01 rad per step, then, from a Reset, 50 from 0 s again at -0.01 rad
    per step."""
    model = mujoco.MjModel.from_xml_string(PENDULUM)
    binary = np.empty(mujoco.mj_sizeModel(model), dtype=np.uint8)
    mujoco.mj_saveModel(model, None, binary)
    log = McapLog(str(path))
    log.attachment(MODEL_BINARY, "application/x-mujoco-mjb", binary.tobytes(), 0)
    for k, (step, sign) in enumerate([(s, 1.0) for s in range(100)] + [(s, -1.0) for s in range(50)]):
        log.message(STATE_TOPIC, encode_state(step * STEP, step, np.array([sign * 0.01 * step]), np.zeros(1),
                                              np.zeros(0), np.zeros(1)), k, k)
    log.finish()
    return path
