"""`coupler view` watching a server while a controller swings the arm: the browser view in headless chromium
and MuJoCo's viewer on a virtual display (Xvfb), both started at once on the same server."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np
import pytest
from PIL import Image

from coupler.scenes import scene_path
from coupler.view.camera import starting_camera
from moving_arm import swing_pose
from perf.common.headless_browser import HeadlessBrowser
from view_process import ViewProcess
from virtual_display import VirtualDisplay

WIDTH, HEIGHT = 1000, 560  # of the browser's page
PANEL_WIDTH = 340  # viser's panel floats over the right of the scene
SCREEN_WIDTH, SCREEN_HEIGHT = 800, 600  # of the virtual display
DRAWN_TIMEOUT = 20.0  # seconds for a view to connect, load the scene and draw it
# Seconds to see the arm elsewhere: the swing comes back to poses it had (a lean before and after its turn), so a
# screenshot a fixed time later may show it where it was; within half a swing (about 2 s of wall time at the moving
# arm's pace) it is far from any pose it had.
MOVED_TIMEOUT = 4.0
DARK = 80  # a pixel whose channels are all below this is the arm's dark joint material, nothing else in the page
BRIGHT = 170  # in MuJoCo's viewer, the arm's white links; its dark background and floor are darker
ARM_BODIES = ("link1", "link2", "link3", "link4", "link5", "link6", "link7", "hand")
MARGIN = 60  # pixels around the arm's bodies' centres where its geoms are
# Where the screenshot for the docs is kept when asked (docs/watch.md says how it was made).
SCREENSHOT_FOR_DOCS = "COUPLER_VIEW_SCREENSHOT"


@dataclass
class Views:
    web: ViewProcess
    native: ViewProcess
    display: VirtualDisplay


@pytest.fixture(scope="module")
def views(moving_arm) -> Iterator[Views]:
    display = VirtualDisplay(SCREEN_WIDTH, SCREEN_HEIGHT)
    # Software WebGL draws every frame on the CPU, and a screenshot waits for the frame being drawn: at 10 frames
    # a second the browser keeps up on a loaded machine, and the arm still moves between two screenshots.
    web = ViewProcess("--addr", moving_arm.publish, "--web", "--web-addr", "127.0.0.1:0", "--fps", "10")
    native = ViewProcess("--addr", moving_arm.publish, "--native", env=display.env())
    try:
        yield Views(web, native, display)
    finally:
        web.interrupt()
        native.interrupt()
        web.stop()
        native.stop()
        display.close()


@pytest.fixture(scope="module")
def browser(views) -> Iterator[HeadlessBrowser]:
    url = views.web.url()
    page = HeadlessBrowser(WIDTH, HEIGHT)
    try:
        page.open(url)
        yield page
    finally:
        page.close()


def _project(points: np.ndarray, model: mujoco.MjModel) -> np.ndarray:
    """Pixel coordinates (x right, y down) of world points seen from the view's starting camera."""
    camera = starting_camera(model)
    forward = camera.look_at - camera.position
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    relative = points - camera.position
    depth = relative @ forward
    scale = 1.0 / (depth * np.tan(np.radians(camera.fov_degrees) / 2))
    x = (relative @ right) * scale * HEIGHT / WIDTH
    y = (relative @ up) * scale
    return np.stack([(x + 1) / 2 * WIDTH, (1 - y) / 2 * HEIGHT], axis=1)


def _arm_region() -> tuple[slice, slice]:
    """Rows and columns of the screenshot where the arm is drawn, whichever way it leans."""
    model = mujoco.MjModel.from_xml_path(str(scene_path("arm")))
    data = mujoco.MjData(model)
    corners = []
    for lean in (-1.0, 0.0, 1.0):  # the controller's swing, at both ends and in the middle
        data.qpos[:7] = swing_pose(lean)
        mujoco.mj_kinematics(model, data)
        corners.append(_project(np.array([data.body(name).xpos for name in ARM_BODIES]), model))
    pixels = np.concatenate(corners)
    low = np.maximum(pixels.min(axis=0) - MARGIN, 0).astype(int)
    high = np.minimum(pixels.max(axis=0) + MARGIN, [WIDTH, HEIGHT]).astype(int)
    return slice(low[1], high[1]), slice(low[0], high[0])


def _dark_pixels(shot: np.ndarray) -> int:
    return int((shot.max(axis=2) < DARK).sum())


def _drawn_screenshot(browser: HeadlessBrowser, views: Views, region: tuple[slice, slice]) -> np.ndarray:
    deadline = time.monotonic() + DRAWN_TIMEOUT
    while True:
        shot = browser.screenshot()
        if _dark_pixels(shot[region]) > 200:
            return shot
        assert time.monotonic() < deadline, f"no arm drawn within {DRAWN_TIMEOUT:g} s; the view said: {views.web.lines}"
        time.sleep(0.2)


def _changed(first: np.ndarray, second: np.ndarray, region: tuple[slice, slice] | None = None) -> int:
    """Pixels of `region` (all of it: None) that differ between two screenshots."""
    if region is not None:
        first, second = first[region], second[region]
    return int((np.abs(first.astype(int) - second.astype(int)).sum(axis=2) > 60).sum())


def _moved_screenshot(screenshot: Callable[[], np.ndarray], first: np.ndarray, pixels: int,
                      region: tuple[slice, slice] | None = None) -> np.ndarray:
    """A screenshot in which more than `pixels` of `region` changed from `first`, taken from 1 s on, every 0.25 s;
    the last taken when none is, by MOVED_TIMEOUT."""
    time.sleep(1.0)
    deadline = time.monotonic() + MOVED_TIMEOUT
    while _changed(first, second := screenshot(), region) <= pixels and time.monotonic() < deadline:
        time.sleep(0.25)
    return second


def test_the_page_draws_the_arm_and_moves_it_as_the_controller_drives_it(moving_arm, views, browser, tmp_path):
    region = _arm_region()
    first = _drawn_screenshot(browser, views, region)
    # viser's notice that WebGL runs in software is closed for the screenshot kept for the docs.
    browser.evaluate("document.querySelectorAll('.mantine-Notification-closeButton').forEach(b => b.click())")
    second = _moved_screenshot(browser.screenshot, first, 500, region)
    Image.fromarray(first).save(tmp_path / "first.png")
    Image.fromarray(second).save(tmp_path / "second.png")
    kept = os.environ.get(SCREENSHOT_FOR_DOCS)
    if kept:
        Image.fromarray(second).save(Path(kept))
    # Drawn: the arm's dark joints where the arm is, and nowhere else in the scene.
    outside = first.copy()
    outside[region] = 255
    outside[:, WIDTH - PANEL_WIDTH:] = 255  # the panel (its text is dark)
    outside[:150, :320] = 255  # viser's notice of software WebGL
    outside[HEIGHT - 80:, :80] = 255  # the axes in the corner
    assert _dark_pixels(first[region]) > 200 and _dark_pixels(outside) < 50
    # Moved: a while later the arm is elsewhere.
    changed = _changed(first, second, region)
    assert changed > 500, (f"{changed} pixels changed where the arm is; the controller took "
                                 f"{moving_arm.steps} steps ({moving_arm.error!r}); the view said: {views.web.lines}")


def _bright_pixels(shot: np.ndarray) -> int:
    return int((shot.min(axis=2) > BRIGHT).sum())


def test_the_native_viewer_draws_the_arm_and_moves_it_as_the_controller_drives_it(moving_arm, views, tmp_path):
    views.native.line_with("in MuJoCo's viewer")
    deadline = time.monotonic() + DRAWN_TIMEOUT
    while _bright_pixels(first := views.display.screenshot()) < 300:
        assert time.monotonic() < deadline, f"no arm drawn within {DRAWN_TIMEOUT:g} s: {views.native.lines}"
        time.sleep(0.2)
    second = _moved_screenshot(views.display.screenshot, first, 300)
    Image.fromarray(first).save(tmp_path / "first.png")
    Image.fromarray(second).save(tmp_path / "second.png")
    changed = _changed(first, second)
    assert changed > 300, (f"{changed} pixels changed; the controller took {moving_arm.steps} steps "
                                 f"({moving_arm.error!r}); the view said: {views.native.lines}")

