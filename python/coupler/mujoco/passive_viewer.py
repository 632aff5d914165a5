"""MuJoCo's own viewer (`mujoco.viewer.launch_passive`), closed so that its window thread has ended.

`Handle.close()` only asks the window thread to stop; a process that then exits while that (daemon) thread is
still tearing its OpenGL context down can end in a segmentation fault. Closing here waits for the thread."""

from __future__ import annotations

import threading
from typing import Any

# Long enough for a window to finish its last frame and free its context; a blocking call still has a bound.
CLOSE_TIMEOUT = 5.0


class PassiveViewer:
    """A passive viewer of `model` showing `data`; `handle` is MuJoCo's `mujoco.viewer.Handle`."""

    def __init__(self, model: Any, data: Any, **options: Any) -> None:
        import mujoco.viewer

        before = set(threading.enumerate())
        self.handle = mujoco.viewer.launch_passive(model, data, **options)
        self._window_threads = [thread for thread in threading.enumerate() if thread not in before]

    def close(self, timeout: float = CLOSE_TIMEOUT) -> None:
        self.handle.close()
        for thread in self._window_threads:
            thread.join(timeout)
