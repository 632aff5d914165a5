"""The native front end: MuJoCo's own viewer (`mujoco.viewer.launch_passive`) mirroring the states of a live
stream or a recording. The viewer's window runs its own render thread; this loop only copies each state into
the viewer's mjData and syncs. For a recording, the space bar plays and pauses, the arrow keys seek a second."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

from coupler.mujoco.passive_viewer import PassiveViewer
from coupler.view.camera import starting_camera
from coupler.view.draw_loop import DrawCounts, run_draw_loop
from coupler.record.mocap_poses import place_mocap
from coupler.view.shown_state import ShownState
from coupler.view.view_source import ViewSource
from coupler.wire.errors import Error

_SPACE, _RIGHT, _LEFT = 32, 262, 263  # GLFW key codes
SEEK_STEP = 1.0  # seconds of simulated time an arrow key moves


class NativeView:
    """MuJoCo's viewer on `source`'s model; coupler.Error when no window can be opened."""

    def __init__(self, source: ViewSource) -> None:
        import mujoco

        self.source = source
        self._mujoco = mujoco
        self._keys: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._model = source.model
        self._data = mujoco.MjData(self._model)
        mujoco.mj_forward(self._model, self._data)
        self._scene_changes = source.scene_changes
        self._said_scene_change = False
        self._on_status: Callable[[str], None] | None = None
        try:
            # The viewer's panels drive a simulation of its own, which a mirror has not: hidden, the scene
            # takes the window (Tab and Shift-Tab show them).
            self._window = PassiveViewer(self._model, self._data, key_callback=self._keys.put,
                                         show_left_ui=False, show_right_ui=False)
            self.viewer = self._window.handle
        except Exception as error:  # GLFW's own errors: no display, no OpenGL
            raise Error(f"cannot open MuJoCo's viewer: {' '.join(str(error).split())[:300]}; "
                        "use --web for the browser view") from None

        self._aim_camera()

    def _aim_camera(self) -> None:
        """The camera of the browser view: both front ends show a run alike."""
        import numpy as np

        camera = starting_camera(self._model)
        towards = camera.look_at - camera.position
        with self.viewer.lock():
            self.viewer.cam.lookat[:] = camera.look_at
            self.viewer.cam.distance = float(np.linalg.norm(towards))
            self.viewer.cam.azimuth = float(np.degrees(np.arctan2(towards[1], towards[0])))
            self.viewer.cam.elevation = float(np.degrees(np.arcsin(towards[2] / np.linalg.norm(towards))))

    def _draw(self, state: ShownState) -> None:
        if self.source.scene_changes != self._scene_changes:
            # The viewer cannot change its model: it stays on the last state of the scene it shows.
            if self._on_status is not None and not self._said_scene_change:
                self._on_status("the server now serves another scene: MuJoCo's viewer cannot change its model; "
                                "start the view again to see it")
            self._said_scene_change = True
            return
        with self.viewer.lock():
            self._data.time = state.time
            self._data.qpos[:] = state.qpos
            self._data.ctrl[:] = state.ctrl
            place_mocap(self._data, state.mocap)
            self._mujoco.mj_forward(self._model, self._data)
        self.viewer.sync()

    def _each_pass(self) -> bool:
        playback = self.source.playback
        while True:
            try:
                key = self._keys.get_nowait()
            except queue.Empty:
                break
            if playback is None:
                continue
            if key == _SPACE:
                playback.toggle()
            elif key in (_RIGHT, _LEFT):
                playback.seek(playback.now() + (SEEK_STEP if key == _RIGHT else -SEEK_STEP))
        return self.viewer.is_running()

    def run(self, stop: threading.Event, fps: float, duration: float | None = None,
            on_status: Callable[[str], None] | None = None) -> DrawCounts:
        self._on_status = on_status
        return run_draw_loop(self.source, self._draw, fps=fps, stop=stop, each_pass=self._each_pass,
                             on_status=on_status, duration=duration)

    def close(self) -> None:
        self._window.close()
