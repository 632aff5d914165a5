"""`coupler/Scene-v0` with `cameras=[...]`: a Dict observation of the state and the images; the vector env stacks
every world's images."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mujoco")
gymnasium = pytest.importorskip("gymnasium")

import coupler.gym  # noqa: E402,F401  registers the ids
from coupler.controller.world_session import WorldCameraImages  # noqa: E402
from coupler.gym.camera_observations import wanted_cameras  # noqa: E402
from coupler.gym.vector_env import stacked_images  # noqa: E402
from coupler.serve.serve_process import ServeProcess  # noqa: E402
from coupler.wire.errors import Error  # noqa: E402
from camera_rail import rail_scene  # noqa: E402

WIDTH, HEIGHT = 16, 12
WORLDS = 2
SCENE = rail_scene(WIDTH, HEIGHT, motor='ctrlrange="-1 1" gear="50"')


@pytest.fixture(scope="module")
def scene_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rail") / "rail.xml"
    path.write_text(SCENE)
    return path


@pytest.fixture(scope="module")
def env(scene_path: Path) -> Iterator[gymnasium.Env]:
    made = gymnasium.make("coupler/Scene-v0", scene=str(scene_path), cameras=["eye", ("eye", "depth")])
    yield made
    made.close()


@pytest.fixture(scope="module")
def vector_env(scene_path: Path) -> Iterator[gymnasium.vector.VectorEnv]:
    made = gymnasium.make_vec("coupler/Scene-v0", num_envs=WORLDS, scene=str(scene_path), frame_skip=50,
                              cameras=[("eye", ("rgb", "segmentation"))])
    yield made
    made.close()


def test_the_observation_space_is_a_dict_of_the_state_and_each_image(env):
    space = env.observation_space
    assert isinstance(space, gymnasium.spaces.Dict)
    assert set(space.spaces) == {"state", "eye/rgb", "eye/depth"}
    rgb = space["eye/rgb"]
    assert (rgb.shape, rgb.dtype, rgb.low.min(), rgb.high.max()) == ((HEIGHT, WIDTH, 3), np.uint8, 0, 255)
    assert (space["eye/depth"].shape, space["eye/depth"].dtype) == ((HEIGHT, WIDTH), np.float32)


def test_reset_and_step_return_observations_of_the_declared_space(env):
    observation, _ = env.reset(seed=0)
    assert env.observation_space.contains(observation)
    observation, *_ = env.step(env.action_space.sample())
    assert env.observation_space.contains(observation)
    assert observation["state"].shape == env.observation_space["state"].shape


def test_the_vector_env_stacks_every_worlds_images(vector_env):
    space = vector_env.observation_space
    assert space["eye/rgb"].shape == (WORLDS, HEIGHT, WIDTH, 3)
    assert space["eye/segmentation"].shape == (WORLDS, HEIGHT, WIDTH)
    observation, _ = vector_env.reset(seed=0)
    observation, *_ = vector_env.step(np.array([[1.0], [-1.0]]))
    assert space.contains(observation)
    assert observation["state"].shape == (WORLDS, vector_env.single_observation_space["state"].shape[0])
    # Pushed apart, the two worlds' carts are seen in different places.
    assert not np.array_equal(observation["eye/rgb"][0], observation["eye/rgb"][1])


def test_an_unknown_camera_is_refused_naming_it(env):
    with pytest.raises(Error, match="no camera named 'nose'"):
        wanted_cameras(["nose"], env.unwrapped.session.handshake)


def test_a_kind_the_camera_does_not_render_is_refused_naming_it(env):
    with pytest.raises(Error, match="renders no 'infrared' images"):
        wanted_cameras([("eye", "infrared")], env.unwrapped.session.handshake)


def test_an_environment_with_cameras_passes_gymnasiums_checker_without_warnings(env):
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped, skip_render_check=True)


def test_the_images_of_several_servers_stack_in_world_order():
    first = WorldCameraImages(worlds=np.array([0, 1]), rgb=np.zeros((2, HEIGHT, WIDTH, 3), np.uint8))
    second = WorldCameraImages(worlds=np.array([0]), rgb=np.full((1, HEIGHT, WIDTH, 3), 7, np.uint8))
    stacked = stacked_images([first, second])
    assert stacked.rgb.shape == (3, HEIGHT, WIDTH, 3) and stacked.depth is None
    assert stacked.rgb[:, 0, 0, 0].tolist() == [0, 0, 7]


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[ServeProcess]:
    """Every server an environment launches in the test."""
    processes: list[ServeProcess] = []
    launch = ServeProcess.launch

    def recorded(self: ServeProcess) -> ServeProcess:
        processes.append(self)
        return launch(self)

    monkeypatch.setattr(ServeProcess, "launch", recorded)
    return processes


@pytest.mark.parametrize("make", ["make", "make_vec"])
def test_an_environment_refused_for_an_unknown_camera_stops_the_servers_it_started(scene_path, launched, make):
    with pytest.raises(Error, match="no camera named 'nose'"):
        if make == "make":
            gymnasium.make("coupler/Scene-v0", scene=str(scene_path), cameras=["nose"])
        else:
            gymnasium.make_vec("coupler/Scene-v0", num_envs=WORLDS, scene=str(scene_path), cameras=["nose"])
    assert launched and all(process.poll() is not None for process in launched)
