"""`coupler view --native`: MuJoCo's own viewer mirroring the stream, on a virtual display (Xvfb)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np
import pytest
from PIL import Image

from view_process import ViewProcess
from virtual_display import VirtualDisplay

WIDTH, HEIGHT = 800, 600
DRAWN_TIMEOUT = 20.0  # seconds for the viewer to open its window and draw the scene
BRIGHT = 170  # the arm's white links under the viewer's lights; its dark background and floor are darker


@pytest.fixture(scope="module")
def display() -> Iterator[VirtualDisplay]:
    screen = VirtualDisplay(WIDTH, HEIGHT)
    try:
        yield screen
    finally:
        screen.close()


def _bright_pixels(shot: np.ndarray) -> int:
    return int((shot.min(axis=2) > BRIGHT).sum())


def test_the_native_viewer_draws_the_arm_and_moves_it_as_the_controller_drives_it(moving_arm, display, tmp_path):
    view = ViewProcess(moving_arm.publish, "--native", env=display.env())
    try:
        view.line_with("in MuJoCo's viewer")
        deadline = time.monotonic() + DRAWN_TIMEOUT
        while _bright_pixels(first := display.screenshot()) < 300:
            assert time.monotonic() < deadline, f"no arm drawn within {DRAWN_TIMEOUT:g} s: {view.lines}"
            time.sleep(0.2)
        time.sleep(1.0)
        second = display.screenshot()
    finally:
        output = view.stop()
    Image.fromarray(first).save(tmp_path / "first.png")
    Image.fromarray(second).save(tmp_path / "second.png")
    changed = np.abs(first.astype(int) - second.astype(int)).sum(axis=2) > 60
    assert changed.sum() > 300, f"{changed.sum()} pixels changed"
    assert "view: drew " in output, output


def test_the_native_viewer_without_a_display_says_to_use_the_browser(moving_arm, display):
    env = display.env()
    del env["DISPLAY"]
    view = ViewProcess(moving_arm.publish, "--native", env=env)
    output = view.stop_when_exited()
    assert view.process.returncode == 1
    assert output == ("coupler view: no display to open MuJoCo's viewer on ($DISPLAY is not set): use --web for the "
                      "browser view")
