"""Driving every world of a batched server (`coupler serve --worlds N`) with one round trip per step.

    with Session(address) as session:
        worlds = WorldSession(session)
        worlds.send(controls)           # worlds.count x worlds.control_width numbers
        sensors, times = worlds.receive()

`send` and `receive` are apart so that a controller of several servers sends
to all of them before it waits for any: the servers step at the same time.

A server that serves cameras (the "images" extension) renders them in
every world, or in the worlds named, with the answer:

        worlds.send(controls, images={"overview": "rgb"}, image_worlds=[0, 3])
        sensors, times = worlds.receive()
        worlds.images["overview"].rgb   # (2, H, W, 3) uint8: world 0's picture, then world 3's

The session is the C++ `coupler::WorldSession`, bound over the Session's own
C++ session: it checks and encodes the Control, waits (releasing the GIL) and
reads the answer; this module gives it NumPy's shapes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from coupler import _native
from coupler.controller.camera_images import Asked, image_requests
from coupler.controller.session import Session
from coupler.wire.errors import Error
from coupler.wire.flat_layout import FlatLayout

__all__ = ["WorldCameraImages", "WorldSession"]


@dataclass
class WorldCameraImages:
    """One camera's images of several worlds, stacked in the order of `worlds`; a kind not asked for is None.

    The arrays are read-only views of the received answer, or of shared memory (see `WorldSession.receive`).
    """

    worlds: np.ndarray  # the worlds they show, ascending
    rgb: np.ndarray | None = None  # (worlds, H, W, 3) uint8, row 0 the top of each picture
    depth: np.ndarray | None = None  # (worlds, H, W) float32, m along the optical axis
    segmentation: np.ndarray | None = None  # (worlds, H, W) int32 geom ids, -1 where no geom is seen


class WorldSession:
    """The "worlds" extension over a Session whose server announced it.

    Per world, a Control carries `control_width` numbers: the control values
    in the control layout's order (`session.controls()`' order), then one per
    control event (nonzero: on); the answer holds `sensor_width` readings per
    world, in the sensor layout's order. ExtensionNotSupportedError for a
    server without the extension; Error when an answer for its worlds could
    exceed the client's max_frame_bytes. The session's timeout bounds every wait.
    """

    def __init__(self, session: Session) -> None:
        self._native = _native.WorldSession(session._native)
        self.session = session
        self.count: int = self._native.worlds
        self.flat = FlatLayout(session.handshake)
        self.control_width: int = self._native.control_width
        self.sensor_width: int = self._native.sensor_width
        self.images: dict[str, WorldCameraImages] = {}
        """The last answer's images by camera (empty when it asked for none)."""
        self.data = np.zeros((self.count, 0))
        """Per world, the arrays of the last answer's world data (`coupler serve --world-data`; width 0: none)."""

    def send(self, controls: np.ndarray | None = None, steps: int = 0, resets: Sequence[int] = (),
             qpos: np.ndarray | None = None, qvel: np.ndarray | None = None,
             images: Mapping[str, Asked] | None = None, image_worlds: Sequence[int] = ()) -> None:
        """Ask every world to step `steps` times (0: once) with `controls` (count x control_width; None steps no
        world), except the worlds `resets` lists (ascending), which restart, from `qpos`/`qvel` (one row per
        reset world, or None for the scene's initial state). Answered by the next `receive()`.

        `images` (camera name -> a kind or kinds, as `Session.step` takes them, without a rate) asks for those
        images of every world's state after the step, or of the worlds `image_worlds` lists (ascending);
        ExtensionNotSupportedError for a server without cameras. Error, before anything is sent, for a world,
        camera or kind the server does not have, or images whose answer would exceed the frame limit."""
        if controls is not None and np.shape(controls) != (self.count, self.control_width):
            raise Error(f"controls of shape {np.shape(controls)}; this server's {self.count} worlds take "
                        f"({self.count}, {self.control_width})")
        self._native.send(controls, steps, self._worlds(resets, "reset"), _numbers(qpos), _numbers(qvel),
                          image_requests(images) if images else None, self._worlds(image_worlds, "image"))

    def _worlds(self, worlds: Sequence[int], what: str) -> list[int]:
        """World indices as the C++ session takes them; a negative one is named here, as C++ names one too large."""
        indices = [int(world) for world in worlds]
        for world in indices:
            if world < 0:
                raise Error(f"{what} world {world} is not one of this server's worlds 0..{self.count - 1}")
        return indices

    def receive(self) -> tuple[np.ndarray, np.ndarray]:
        """The answer to `send`: every world's readings (count x sensor_width) and simulated time (count).

        The arrays are read-only; `data` then holds its world data. coupler.TimeoutError past the session's
        timeout (the answer is still awaited: `receive()` again waits for it); RemoteError when the server
        refused the Control.

        Through shared memory (a session that mapped its server's ring, see
        coupler.controller.session) the readings, world data and images
        are views of the mapped memory, no copy: they hold what was sent until
        `slots - 1` more answers through the ring (3 with the server's default
        of 4 buffers); copy them (`np.array(sensors)`) to keep them longer. The
        times always come in the frame.
        """
        sensors, times, self.data, stacks, image_worlds = self._native.receive()
        self.images = {}
        for camera, kind, pixels in stacks:
            setattr(self.images.setdefault(camera, WorldCameraImages(worlds=image_worlds)), kind, pixels)
        return sensors, times


def _numbers(values: np.ndarray | None) -> np.ndarray:
    """Reset rows as one run of float64 numbers, world after world (none: the scene's initial state)."""
    return np.zeros(0) if values is None else np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
