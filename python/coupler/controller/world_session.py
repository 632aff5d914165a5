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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from coupler.controller.camera_images import Asked, image_requests
from coupler.controller.session import Session
from coupler.wire.errors import Error, ExtensionNotSupportedError
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import EXTENSION_IMAGES, EXTENSION_WORLDS, IMAGE_BYTES_PER_PIXEL, ImageRequest
from coupler.wire.world_frames import encode_world_control, read_world_answer_with_images, world_answer_bytes

__all__ = ["WorldCameraImages", "WorldSession"]


@dataclass
class WorldCameraImages:
    """One camera's images of several worlds, stacked in the order of `worlds`; a kind not asked for is None.

    The arrays are read-only views of the received frame, or of shared memory (see `WorldSession.receive`).
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
    server without the extension. The session's timeout bounds every wait.
    """

    def __init__(self, session: Session) -> None:
        handshake = session.handshake
        if not handshake.supports(EXTENSION_WORLDS):
            server = handshake.server.name if handshake.server is not None else "a Click server"
            raise ExtensionNotSupportedError(EXTENSION_WORLDS, "a Control for every world", server or "the server")
        self.session = session
        self.count = handshake.worlds
        flat = FlatLayout(handshake)
        self.flat = flat
        self.control_width = flat.controls.values.size + flat.controls.events_on.size
        self.sensor_width = flat.sensors.values.size
        self._waiting = False
        self.images: dict[str, WorldCameraImages] = {}
        """The last answer's images by camera (empty when it asked for none)."""
        self.data = np.zeros((self.count, 0))
        """Per world, the arrays of the last answer's world data (`coupler serve --world-data`; width 0: none)."""
        # A larger answer would be dropped unread by ZeroMQ: the client would see only a timeout.
        answer = world_answer_bytes(self.count, self.sensor_width)
        limit = session.client.max_frame_bytes
        if limit and answer > limit:
            raise Error(f"an answer for this server's {self.count} worlds takes up to {answer} bytes, beyond this "
                        f"client's frame limit of {limit} bytes: open the Session with max_frame_bytes={answer} or "
                        f"more (--max-frame-bytes on the command line; 0: no limit)")

    def send(self, controls: np.ndarray | None = None, steps: int = 0, resets: Sequence[int] = (),
             qpos: np.ndarray | None = None, qvel: np.ndarray | None = None,
             images: Mapping[str, Asked] | None = None, image_worlds: Sequence[int] = ()) -> None:
        """Ask every world to step `steps` times (0: once) with `controls` (count x control_width; None steps no
        world), except the worlds `resets` lists (ascending), which restart, from `qpos`/`qvel` (one row per
        reset world, or None for the scene's initial state). Answered by the next `receive()`.

        `images` (camera name -> a kind or kinds, as `Session.step` takes them, without a rate) asks for those
        images of every world's state after the step, or of the worlds `image_worlds` lists (ascending);
        ExtensionNotSupportedError for a server without cameras."""
        if self._waiting:
            raise Error("the answer to the previous Control for every world was not received yet")
        if controls is not None and np.shape(controls) != (self.count, self.control_width):
            raise Error(f"controls of shape {np.shape(controls)}; this server's {self.count} worlds take "
                        f"({self.count}, {self.control_width})")
        requests = image_requests(images) if images else []
        if requests and not self.session.handshake.supports(EXTENSION_IMAGES):
            server = self.session.handshake.server
            raise ExtensionNotSupportedError(EXTENSION_IMAGES, f"images of {requests[0].camera}",
                                             (server.name if server is not None else "") or "the server")
        self._check_images(requests, image_worlds)
        frame = encode_world_control(self.count, np.zeros(0) if controls is None else controls, steps, resets, qpos,
                                     qvel, [(r.camera, r.kinds) for r in requests], image_worlds,
                                     shared_memory=self.session.shared_images is not None)
        self.session.client.send_frame(frame)
        self._waiting = True

    def _check_images(self, requests: list[ImageRequest], image_worlds: Sequence[int]) -> None:
        """Error for a rate, or for images whose answer would exceed this client's frame limit (ZeroMQ would drop
        it unread: the client would see only a timeout); the server checks the rest."""
        for request in requests:
            if request.every is not None:
                raise Error(f"camera '{request.camera}' asked for every {request.every} steps: a Control for every "
                            "world renders its images with each answer (give no rate)")
        limit = self.session.client.max_frame_bytes
        cameras = self.session.handshake.cameras
        if not requests or not limit or any(r.camera not in cameras for r in requests):
            return
        worlds = len(image_worlds) or self.count
        pixels = sum(cameras[r.camera].width * cameras[r.camera].height * IMAGE_BYTES_PER_PIXEL.get(kind, 4)
                     for r in requests for kind in r.kinds)
        answer = world_answer_bytes(self.count, self.sensor_width) + worlds * pixels
        ring = self.session.handshake.shared_memory if self.session.shared_images is not None else None
        # Through shared memory the arrays do not cross the socket, when they fit a buffer (as the server checks).
        shared = ring is not None and answer + 64 * (2 + sum(len(r.kinds) for r in requests)) <= ring.slot_bytes
        if answer > limit and not shared:
            raise Error(f"the images asked for make an answer of about {answer} bytes, beyond this client's frame "
                        f"limit of {limit} bytes: open the Session with max_frame_bytes={answer} or more (0: no "
                        "limit), or ask for fewer worlds or images")

    def receive(self) -> tuple[np.ndarray, np.ndarray]:
        """The answer to `send`: every world's readings (count x sensor_width) and simulated time (count).

        The arrays are read-only; `data` then holds its world data. coupler.TimeoutError past the session's
        timeout; RemoteError when the server refused the Control.

        Through shared memory (a session that mapped its server's ring, see
        coupler.controller.shared_images) the readings, world data and images
        are views of the mapped memory, no copy: they hold what was sent until
        `slots - 1` more answers through the ring (3 with the server's default
        of 4 buffers); copy them (`np.array(sensors)`) to keep them longer. The
        times always come in the frame.
        """
        if not self._waiting:
            raise Error("no Control for every world was sent: nothing to receive")
        frame = self.session.client.receive_frame(self.session.timeout)
        self._waiting = False
        sensors, times, data, stacks, image_worlds = read_world_answer_with_images(frame, self.session.shared_images)
        if (sensors.size != self.count * self.sensor_width or times.size != self.count
                or data.size % self.count):
            raise Error(f"the server answered with {sensors.size} readings, {times.size} times and {data.size} "
                        f"numbers of world data for {self.count} worlds of {self.sensor_width} readings")
        self.data = data.reshape(self.count, -1)
        self.images = {}
        for stack in stacks:
            pictures = self.images.setdefault(stack.camera, WorldCameraImages(worlds=image_worlds))
            setattr(pictures, stack.kind, stack.pixels)
        return sensors.reshape(self.count, self.sensor_width), times
