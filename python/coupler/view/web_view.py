"""The browser front end: a viser server (https://viser.studio) that draws the model's geoms in 3D and moves
its bodies as states arrive, with the simulated time, the controls and the joint positions in a panel beside
it, and for a recording play, pause, speed and seek.

viser serves the page and its 3D client (three.js) from the Python package
itself, so the view works on a machine with no network, and pushes updates
over a WebSocket. Each frame sends only the poses of the bodies that move,
in one batch; viser keeps the newest value of each pose for a browser that
is behind, so a slow browser skips frames rather than falling behind.
"""

from __future__ import annotations

import contextlib
import functools
import io
import queue
import re
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import viser

from coupler.view import model_panel
from coupler.view.camera import starting_camera
from coupler.view.draw_loop import DrawCounts, run_draw_loop
from coupler.view.geom_meshes import geom_meshes
from coupler.view.recorded_run import MAX_SPEED, MIN_SPEED
from coupler.record.mocap_poses import MocapPoses, place_mocap
from coupler.view.shown_state import ShownState, initial_state
from coupler.view.view_source import ViewSource

if TYPE_CHECKING:
    import mujoco

HEMISPHERE_INTENSITY = 2.0  # with viser's default lights, about as bright as its image-based lighting
PANEL_EVERY = 0.1  # seconds between updates of the panel's figures: faster than anyone reads them
_MODEL_NODE = "/model"
_SHOWN_DIGITS = 4  # of the controls and joint positions in the panel
_SHOWN_STEP = 10.0**-_SHOWN_DIGITS


def _rgb255(rgba: np.ndarray) -> tuple[int, int, int]:
    r, g, b = (int(round(255 * min(1.0, max(0.0, float(v))))) for v in rgba[:3])
    return r, g, b


class ModelDrawing:
    """The geoms of `model` in a viser scene, one frame per body that has any; `draw(qpos)` moves them."""

    def __init__(self, server: viser.ViserServer, model: mujoco.MjModel) -> None:
        import mujoco

        self._mujoco = mujoco
        self._server = server
        self.model = model
        self.data = mujoco.MjData(model)
        meshes = geom_meshes(model)
        bodies = sorted({mesh.body for mesh in meshes})
        self._handles: list[Any] = []
        self._frames = {}
        for body in bodies:
            frame = server.scene.add_frame(f"{_MODEL_NODE}/body{body}", show_axes=False)
            self._frames[body] = frame
            self._handles.append(frame)
        for mesh in meshes:
            alpha = float(mesh.rgba[3])
            self._handles.append(server.scene.add_mesh_simple(
                f"{_MODEL_NODE}/body{mesh.body}/geom{mesh.geom}", mesh.vertices, mesh.faces,
                color=_rgb255(mesh.rgba), opacity=alpha if alpha < 1.0 else None,
                position=mesh.position, wxyz=mesh.wxyz))
        # Bodies welded to the world never move: placed once. The world body's frame is the scene's.
        self._moving = [body for body in bodies if model.body_weldid[body] != 0]
        self.draw(initial_state(model).qpos, every_body=True)

    def draw(self, qpos: np.ndarray, every_body: bool = False, mocap: MocapPoses | None = None) -> None:
        self.data.qpos[:] = qpos
        place_mocap(self.data, mocap)
        self._mujoco.mj_kinematics(self.model, self.data)
        bodies = [b for b in self._frames if b != 0] if every_body else self._moving
        with self._server.atomic():
            for body in bodies:
                frame = self._frames[body]
                frame.position = self.data.xpos[body]
                frame.wxyz = self.data.xquat[body]

    def remove(self) -> None:
        for handle in reversed(self._handles):
            handle.remove()
        self._handles.clear()


def _plain(text: str) -> str:
    """`text` shown as it is in the panel's markdown: a scene's name is the server's to choose."""
    return re.sub(r"([\\`*_{}\[\]()<>#+\-.!|~])", r"\\\1", text)


class _Panel:
    """The GUI beside the scene. Changes people make are queued as actions the draw loop runs, so that the
    playback clock is only ever touched from one thread."""

    def __init__(self, server: viser.ViserServer, source: ViewSource, actions: queue.SimpleQueue) -> None:
        gui = server.gui
        self._source = source
        self._actions = actions
        gui.add_markdown(f"**{_plain(source.name)}**")
        self.status = gui.add_markdown("")
        self.time = gui.add_text("simulated time", initial_value="", disabled=True)
        self.seek = None
        playback = source.playback
        if playback is not None:
            self.play = gui.add_button("pause" if playback.playing else "play")
            self.play.on_click(lambda _: actions.put(self._toggle))
            self.speed = gui.add_slider("speed", min=MIN_SPEED, max=min(MAX_SPEED, 10.0), step=0.01,
                                        initial_value=playback.speed)
            # The value is taken as the person set it: by the time the action runs the panel may show another.
            self.speed.on_update(lambda event: event.client is not None and actions.put(
                functools.partial(setattr, playback, "speed", float(event.target.value))))
            span = max(playback.end - playback.start, 1e-3)
            self.seek = gui.add_slider("time (s)", min=playback.start, max=playback.start + span,
                                       step=span / 1000, initial_value=playback.start)
            self.seek.on_update(lambda event: event.client is not None and actions.put(
                functools.partial(playback.seek, float(event.target.value))))
        self._rebuild_rows(source.model)

    def _toggle(self) -> None:
        playback = self._source.playback
        assert playback is not None
        playback.toggle()

    def _rebuild_rows(self, model: mujoco.MjModel) -> None:
        self.control_rows = model_panel.control_rows(model)
        self.joint_rows = model_panel.joint_rows(model)

    def build_figures(self, server: viser.ViserServer) -> None:
        gui = server.gui
        with gui.add_folder("controls") as self.controls_folder:
            self.controls = [gui.add_number(row.label, initial_value=0.0, step=_SHOWN_STEP, disabled=True)
                             for row in self.control_rows]
        with gui.add_folder("joints") as self.joints_folder:
            self.joints = [gui.add_number(row.label, initial_value=0.0, step=_SHOWN_STEP, disabled=True)
                           for row in self.joint_rows]

    def remodel(self, server: viser.ViserServer, model: mujoco.MjModel) -> None:
        self.controls_folder.remove()
        self.joints_folder.remove()
        self._rebuild_rows(model)
        self.build_figures(server)

    def show(self, state: ShownState | None, status: str) -> None:
        self.status.content = _plain(status)
        if state is None:
            return
        self.time.value = model_panel.time_text(state)
        for number, value in zip(self.controls, model_panel.values(self.control_rows, state.ctrl)):
            number.value = round(value, _SHOWN_DIGITS)
        for number, value in zip(self.joints, model_panel.values(self.joint_rows, state.qpos)):
            number.value = round(value, _SHOWN_DIGITS)
        playback = self._source.playback
        if playback is not None:
            self.play.label = "pause" if playback.playing else "play"
            if self.seek is not None:
                self.seek.value = min(self.seek.max, max(self.seek.min, playback.now()))


class WebView:
    """A viser server on `host`:`port` (0: any free port) showing `source`; `run()` draws until stopped."""

    def __init__(self, source: ViewSource, host: str, port: int) -> None:
        self.source = source
        # viser prints a banner of its addresses whatever it is told; the view says where it is itself.
        with contextlib.redirect_stdout(io.StringIO()):
            self.server = viser.ViserServer(host=host, port=port, label="coupler view", verbose=False)
        # Sharing would open a tunnel through viser's public relay: a view stays where it was bound.
        self.server.request_share_url = lambda *_, **__: None  # type: ignore[method-assign]
        self.server.gui.configure_theme(show_share_button=False)
        self.server.scene.set_up_direction("+z")
        # Plain lights rather than viser's image-based lighting and shadows: a browser without a GPU (software
        # WebGL) draws several times as many frames a second with them.
        self.server.scene.configure_environment_map(None)
        self.server.scene.configure_default_lights(True, cast_shadow=False)
        self.server.scene.add_light_hemisphere("/lights/sky", sky_color=(255, 255, 255), ground_color=(90, 90, 100),
                                               intensity=HEMISPHERE_INTENSITY)
        self.server.scene.world_axes.visible = False
        self._actions: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._panel = _Panel(self.server, source, self._actions)
        self._drawing = ModelDrawing(self.server, source.model)
        self._panel.build_figures(self.server)
        self._scene_changes = source.scene_changes
        self._aim_camera(source.model)
        self._latest: ShownState | None = None
        self._panel_due = 0.0

    @property
    def url(self) -> str:
        host = self.server.get_host()
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{self.server.get_port()}"

    def _aim_camera(self, model: mujoco.MjModel) -> None:
        camera = starting_camera(model)
        self.server.initial_camera.fov = float(np.radians(camera.fov_degrees))
        self.server.initial_camera.look_at = camera.look_at
        self.server.initial_camera.position = camera.position

    def _draw(self, state: ShownState) -> None:
        if self.source.scene_changes != self._scene_changes:
            self._scene_changes = self.source.scene_changes
            self._drawing.remove()
            self._drawing = ModelDrawing(self.server, self.source.model)
            self._panel.remodel(self.server, self.source.model)
            self._aim_camera(self.source.model)
        self._drawing.draw(state.qpos, mocap=state.mocap)
        self._latest = state

    def _each_pass(self) -> bool:
        while True:
            try:
                self._actions.get_nowait()()
            except queue.Empty:
                break
        now = time.monotonic()
        if now >= self._panel_due:
            self._panel_due = now + PANEL_EVERY
            self._panel.show(self._latest, self.source.status)
        return True

    def run(self, stop: threading.Event, fps: float, duration: float | None = None,
            on_status: Callable[[str], None] | None = None) -> DrawCounts:
        return run_draw_loop(self.source, self._draw, fps=fps, stop=stop, each_pass=self._each_pass,
                             on_status=on_status, duration=duration)

    def close(self) -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            self.server.stop()
