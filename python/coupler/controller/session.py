"""What a controller author uses: connect and handshake once, then step.

The session is the C++ `coupler::Session`, bound: the handshake, timeouts and
reconnecting, the shared memory and channel, polling and the round-trip
statistics are the C++ library's. This module gives it the Python Controls and
SensorReadings.

Images through shared memory (the "shm" extension): a session at an ipc:// or
inproc:// address whose server announces a ring maps it (read-only, once) and
asks for every answer's images through it; `Session(..., shared_memory=False)`
opts out, and a ring that cannot be mapped (another user, another container)
is left alone, logged at INFO: images then come through the socket, as over
tcp. Such an image is a read-only NumPy array of the mapped memory, no copy.
The array keeps the mapping alive, but the server writes the ring's buffers in
turn: its pixels stay as they were sent until `slots - 1` more answers with
shared images have been received (3 with the server's default of 4 buffers),
by this or any other client of the server. `np.array(picture.rgb)` keeps a copy
for longer; `session.shared_images.still_valid(image)` says whether a buffer
was rewritten since.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from coupler import _native, limits
from coupler.controller.camera_images import Asked, image_requests
from coupler.controller.controls import Controls
from coupler.controller.round_trip_stats import RoundTripStats
from coupler.controller.sensor_readings import SensorReadings
from coupler.transport.client import Client
from coupler.wire.errors import ExtensionNotSupportedError, ProtocolError
from coupler.wire.messages import EXTENSION_IMAGES, ErrorCode, HandshakeMessage, Message

Trace = Callable[[str, Message], None]


class Session:
    """A controller's connection to one simulation.

    Every call waits at most `timeout` seconds (default 5.0) and raises
    coupler.TimeoutError past it; an ErrorMessage from the server raises
    RemoteError; an answer of the wrong kind raises ProtocolError. A session
    whose request timed out stays usable; `reconnect()` resumes after a
    server restart, and `reconnect_attempts` does so on its own (see __init__).
    A request that timed out because the server was unreachable stays queued
    and is delivered if that server comes back; `reconnect()` drops it.

        with Session("tcp://127.0.0.1:5555", reset=True) as session:
            controls = session.controls()
            controls.set("arm", "joint1", 0.3)
            readings = session.step(controls)
            readings.angle("arm", "joint1")
    """

    def __init__(
        self,
        address: str,
        timeout: float = limits.REQUEST_TIMEOUT,
        polling: bool = False,
        trace: Trace | None = None,
        reconnect_attempts: int = 0,
        reset: bool = False,
        shared_memory: bool = True,
        shared_channel: bool = False,
        **transport: Any,
    ) -> None:
        """Connect and do the handshake.

        `reset` (default False: continue where the previous controller left
        the scene) asks for a Reset right after the handshake, so the session
        starts from the scene's initial state at time 0.

        `polling` waits for answers by polling without blocking, sleeping in
        zmq_poll between polls, as a controller with other work would
        (default: blocking receive). `trace` is called with "send" or "recv"
        and each message. `transport` options (linger, heartbeat,
        heartbeat_timeout, max_frame_bytes, curve_server_key, curve_key_pair)
        go to the Client.

        `reconnect_attempts` (default 0: never): when a request times out,
        reconnect and handshake again up to this many times, each waiting up
        to `timeout`. A request that changes nothing (a SensorRequest) is
        then sent again; a Control or a Reset is not, since the server may
        have applied it: ReconnectedError says so, and the session is ready
        for the next call. When no attempt succeeds, TimeoutError.

        `shared_memory` (default True): at an ipc:// or inproc:// address,
        take images through the shared memory the server announces (the "shm"
        extension, see this module's docstring: the arrays are then views of
        it, valid for the next few answers; `shared_images` is the mapping);
        False: through the socket, as over tcp.

        `shared_channel` (default False): at an ipc:// or inproc:// address,
        lease the server's shared channel in the handshake and send Controls
        and reads through it (futex wake-ups rather than the socket; those
        asking for images when they come through shared memory; see
        coupler/transport/shared_channel.hpp). A server without one,
        or a tcp:// address: everything goes through the socket, silently.
        RemoteError (SERVER_BUSY) when another controller holds the channel.
        """
        self._native = _native.Session(address, timeout=timeout, polling=polling, trace=trace,
                                       reconnect_attempts=reconnect_attempts, shared_memory=shared_memory,
                                       shared_channel=shared_channel, **transport)
        self.client: Client = self._native.client
        self.timeout = timeout
        self.reconnect_attempts = reconnect_attempts
        self.polling = polling
        self.trace = trace
        self._use_handshake()
        if reset:
            try:
                self.reset()
            except BaseException:
                self._native.close()
                raise

    def _use_handshake(self) -> None:
        self.handshake: HandshakeMessage = self._native.handshake
        # The C++ session's mapping of the server's ring (view, current, still_valid); None: images by socket.
        self.shared_images: _native.SharedRingReader | None = self._native.shared_memory

    @property
    def stats(self) -> RoundTripStats:
        """Timing of every exchange so far (the handshake included); clear() it to time a phase of its own."""
        return self._native.stats

    @property
    def shared_channel(self) -> bool:
        """Whether the server leased this session its shared channel (and no wait through it timed out)."""
        return self._native.shared_channel

    def reconnect(self, accept_scene_change: bool = False) -> None:
        """Open a fresh connection to the same address and do the handshake again.

        Raises SceneChangedError, keeping the old handshake, when the server
        now describes a different scene, unless `accept_scene_change`.
        TimeoutError when the server does not answer within the timeout.
        """
        self._native.reconnect(accept_scene_change)
        self._use_handshake()

    def controls(self) -> Controls:
        """A fresh Controls for this scene that holds its current state, events off.

        A position control (ANGLE or LINEAR_POSITION) whose handshake names
        the joint it drives (the coupler `controlTargets` extension) starts at
        that joint's current position, read with one SensorRequest, so sending it moves
        nothing; a mocap body's MOCAP_POSITION and MOCAP_QUATERNION controls
        start at its current position and orientation (the orientation from
        its RPY reading, to within rounding); every other control starts at 0
        (no torque, no speed). Without such controls nothing is asked of the server.
        """
        return Controls.of(self._native.controls())

    def _readings(self, native: _native.SensorReadings) -> SensorReadings:
        if native.values is not None:
            return SensorReadings.of(self.handshake, native)
        message = native.message()
        for image in message.images:
            if image.shared is None:
                continue
            if self.shared_images is None:
                raise ProtocolError("an answer's images lie in shared memory this session did not map",
                                    ErrorCode.MALFORMED_FRAME)
            image.data = self.shared_images.view(image.shared)
        return SensorReadings.of(self.handshake, native, message)

    def _image_requests(self, images: Mapping[str, Asked] | None) -> list | None:
        if not images:
            return None
        if not self.handshake.supports(EXTENSION_IMAGES):
            server = self.handshake.server
            name = "this Click server" if server is None else f"the server '{server.name}' {server.version}"
            raise ExtensionNotSupportedError(EXTENSION_IMAGES, f"images of {', '.join(images)}", name)
        return image_requests(images)

    def step(self, controls: Controls, images: Mapping[str, Asked] | None = None) -> SensorReadings:
        """Send the controls, let the simulation step, return the new state.

        `images` (the "images" extension) asks for camera images of the new
        state, camera name -> kinds ("rgb", "depth", "segmentation", see
        `handshake.cameras`) or a CameraRequest with a rate; they come back in
        `readings.images`. RemoteError names an unknown camera or kind, and the
        Control is then not applied.

        Raises ExtensionNotSupportedError, sending nothing, for controls.steps
        above 1 when the server did not announce the "steps" extension, and for
        images from a server without "images".
        """
        requests = self._image_requests(images)
        return self._readings(self._native.step(controls.frame(), controls.steps, requests))

    def sensors(self, images: Mapping[str, Asked] | None = None) -> SensorReadings:
        """The current state, without stepping; with `images`, camera images of it, as `step` takes them."""
        return self._readings(self._native.sensors(self._image_requests(images)))

    def reset(self, qpos: Sequence[float] = (), qvel: Sequence[float] = (), keyframe: str | int | None = None) -> None:
        """Restore the initial state; the simulation waits for the next step.

        `keyframe` (the "keyframes" extension): restore this keyframe of
        `handshake.keyframes` instead, by name (str) or index (int);
        ExtensionNotSupportedError, sending nothing, from a server that did
        not announce it, RemoteError naming the valid ones for one the model
        does not have. `qpos`, `qvel` (the "reset-state" extension of MuJoCo
        scenes): then start from these generalised positions and velocities,
        all of the model's, in its order; RemoteError when the server cannot.
        """
        self._native.reset([float(v) for v in qpos], [float(v) for v in qvel],
                           keyframe if keyframe is None or isinstance(keyframe, str) else int(keyframe))

    def close(self) -> None:
        """Tell the server this controller is leaving (no answer follows), then disconnect.

        The goodbye goes only to a server that announced the "goodbye"
        extension: a Click server cannot take a message it does not answer.
        """
        self._native.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
