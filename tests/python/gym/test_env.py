"""CouplerEnv: spaces from the handshake, steps and resets through its own server, the Gymnasium checker."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("mujoco")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from coupler.gym import CouplerEnv  # noqa: E402
from coupler.serve.serve_process import ServeProcess  # noqa: E402
from coupler.gym.tasks.arm_reach import BOX_XY, HOME_QPOS, tool_to_box  # noqa: E402
from coupler.wire.errors import Error  # noqa: E402
from coupler.wire.flat_layout import FlatLayout  # noqa: E402
from coupler.wire.messages import ValueType  # noqa: E402

ARM_TIME_STEP = 0.002


@pytest.fixture(scope="module")
def reach_env():
    env = CouplerEnv(scene="arm", task="ArmReach", frame_skip=5)
    yield env
    env.close()


def test_arm_reach_passes_the_gymnasium_env_checker_without_warnings(reach_env):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(reach_env, skip_render_check=True)


def test_the_handshake_gives_each_arm_control_its_joint_range(reach_env):
    ranges = reach_env.session.handshake.objects["arm"].control_ranges
    assert len(ranges) == 7 and all(r.limited for r in ranges)
    assert (ranges[0].min, ranges[0].max) == pytest.approx((-2.8973, 2.8973))


def test_action_space_is_the_seven_arm_controls_then_the_gripper_event(reach_env):
    space = reach_env.action_space
    assert space.shape == (8,)
    assert (space.low[7], space.high[7]) == (0.0, 1.0)


def test_observation_has_every_reading_the_handshake_declares(reach_env):
    observation, _ = reach_env.reset(seed=0)
    assert observation.shape == (len(FlatLayout(reach_env.session.handshake).sensors.values),)
    assert reach_env.observation_space.contains(observation)


def test_a_step_holds_the_action_for_frame_skip_simulation_steps(reach_env):
    _, info = reach_env.reset(seed=0)
    _, _, _, _, after = reach_env.step(reach_env.action_space.sample())
    assert after["simulated_time"] - info["simulated_time"] == pytest.approx(5 * ARM_TIME_STEP)


def test_reset_with_the_same_seed_starts_from_the_same_state(reach_env):
    first, _ = reach_env.reset(seed=3)
    for _ in range(3):
        reach_env.step(reach_env.action_space.sample())
    again, info = reach_env.reset(seed=3)
    np.testing.assert_array_equal(again, first)
    assert info["simulated_time"] == 0.0


def test_the_reach_task_moves_the_box_at_reset_through_the_reset_state_extension(reach_env):
    reach_env.reset(seed=3)
    one = reach_env.session.sensors().object_sensor("box", ValueType.POSITION)
    reach_env.reset(seed=4)
    other = reach_env.session.sensors().object_sensor("box", ValueType.POSITION)
    expected = HOME_QPOS[BOX_XY] + np.random.default_rng(4).uniform(-0.1, 0.1, size=2)
    np.testing.assert_allclose(other[:2], expected)
    assert not np.allclose(one[:2], other[:2])


def test_reach_reward_is_minus_the_tool_to_box_distance(reach_env):
    reach_env.reset(seed=0)
    action = reach_env.action_space.low.clip(-0.5, 0.5)
    _, reward, _, _, _ = reach_env.step(action)
    readings = reach_env.session.sensors()
    assert reward == pytest.approx(-np.linalg.norm(tool_to_box(readings)))
    assert reward < 0


def test_scene_env_without_a_task_gives_zero_reward_and_never_terminates():
    env = gymnasium.make("coupler/Scene-v0", scene="arm", frame_skip=2)
    try:
        env.reset(seed=1)
        results = [env.step(env.action_space.sample()) for _ in range(3)]
        assert [r[1] for r in results] == [0.0] * 3
        assert not any(r[2] for r in results)
    finally:
        env.close()


def test_env_connects_to_a_server_at_the_given_address():
    server = ServeProcess(["--scene", "arm"]).start()
    try:
        env = CouplerEnv(address=server.endpoint, task="ArmPick")
        try:
            observation, _ = env.reset(seed=0)
            assert env.observation_space.contains(observation)
        finally:
            env.close()
        assert server.poll() is None
    finally:
        server.close()


def test_closing_the_env_stops_its_server():
    env = CouplerEnv(scene="arm")
    server = env._server
    env.close()
    assert server.poll() is not None


def test_a_server_that_cannot_start_gives_an_error_with_its_output():
    with pytest.raises(Error, match="exited with status .*no scene 'no_such_scene'"):
        CouplerEnv(scene="no_such_scene")


def test_an_unknown_task_name_is_refused_naming_the_choices():
    with pytest.raises(Error, match="no task named 'Juggle': give one of Ant-v5, ArmPick, ArmReach"):
        CouplerEnv(task="Juggle")


def test_a_task_that_is_none_of_the_kinds_is_refused_naming_what_it_lacks():
    with pytest.raises(Error, match=r"^task object has no reward\(readings, action\) and terminated\(readings\)$"):
        CouplerEnv(task=object())


def test_a_render_mode_with_an_address_and_no_scene_is_refused_before_connecting():
    with pytest.raises(Error, match="^render_mode with address needs scene too: the server's scene, to draw it$"):
        CouplerEnv(address="ipc:///nonexistent/coupler", render_mode="rgb_array")


def test_render_without_a_render_mode_warns_naming_the_modes_and_draws_nothing(reach_env):
    reach_env.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode='rgb_array', 'depth_array' or 'human'"):
        assert reach_env.render() is None


def test_render_before_reset_is_refused():
    env = CouplerEnv(scene="arm", render_mode="rgb_array", width=32, height=24)
    try:
        with pytest.raises(Error, match=r"^render before reset: call reset\(\) first$"):
            env.render()
    finally:
        env.close()


def test_an_action_of_the_wrong_shape_is_refused(reach_env):
    reach_env.reset(seed=0)
    with pytest.raises(Error, match=r"action of shape \(3,\)"):
        reach_env.step(np.zeros(3))


def test_gymnasium_imports_coupler_gym_for_an_id_that_names_the_module():
    code = ("import gymnasium; env = gymnasium.make('coupler.gym:coupler/ArmReach-v0'); "
            "print(env.spec.max_episode_steps); env.close()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "250"
