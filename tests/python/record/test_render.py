"""`coupler render` of a recording, from the model the recording carries."""

import sys

import imageio.v2 as imageio
from PIL import Image

from coupler.cli import main
from peers import run
from pendulum_recording import two_runs


def render(*args: str):
    return run([sys.executable, "-m", "coupler.cli", "render", *args])


def test_render_writes_a_gif_with_a_frame_per_interval_of_simulated_time(demo_recording, tmp_path):
    out = tmp_path / "run.gif"
    result = render(str(demo_recording), "--out", str(out), "--fps", "10", "--end", "0.5", "--width", "64",
                    "--height", "48")
    assert result.returncode == 0, result.stdout
    frames = int(result.stdout.split(": ")[1].split(" frames")[0])
    assert frames == 5  # states at 0.002, 0.102, ... 0.402 s
    with Image.open(out) as gif:
        assert gif.n_frames == frames and gif.size == (64, 48)


def test_render_writes_a_png_strip_of_frames_side_by_side(demo_recording, tmp_path):
    out = tmp_path / "strip.png"
    result = render(str(demo_recording), "--out", str(out), "--fps", "5", "--end", "0.5", "--width", "40",
                    "--height", "30")
    assert result.returncode == 0, result.stdout
    with Image.open(out) as strip:
        assert strip.size == (3 * 40, 30)  # 0.002, 0.202, 0.402 s


def test_render_writes_an_mp4_that_imageio_opens_with_every_frame(demo_recording, tmp_path):
    out = tmp_path / "run.mp4"
    result = render(str(demo_recording), "--out", str(out), "--fps", "10", "--end", "0.5", "--width", "64",
                    "--height", "48")
    assert result.returncode == 0, result.stdout
    with imageio.get_reader(out, format="FFMPEG") as video:
        frames = [frame for frame in video]
    assert len(frames) == 5 and frames[0].shape == (48, 64, 3)


def test_render_refuses_a_format_it_cannot_write(demo_recording, tmp_path):
    result = render(str(demo_recording), "--out", str(tmp_path / "run.avi"))
    assert result.returncode == 1
    assert "the formats are .mp4, .gif, .png" in result.stdout


def test_render_refuses_a_camera_the_model_does_not_have(demo_recording, tmp_path):
    result = render(str(demo_recording), "--out", str(tmp_path / "run.gif"), "--camera", "no_such_camera")
    assert result.returncode == 1
    assert "no camera 'no_such_camera'" in result.stdout


def test_render_draws_frames_wider_than_the_models_offscreen_buffer(demo_recording, tmp_path):
    out = tmp_path / "wide.png"  # the arm model's offscreen buffer is MuJoCo's default, 640x480
    result = render(str(demo_recording), "--out", str(out), "--end", "0.01", "--width", "700", "--height", "16")
    assert result.returncode == 0, result.stdout
    with Image.open(out) as strip:
        assert strip.size == (700, 16)


def test_render_draws_runs_from_a_reset_one_after_the_other(tmp_path):
    path = two_runs(tmp_path / "runs.mcap")
    size = ["--fps", "10", "--width", "32", "--height", "24"]
    assert main(["render", str(path), "--out", str(tmp_path / "all.png"), *size]) == 0
    assert main(["render", str(path), "--out", str(tmp_path / "second.png"), "--start", "1.0", *size]) == 0
    # 0 to 0.99 s, then 0 to 0.49 s one step later: 10 frames and 5 at 10 frames a second; from 1.0 s, the second's.
    assert Image.open(tmp_path / "all.png").size == (32 * 15, 24)
    assert Image.open(tmp_path / "second.png").size == (32 * 5, 24)
