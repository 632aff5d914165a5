"""Gymnasium's render modes for coupler environments, drawn on the client from the readings each step returns.

The environment loads its scene's model (`coupler.scenes.load_scene`, the
same file its server serves) and, at each `render()`, puts that model in the
pose the last readings describe (`coupler.mujoco.readings_pose`) and draws
it: "rgb_array" and "depth_array" offscreen with MuJoCo's renderer, as
`coupler render` draws a recording (the same default camera and size),
"human" in MuJoCo's own viewer (`mujoco.viewer.launch_passive`), updated
after every reset and step. Nothing more crosses the network.

Offscreen drawing needs an OpenGL that works without a display: MUJOCO_GL
chooses (egl, or osmesa), and importing `coupler.gym` on Linux sets it to egl
when it is unset and MuJoCo is not yet imported, as `coupler render` does.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from coupler.mujoco.passive_viewer import PassiveViewer
from coupler.wire.errors import Error
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import HandshakeMessage
from coupler.wire.peer_text import shown

RENDER_MODES = ["human", "rgb_array", "depth_array"]
# `coupler render`'s frame size: the same run drawn by both gives the same pictures.
DEFAULT_WIDTH, DEFAULT_HEIGHT = 480, 360
MAX_SIZE = 8192  # pixels a side: beyond it no OpenGL buffer is allocated, on any machine


def choose_offscreen_gl() -> None:
    """Let MuJoCo draw offscreen without a display (EGL) unless MUJOCO_GL says otherwise; only on Linux (where
    MuJoCo takes egl) and before MuJoCo is imported, which reads it once."""
    if sys.platform.startswith("linux") and "mujoco" not in sys.modules:
        os.environ.setdefault("MUJOCO_GL", "egl")


def render_fps(time_step: float, frame_skip: int) -> float:
    """Frames per second of a video with one frame per step: one over the simulated time a step takes."""
    return 1.0 / (time_step * frame_skip)


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def check_render_mode(render_mode: str | None) -> None:
    """coupler.Error for a mode that is not one of RENDER_MODES, and for "human" where there is no display."""
    if render_mode is None:
        return
    if render_mode not in RENDER_MODES:
        raise Error(f"render_mode {shown(str(render_mode))!r} is not one of {', '.join(RENDER_MODES)}")
    if render_mode == "human" and not has_display():
        raise Error("render_mode 'human' needs a display (neither DISPLAY nor WAYLAND_DISPLAY is set): use "
                    "render_mode='rgb_array' and write a video (gymnasium.wrappers.RecordVideo)")


def robots_of(serve_flags: Sequence[str]) -> list[str]:
    """The bodies `coupler serve --robot BODY` flags among `serve_flags` name: the server groups its scene by them,
    and so must the scene drawn."""
    robots = []
    for k, flag in enumerate(serve_flags):
        if flag == "--robot" and k + 1 < len(serve_flags):
            robots.append(serve_flags[k + 1])
        elif flag.startswith("--robot="):
            robots.append(flag.removeprefix("--robot="))
    return robots


def _checked_size(name: str, value: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_SIZE:
        raise Error(f"{name} must be a whole number of pixels from 1 to {MAX_SIZE}, got {value!r}")
    return value


OFFSCREEN_HINT = ("set MUJOCO_GL=egl (or osmesa) before MuJoCo is imported (importing coupler.gym first sets "
                  "egl)")


def _offscreen_renderer(model: Any, height: int, width: int) -> Any:
    """MuJoCo's offscreen renderer; coupler.Error naming MUJOCO_GL when no OpenGL context can be made."""
    import mujoco

    chosen = os.environ.get("MUJOCO_GL", "").lower()
    if chosen in ("", "glfw") and sys.platform.startswith("linux") and not has_display():
        raise Error(f"cannot draw offscreen: MuJoCo uses GLFW, which needs a display, and there is none: "
                    f"{OFFSCREEN_HINT}")
    try:
        return mujoco.Renderer(model, height, width)
    except (mujoco.FatalError, RuntimeError, ImportError, AttributeError) as error:
        reason = " ".join(str(error).split())[:200]
        raise Error(f"cannot draw offscreen with MUJOCO_GL={chosen or 'glfw'} ({reason}): {OFFSCREEN_HINT}") from None


class SceneRenderer:
    """Draws `scene` (a shipped scene's name or an MJCF path, the one the server serves) in the pose of a flat
    sensor array of `handshake` (ordered as `flat`), in `render_mode`; `width` x `height` pixels, from `camera`
    (a camera's name or index in the model; None: MuJoCo's free camera on the whole scene), its bodies grouped as
    the server groups them (`robots`: its --robot bodies). coupler.Error names
    a scene that has no MuJoCo model or does not serve `handshake`, an unknown camera, a bad size."""

    def __init__(self, scene: str, handshake: HandshakeMessage, flat: FlatLayout, render_mode: str,
                 width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT, camera: str | int | None = None,
                 robots: Sequence[str] = ()) -> None:
        check_render_mode(render_mode)
        self.render_mode = render_mode
        self.width = _checked_size("width", width)
        self.height = _checked_size("height", height)
        import mujoco

        from coupler.mujoco.readings_pose import ReadingsPose
        from coupler.scenes import load_scene

        simulation: Any = load_scene(scene, robots=robots)
        model = getattr(simulation, "model", None)
        if model is None:
            raise Error(f"scene {shown(scene)!r} has no MuJoCo model to draw: render_mode needs a MuJoCo scene")
        if simulation.layout.handshake.objects != handshake.objects:
            raise Error(f"scene {shown(scene)!r} is not the scene the server serves (their handshakes differ): give "
                        "the server's own scene to draw it")
        self.model = model
        self.camera = self._camera(camera)
        self._pose = ReadingsPose(model, simulation.layout, flat)
        self._data = mujoco.MjData(model)
        self._renderer: Any = None
        self.viewer: Any = None  # "human": MuJoCo's passive viewer (mujoco.viewer.Handle) while it is open
        self._window: PassiveViewer | None = None
        if render_mode == "human":
            self._window = PassiveViewer(model, self._data, show_left_ui=False, show_right_ui=False)
            self.viewer = self._window.handle
        else:
            # The offscreen buffer is the model's (640x480 unless it says): as large as the frames asked for.
            model.vis.global_.offwidth = max(model.vis.global_.offwidth, self.width)
            model.vis.global_.offheight = max(model.vis.global_.offheight, self.height)
            self._renderer = _offscreen_renderer(model, self.height, self.width)
            if render_mode == "depth_array":
                self._renderer.enable_depth_rendering()

    def _camera(self, camera: str | int | None) -> int | str:
        import mujoco

        names = [self.model.camera(i).name for i in range(self.model.ncam)]
        if camera is None:
            return -1
        if isinstance(camera, str) and mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_CAMERA, camera) < 0:
            raise Error(f"no camera {shown(camera)!r} in the model; it has: {shown(', '.join(names)) or 'none'}")
        if isinstance(camera, int) and not -1 <= camera < self.model.ncam:
            raise Error(f"no camera {camera} in the model: it has {self.model.ncam} (0 to {self.model.ncam - 1}, "
                        "or -1 for the free camera)")
        return camera

    def frame(self, values: np.ndarray) -> np.ndarray:
        """The picture of the pose `values` describes: height x width x 3 uint8 (rgb_array) or height x width
        float32 metres from the camera (depth_array)."""
        self._pose.apply(values, self._data)
        self._renderer.update_scene(self._data, camera=self.camera)
        return self._renderer.render().copy()

    def show(self, values: np.ndarray) -> None:
        """Move the viewer's scene to the pose `values` describes (a closed viewer window is left closed)."""
        if not self.viewer.is_running():
            return
        with self.viewer.lock():
            self._pose.apply(values, self._data)
        self.viewer.sync()

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
        if self._window is not None:
            self._window.close()
            self._window = self.viewer = None
