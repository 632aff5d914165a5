"""A Control for every world that steps no world (it resets the worlds it lists, or reads them all) is answered in
C++ by the world hot path like any other: the worlds it resets are left as MuJoCo's own reset to the scene's start
keyframe leaves them, the others as they were. A scene without controls, whose Controls for every world hold no
values, is never stepped by them."""

from __future__ import annotations


import numpy as np
import pytest

pytest.importorskip("mujoco")

import mujoco  # noqa: E402

from coupler.mujoco.simulation import MujocoSimulation  # noqa: E402
from coupler.serve.world_hot_path import WorldHotPath  # noqa: E402
from coupler.wire.codec import encode  # noqa: E402
from coupler.wire.messages import HandshakeInitMessage, SensorRequestMessage  # noqa: E402
from coupler.wire.world_frames import encode_world_control, read_world_answer_with_images  # noqa: E402
from served_loop import ServedBatch, ask, req_socket  # noqa: E402

WORLDS = 3
STEPS = 4
# One motor-driven hinge whose start keyframe is not MuJoCo's default state: a reset to it is told from none.
KEYFRAMED_PENDULUM = """
<mujoco>
  <option timestep="0.01"/>
  <worldbody>
    <body name="arm">
      <joint name="hinge" type="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
    </body>
  </worldbody>
  <actuator><motor name="m" joint="hinge" ctrlrange="-2 2"/></actuator>
  <keyframe><key name="start" qpos="0.4" qvel="-0.7"/></keyframe>
</mujoco>
"""
# A hinge and nothing to drive it.
UNDRIVEN = """
<mujoco>
  <worldbody>
    <body><joint name="hinge" type="hinge" axis="0 1 0"/><geom type="sphere" size="0.1" pos="0.2 0 0"/></body>
  </worldbody>
</mujoco>
"""


def served_keyframed(address: str, scene: str = KEYFRAMED_PENDULUM) -> ServedBatch:
    """WORLDS copies of `scene` (a one-hinge MJCF) served by a lockstep loop in a thread."""
    return ServedBatch(MujocoSimulation.from_xml_string(scene), address, WORLDS, session_timeout=60.0)


def answered_states(answer: bytes) -> np.ndarray:
    """Every world's (time, qpos, qvel) as an answer carries them."""
    _, times, data, _, _ = read_world_answer_with_images(answer, None)
    return np.column_stack([np.array(times), np.array(data).reshape(WORLDS, 2)])


def mujoco_states(datas: list[mujoco.MjData]) -> np.ndarray:
    return np.array([[d.time, d.qpos[0], d.qvel[0]] for d in datas])


def test_a_control_for_every_world_that_only_resets_worlds_is_served_in_cpp_as_mujoco_resets_them(make_address):
    model = mujoco.MjModel.from_xml_string(KEYFRAMED_PENDULUM)
    direct = [mujoco.MjData(model) for _ in range(WORLDS)]
    controls = np.array([[0.5], [-1.0], [1.5]])
    for world, data in enumerate(direct):
        mujoco.mj_resetDataKeyframe(model, data, 0)  # the scene's start, as the server starts every world
        data.ctrl[:] = controls[world]
        for _ in range(STEPS):
            mujoco.mj_step(model, data)
    stepped = mujoco_states(direct)
    with served_keyframed(make_address("ipc")) as served, req_socket(served.responder.endpoint) as driver:
        ask(driver, encode(HandshakeInitMessage()))
        ask(driver, encode_world_control(WORLDS, controls, STEPS))
        path = served.loop.hot_path
        assert isinstance(path, WorldHotPath)
        reset = answered_states(ask(driver, encode_world_control(WORLDS, None, 0, [0, 2])))
        ask(driver, encode(SensorRequestMessage()))  # handed back: C++ has reported every Control
        counted = (path.controls, path.resets, served.sim.stats.controls, served.sim.stats.steps)
    for world in (0, 2):
        mujoco.mj_resetDataKeyframe(model, direct[world], 0)
        mujoco.mj_forward(model, direct[world])
    np.testing.assert_array_equal(reset, mujoco_states(direct))
    np.testing.assert_array_equal(reset[1], stepped[1])  # world 1, not reset, as its steps left it
    assert reset[0, 1] == 0.4 and reset[0, 0] == 0.0  # at the keyframe, not MuJoCo's default state
    assert counted == (2, 2, 2, STEPS)  # both Controls and both resets in C++; the resets took no step


def test_a_control_for_every_world_with_no_values_and_no_resets_reads_every_world_in_cpp(make_address):
    controls = np.array([[0.5], [-1.0], [1.5]])
    with served_keyframed(make_address("ipc")) as served, req_socket(served.responder.endpoint) as driver:
        ask(driver, encode(HandshakeInitMessage()))
        stepped = answered_states(ask(driver, encode_world_control(WORLDS, controls, STEPS)))
        read = answered_states(ask(driver, encode_world_control(WORLDS, None)))
        ask(driver, encode(SensorRequestMessage()))  # handed back: C++ has reported every Control
        counted = (served.loop.hot_path.controls, served.sim.stats.controls, served.sim.stats.steps)
    np.testing.assert_array_equal(read, stepped)
    assert counted == (2, 2, STEPS)


def test_a_control_for_every_world_of_a_scene_without_controls_steps_no_world_in_cpp(make_address):
    model = mujoco.MjModel.from_xml_string(UNDRIVEN)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    with served_keyframed(make_address("ipc"), UNDRIVEN) as served, req_socket(served.responder.endpoint) as driver:
        assert served.worlds.control_width == 0  # its Controls for every world hold no values
        ask(driver, encode(HandshakeInitMessage()))
        answer = answered_states(ask(driver, encode_world_control(WORLDS, None, STEPS)))
        ask(driver, encode(SensorRequestMessage()))  # handed back: C++ has reported every Control
        counted = (served.loop.hot_path.controls, served.sim.stats.steps)
    np.testing.assert_array_equal(answer, mujoco_states([data] * WORLDS))  # as it starts: no world stepped
    assert counted == (1, 0)
