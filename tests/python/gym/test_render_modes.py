"""Gymnasium's render modes: pictures of the pose each step returns, the same pictures `coupler render` draws
of the run's recording, written to a video by Gymnasium's RecordVideo."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
mujoco = pytest.importorskip("mujoco")

import imageio.v2 as imageio  # noqa: E402
from gymnasium.utils import seeding  # noqa: E402
from gymnasium.wrappers import RecordVideo  # noqa: E402
from gymnasium.wrappers.vector import RecordEpisodeStatistics  # noqa: E402
from gymnasium.wrappers.vector import RecordVideo as VectorRecordVideo  # noqa: E402
from PIL import Image  # noqa: E402

import coupler.gym  # noqa: E402,F401  (registers the ids)
from coupler.cli import main  # noqa: E402
from coupler.gym import CouplerEnv  # noqa: E402
from coupler.gym.rendering import MAX_SIZE, SceneRenderer, robots_of  # noqa: E402
from coupler.gym.tasks import ArmReach  # noqa: E402
from coupler.scenes import load_scene, scene_path  # noqa: E402
from coupler.wire.errors import Error  # noqa: E402

STEPS = 5
WIDTH, HEIGHT = 160, 120
ARM_CONTROL_PERIOD = 0.002 * 10  # ArmReach: a 2 ms step held for 10
# Mean difference, of 255, between a frame and its H.264 (yuv420p) encoding at this size.
CODEC_TOLERANCE = 3.0


@dataclass(frozen=True)
class Run:
    recording: Path
    videos: Path
    frames: np.ndarray  # what render() returned after the reset and after each step, as RecordVideo took them
    fps: float


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory) -> Run:
    """ArmReach driven for STEPS steps with its server recording, through RecordVideo."""
    folder = tmp_path_factory.mktemp("render_modes")
    recording = folder / "run.mcap"
    env = gymnasium.make("coupler/ArmReach-v0", render_mode="rgb_array", width=WIDTH, height=HEIGHT,
                         serve_flags=["--record", str(recording)])
    video = RecordVideo(env, str(folder / "videos"), episode_trigger=lambda episode: True, disable_logger=True)
    try:
        video.reset(seed=3)
        for k in range(STEPS):
            action = np.where(np.arange(video.action_space.shape[0]) % 2 == k % 2, 1.0, -1.0).astype(np.float32)
            video.step(action)
        frames = np.array(video.recorded_frames)  # the arrays render() returned, before the video encodes them
        fps = video.metadata["render_fps"]
    finally:
        video.close()
    return Run(recording, folder / "videos", frames, fps)


def _rendered(recording: Path, out: Path, fps: float, width: int = WIDTH, height: int = HEIGHT,
              world: int = 0) -> np.ndarray:
    """`coupler render` of `recording`'s world `world` as a PNG strip, cut into its frames."""
    assert main(["render", str(recording), "--out", str(out), "--fps", str(fps), "--width", str(width),
                 "--height", str(height), "--world", str(world)]) == 0
    strip = np.asarray(Image.open(out).convert("RGB"))
    return np.stack(np.split(strip, strip.shape[1] // width, axis=1))


def test_render_fps_is_one_frame_per_control_period(recorded_run):
    assert recorded_run.fps == pytest.approx(1 / ARM_CONTROL_PERIOD)
    assert recorded_run.frames.shape == (STEPS + 1, HEIGHT, WIDTH, 3)  # a frame at the reset and after each step


def test_rgb_frames_of_a_run_are_coupler_render_of_its_recording(recorded_run, tmp_path):
    rendered = _rendered(recorded_run.recording, tmp_path / "strip.png", recorded_run.fps)
    # The recording holds a state per step (none at the reset): frame k + 1 is the state after step k.
    stepped = recorded_run.frames[1:]
    assert rendered.shape == stepped.shape == (STEPS, HEIGHT, WIDTH, 3)
    assert np.mean(rendered != stepped) < 1e-3  # orientations pass through roll-pitch-yaw: a stray pixel at most
    assert np.abs(np.diff(stepped.astype(int), axis=0)).mean(axis=(1, 2, 3)).min() > 0  # the arm moved each step


def test_record_video_writes_each_frame_of_the_run(recorded_run):
    (video,) = recorded_run.videos.glob("*.mp4")
    decoded = np.array(imageio.mimread(video)).astype(int)
    # MoviePy's writer may drop the last frame of a clip; every frame it wrote is the run's, in order.
    assert len(decoded) >= STEPS and decoded.shape[1:] == (HEIGHT, WIDTH, 3)
    for k, frame in enumerate(decoded):
        errors = np.abs(recorded_run.frames.astype(int) - frame).mean(axis=(1, 2, 3))
        assert errors[k] < CODEC_TOLERANCE and int(np.argmin(errors)) == k


def _drawn_by_mujoco(poses: list[np.ndarray], width: int, height: int, depth: bool = False) -> list[np.ndarray]:
    """The arm scene in each pose (a qpos), drawn by MuJoCo's renderer from its free camera."""
    model = mujoco.MjModel.from_xml_path(str(scene_path("arm")))
    data = mujoco.MjData(model)
    drawn = []
    with mujoco.Renderer(model, height, width) as renderer:
        if depth:
            renderer.enable_depth_rendering()
        for qpos in poses:
            data.qpos[:] = qpos
            mujoco.mj_forward(model, data)
            renderer.update_scene(data)
            drawn.append(renderer.render())
    return drawn


def test_a_vector_env_draws_each_world_and_record_video_tiles_them(tmp_path):
    envs = gymnasium.make_vec("coupler/ArmReach-v0", num_envs=2, render_mode="rgb_array", width=64, height=48)
    videos = VectorRecordVideo(RecordEpisodeStatistics(envs), str(tmp_path / "videos"),
                               episode_trigger=lambda episode: episode == 0, disable_logger=True)
    try:
        videos.reset(seed=5)
        (tiles,) = videos.recorded_frames  # render() of every world at the reset, side by side
        videos.step(np.ones(videos.action_space.shape, dtype=np.float32))
        fps = videos.metadata["render_fps"]
    finally:
        videos.close()
    assert tiles.shape == (48, 2 * 64, 3) and fps == pytest.approx(1 / ARM_CONTROL_PERIOD)
    frames = np.split(tiles, 2, axis=1)
    # World i starts where ArmReach draws it from seed 5 + i.
    starts = [ArmReach().reset_state(seeding.np_random(5 + world)[0])[0] for world in range(2)]
    for frame, expected in zip(frames, _drawn_by_mujoco(starts, 64, 48)):
        np.testing.assert_array_equal(frame, expected)
    assert not np.array_equal(frames[0], frames[1])
    (video,) = (tmp_path / "videos").glob("*.mp4")
    assert imageio.get_reader(video).get_meta_data()["size"] == (2 * 64, 48)


def test_depth_array_is_the_distance_mujoco_renders_for_the_same_pose():
    simulation = load_scene("arm")  # at its first keyframe, where it starts and resets
    readings = np.zeros(simulation.flat.sensors.values.size)
    simulation.sensor_values(readings)
    renderer = SceneRenderer("arm", simulation.handshake(), simulation.flat, "depth_array", width=64, height=48)
    try:
        depth = renderer.frame(readings)
    finally:
        renderer.close()
    assert depth.dtype == np.float32 and depth.shape == (48, 64)
    np.testing.assert_allclose(depth, _drawn_by_mujoco([simulation.data.qpos], 64, 48, depth=True)[0], rtol=1e-6)


def test_human_without_a_display_is_refused_at_make_time_naming_rgb_array(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(Error, match="render_mode='rgb_array'") as refused:
        gymnasium.make("coupler/ArmReach-v0", render_mode="human")
    assert "\n" not in str(refused.value)


def test_a_render_mode_gymnasium_does_not_have_is_refused_naming_those_it_has():
    with pytest.raises(Error, match="human, rgb_array, depth_array"):
        CouplerEnv(scene="arm", render_mode="rgb")


HUMAN_RUN = """
import numpy as np
from coupler.gym import CouplerEnv

with CouplerEnv(scene="arm", render_mode="human") as env:
    env.reset()
    observation, *_ = env.step(np.ones(env.action_space.shape))
    viewer = env.renderer.viewer
    assert viewer.is_running()
    assert np.array_equal(viewer.d.qpos[:7], observation[:7]), (viewer.d.qpos[:7], observation[:7])
print("shown")
"""


def test_human_shows_each_steps_pose_in_mujocos_viewer_on_a_display():
    """Under Xvfb, a display of its own: the viewer runs and holds the arm's joint angles of the step."""
    result = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 640x480x24", sys.executable, "-c", HUMAN_RUN],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "shown" in result.stdout, result.stdout + result.stderr


# Two arms on a static torso: two robots, unless the server serves the torso's subtree as one (--robot torso).
TORSO = """
<mujoco>
  <worldbody>
    <body name="torso" pos="0 0 0.5">
      <geom type="box" size="0.1 0.2 0.3"/>
      <body name="left" pos="0 0.25 0.2"><joint name="left" axis="0 1 0"/><geom size="0.05"/></body>
      <body name="right" pos="0 -0.25 0.2"><joint name="right" axis="0 1 0"/><geom size="0.05"/></body>
    </body>
  </worldbody>
  <actuator><motor joint="left"/><motor joint="right"/></actuator>
</mujoco>
"""


def test_the_scene_is_drawn_grouped_by_the_servers_robot_flags_and_refused_otherwise(tmp_path):
    scene = tmp_path / "torso.xml"
    scene.write_text(TORSO)
    served = load_scene(str(scene), robots=["torso"])
    renderer = SceneRenderer(str(scene), served.handshake(), served.flat, "rgb_array", width=32, height=24,
                             robots=robots_of(["--robot", "torso"]))
    renderer.close()
    with pytest.raises(Error, match="not the scene the server serves"):
        SceneRenderer(str(scene), served.handshake(), served.flat, "rgb_array", width=32, height=24)


@pytest.fixture(scope="module")
def arm():
    return load_scene("arm")


@pytest.mark.parametrize("size", [0, MAX_SIZE + 1, 2.5, True])
def test_a_frame_size_that_is_no_whole_number_of_pixels_in_range_is_refused_naming_it(arm, size):
    with pytest.raises(Error, match=rf"^width must be a whole number of pixels from 1 to \d+, got {size!r}$"):
        SceneRenderer("arm", arm.handshake(), arm.flat, "rgb_array", width=size, height=24)


def test_a_camera_the_model_does_not_have_is_refused_naming_those_it_has(arm):
    with pytest.raises(Error, match=r"^no camera 'wrist' in the model; it has: overview$"):
        SceneRenderer("arm", arm.handshake(), arm.flat, "rgb_array", width=32, height=24, camera="wrist")
    with pytest.raises(Error, match=r"^no camera 3 in the model: it has 1 \(0 to 0, or -1 for the free camera\)$"):
        SceneRenderer("arm", arm.handshake(), arm.flat, "rgb_array", width=32, height=24, camera=3)


def test_a_scene_without_a_mujoco_model_cannot_be_drawn():
    static = load_scene("static")
    with pytest.raises(Error, match="^scene 'static' has no MuJoCo model to draw: render_mode needs a MuJoCo scene$"):
        SceneRenderer("static", static.handshake(), static.flat, "rgb_array", width=32, height=24)


def test_drawing_offscreen_through_glfw_without_a_display_names_mujoco_gl(arm, monkeypatch):
    monkeypatch.setenv("MUJOCO_GL", "glfw")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(Error, match="needs a display, and there is none: set MUJOCO_GL=egl"):
        SceneRenderer("arm", arm.handshake(), arm.flat, "rgb_array", width=32, height=24)


def test_the_servers_robot_flags_are_read_in_both_spellings():
    assert robots_of(["--scene", "x.xml", "--robot", "torso", "--robot=base", "--robot"]) == ["torso", "base"]
