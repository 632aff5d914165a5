"""Gymnasium's render modes: pictures of the pose each step returns, the same pictures `coupler render` draws
of the run's recording, written to a video by Gymnasium's RecordVideo."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
mujoco = pytest.importorskip("mujoco")

import imageio.v2 as imageio  # noqa: E402
from gymnasium.wrappers import RecordVideo  # noqa: E402
from PIL import Image  # noqa: E402

import coupler.gym  # noqa: E402,F401  (registers the ids)
from coupler.cli import main  # noqa: E402
from coupler.gym import CouplerEnv  # noqa: E402
from coupler.scenes import scene_path  # noqa: E402
from coupler.wire.errors import Error  # noqa: E402

STEPS = 8
WIDTH, HEIGHT = 160, 120
ARM_CONTROL_PERIOD = 0.002 * 10  # ArmReach: a 2 ms step held for 10
# Mean difference, of 255, between a frame and its H.264 (yuv420p) encoding at this size.
CODEC_TOLERANCE = 3.0


@dataclass(frozen=True)
class Run:
    recording: Path
    videos: Path
    frames: np.ndarray  # what render() returned after the reset and after each step
    fps: float


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory) -> Run:
    """ArmReach driven for STEPS steps with its server recording, through RecordVideo."""
    folder = tmp_path_factory.mktemp("render_modes")
    recording = folder / "run.mcap"
    env = gymnasium.make("coupler/ArmReach-v0", render_mode="rgb_array", width=WIDTH, height=HEIGHT,
                         serve_flags=["--record", str(recording)])
    video = RecordVideo(env, str(folder / "videos"), episode_trigger=lambda episode: True, disable_logger=True)
    frames = []
    try:
        video.reset(seed=3)
        frames.append(video.unwrapped.render())
        for k in range(STEPS):
            action = np.where(np.arange(video.action_space.shape[0]) % 2 == k % 2, 1.0, -1.0).astype(np.float32)
            video.step(action)
            frames.append(video.unwrapped.render())
        fps = video.metadata["render_fps"]
    finally:
        video.close()
    return Run(recording, folder / "videos", np.array(frames), fps)


def _rendered(recording: Path, out: Path, fps: float) -> np.ndarray:
    """`coupler render` of `recording` as a PNG strip, cut into its frames."""
    assert main(["render", str(recording), "--out", str(out), "--fps", str(fps), "--width", str(WIDTH),
                 "--height", str(HEIGHT)]) == 0
    strip = np.asarray(Image.open(out).convert("RGB"))
    return np.stack(np.split(strip, strip.shape[1] // WIDTH, axis=1))


def test_render_fps_is_one_frame_per_control_period(recorded_run):
    assert recorded_run.fps == pytest.approx(1 / ARM_CONTROL_PERIOD)


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


def test_depth_array_is_the_distance_mujoco_renders_for_the_same_pose():
    with CouplerEnv(scene="arm", render_mode="depth_array", width=64, height=48) as env:
        env.reset()
        depth = env.render()
    model = mujoco.MjModel.from_xml_path(str(scene_path("arm")))
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)  # the scene starts, and resets, at its first keyframe
    mujoco.mj_forward(model, data)
    with mujoco.Renderer(model, 48, 64) as renderer:
        renderer.enable_depth_rendering()
        renderer.update_scene(data)
        expected = renderer.render()
    assert depth.dtype == np.float32 and depth.shape == (48, 64)
    np.testing.assert_allclose(depth, expected, rtol=1e-6)


def test_human_without_a_display_is_refused_at_make_time_naming_rgb_array(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(Error, match="render_mode='rgb_array'") as refused:
        gymnasium.make("coupler/ArmReach-v0", render_mode="human")
    assert "\n" not in str(refused.value)


def test_a_render_mode_gymnasium_does_not_have_is_refused_naming_those_it_has():
    with pytest.raises(Error, match="human, rgb_array, depth_array"):
        CouplerEnv(scene="arm", render_mode="rgb")
