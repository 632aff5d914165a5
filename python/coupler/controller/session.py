"""What a controller author uses: connect and handshake once, then step."""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from coupler.transport.client import Client
from coupler.transport.options import DEFAULT_TIMEOUT
from coupler.wire.codec import decode, encode
from coupler.controller.camera_images import Asked, image_requests
from coupler.controller.controls import Controls
from coupler.controller.shared_channel import SharedChannel
from coupler.controller.shared_images import SharedImages, on_this_host
from coupler.wire.errors import Error, ProtocolError, ReconnectedError, RemoteError, SceneChangedError
from coupler.wire.errors import ExtensionNotSupportedError
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import (
    EXTENSION_IMAGES,
    EXTENSION_KEYFRAMES,
    EXTENSION_GOODBYE,
    EXTENSION_STEPS,
    PROTOCOL_VERSION,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    ImageRequest,
    Message,
    ResetMessage,
    SensorMessage,
    SensorRequestMessage,
    ValueType,
)
from coupler.wire.errors import TimeoutError
from coupler.controller.round_trip_stats import RoundTripStats
from coupler.controller.sensor_readings import SensorReadings

Trace = Callable[[str, Message], None]
T = TypeVar("T")


def _flat_layout_of(handshake: HandshakeMessage) -> FlatLayout | None:
    try:
        return FlatLayout(handshake)
    except Error:
        return None  # a sensor type no reading can carry: such a scene goes through messages


def _unexpected(answer: Message, expected: str) -> Exception:
    if isinstance(answer, ErrorMessage):
        return RemoteError(answer.code, answer.text)
    return ProtocolError(f"expected {expected}, got {type(answer).__name__}", ErrorCode.UNEXPECTED_MESSAGE)


_MOCAP_TYPES = (ValueType.MOCAP_POSITION, ValueType.MOCAP_QUATERNION)


def _quaternion(roll: float, pitch: float, yaw: float) -> list[float]:
    """(w, x, y, z) of roll, pitch and yaw: the inverse of the server's quaternion-to-RPY (z-y-x), within rounding."""
    cr, sr = math.cos(roll / 2), math.sin(roll / 2)
    cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    return [cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy]


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
        timeout: float = DEFAULT_TIMEOUT,
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
        and each message. `transport` options (heartbeat, heartbeat_timeout,
        max_frame_bytes, curve_server_key, curve_key_pair) go to the Client.

        `reconnect_attempts` (default 0: never): when a request times out,
        reconnect and handshake again up to this many times, each waiting up
        to `timeout`. A request that changes nothing (a SensorRequest) is
        then sent again; a Control or a Reset is not, since the server may
        have applied it: ReconnectedError says so, and the session is ready
        for the next call. When no attempt succeeds, TimeoutError.

        `shared_memory` (default True): at an ipc:// or inproc:// address,
        take images through the shared memory the server announces (the "shm"
        extension, see coupler.controller.shared_images: the arrays are then
        views of it, valid for the next few answers); False: through the
        socket, as over tcp.

        `shared_channel` (default False): at an ipc:// or inproc:// address,
        lease the server's shared channel in the handshake and send Controls
        and reads through it (futex wake-ups rather than the socket; those
        asking for images when they come through shared memory; see
        coupler.controller.shared_channel). A server without one,
        or a tcp:// address: everything goes through the socket, silently.
        RemoteError (SERVER_BUSY) when another controller holds the channel.
        """
        self.client = Client(address, timeout=timeout, **transport)
        self.timeout = timeout
        self.reconnect_attempts = reconnect_attempts
        self.polling = polling
        self.trace = trace
        # Timing of every exchange so far (the handshake included); clear() it
        # to time a phase of its own.
        self.stats = RoundTripStats()
        self._open = True
        # The flat layout of the handshake it was made for: steps are sent
        # and read through it rather than through messages.
        self._flat: FlatLayout | None = None
        self._flat_handshake: HandshakeMessage | None = None
        self._shared_memory = shared_memory
        # The server's ring, mapped, when images come through shared memory.
        self.shared_images: SharedImages | None = None
        self._shared_channel = shared_channel
        # The server's channel, mapped, when this session leased it.
        self._channel: SharedChannel | None = None
        try:
            self.handshake: HandshakeMessage = self._handshake()
            if reset:
                self.reset()
        except BaseException:
            self._open = False
            self.client.close()
            raise

    def _handshake(self) -> HandshakeMessage:
        self._channel = None
        asked = self._shared_channel and on_this_host(self.client.address)
        answer = self._exchange_once(HandshakeInitMessage(shared_channel=asked))
        if not isinstance(answer, HandshakeMessage):
            raise _unexpected(answer, "Handshake")
        if answer.version != PROTOCOL_VERSION:
            raise ProtocolError(f"server speaks protocol version {answer.version}", ErrorCode.VERSION_NOT_SUPPORTED)
        self.shared_images = SharedImages.mapped(self.client.address, answer) if self._shared_memory else None
        self._channel = SharedChannel.leased(self.client.address, answer) if asked else None
        return answer

    @property
    def shared_channel(self) -> bool:
        """Whether the server leased this session its shared channel (and no wait through it timed out)."""
        return self._channel is not None and self._channel.open

    def reconnect(self, accept_scene_change: bool = False) -> None:
        """Open a fresh connection to the same address and do the handshake again.

        Raises SceneChangedError, keeping the old handshake, when the server
        now describes a different scene, unless `accept_scene_change`.
        TimeoutError when the server does not answer within the timeout.
        """
        self.client.reconnect()
        self._open = True  # a fresh connection: a closed session is open again
        handshake = self._handshake()
        # A restarted server offers a ring of its own: the same scene all the same.
        unshared = dataclasses.replace(handshake, shared_memory=self.handshake.shared_memory,
                                       shared_channel=self.handshake.shared_channel)
        if not accept_scene_change and unshared != self.handshake:
            raise SceneChangedError(
                f"the server at {self.client.address} now describes a different scene than this session was "
                "using; reconnect(accept_scene_change=True) accepts it"
            )
        self.handshake = handshake

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
        controls = Controls(self.handshake)
        mocap = [name for name, described in self.handshake.objects.items()
                 if any(t in _MOCAP_TYPES for t in described.control_types)]
        holding = [
            (name, control, target)
            for name, described in self.handshake.objects.items()
            for control, value_type, target in zip(described.controls, described.control_types,
                                                   described.control_targets)
            if value_type in (ValueType.ANGLE, ValueType.LINEAR_POSITION) and target in described.joint_sensors
        ]
        if holding or mocap:
            readings = self.sensors()
            for name, control, target in holding:
                controls.set(name, control, readings.angle(name, target))
            for name in mocap:
                # The pose in control order: x, y, z, then w, x, y, z.
                pose = {ValueType.MOCAP_POSITION: readings.object_sensor(name, ValueType.POSITION).tolist(),
                        ValueType.MOCAP_QUATERNION: _quaternion(*readings.object_sensor(name, ValueType.RPY).tolist())}
                described = self.handshake.objects[name]
                for control, value_type in zip(described.controls, described.control_types):
                    if value_type in pose:
                        controls.set(name, control, pose[value_type].pop(0))
        return controls

    def _exchange(self, request: Message, through_channel: bool = False) -> Message:
        return self._with_reconnect(
            lambda: self._exchange_once(request, through_channel), type(request).__name__,
            isinstance(request, SensorRequestMessage)
        )

    def _with_reconnect(self, exchange: Callable[[], T], kind: str, resendable: bool) -> T:
        try:
            return exchange()
        except TimeoutError as timeout:
            self._reconnect_after(timeout, kind, resendable)
        return exchange()

    def _reconnect_after(self, timeout: TimeoutError, kind: str, resendable: bool) -> None:
        """After a request timed out: reconnect, or raise the timeout when the session does not; then raise
        ReconnectedError unless the request may be sent again."""
        if self.reconnect_attempts <= 0:
            raise timeout
        self._reestablish(timeout)
        if not resendable:
            raise ReconnectedError(
                f"no answer to a {kind} from {self.client.address}; the session reconnected "
                "with a new handshake (the server may have restarted), and the request was not sent again since "
                "it may have been applied"
            )

    def _reestablish(self, cause: TimeoutError) -> None:
        for _ in range(self.reconnect_attempts):
            try:
                self.reconnect()
                return
            except TimeoutError:
                continue  # the server is not back yet; each attempt waits one timeout
        raise TimeoutError(f"{cause}; {self.reconnect_attempts} reconnect attempts found no server") from cause

    def _exchange_once(self, request: Message, through_channel: bool = False) -> Message:
        if self.trace:
            self.trace("send", request)
        sent = time.perf_counter()
        answer = decode(self._round_trip(encode(request), sent, through_channel))
        self.stats.add_round_trip(time.perf_counter() - sent)
        if self.trace:
            self.trace("recv", answer)
        return answer

    def _step_once(self, controls: Controls, flat: FlatLayout) -> SensorReadings | Message:
        """One Control sent from the arrays; the answer read into a new array when it is a
        SensorMessage of the scene's shape, decoded otherwise."""
        sent = time.perf_counter()
        answer = self._round_trip(controls.frame(), sent, through_channel=True)
        read = flat.sensors.read(answer)
        if read is not None and self._channel is not None:
            # Stepped: the server now serves this controller's requests through its channel too.
            self._channel.ready = True
        result = decode(answer) if read is None else SensorReadings.from_array(self.handshake, flat, *read)
        self.stats.add_round_trip(time.perf_counter() - sent)
        return result

    def _round_trip(self, frame: bytes, sent: float, through_channel: bool = False) -> bytes:
        """The answer to `frame`, `through_channel` when the shared channel is leased and ready (else, or when
        the server hands it back, through the socket)."""
        if not self._open:
            raise Error(f"the session with {self.client.address} is closed: open a new one")
        if through_channel and self._channel is not None:
            answer = self._channel.exchange(frame, self.timeout)
            if answer is not None:
                self.stats.add_blocked(time.perf_counter() - sent)  # asleep in the futex until the answer came
                return answer
        self.client.send_frame(frame)
        if self.polling:
            return self._receive_polling(sent)
        answer = self.client.receive_frame()
        self.stats.add_blocked(time.perf_counter() - sent)
        return answer

    def _receive_polling(self, sent: float) -> bytes:
        deadline = sent + self.timeout
        while True:
            start = time.perf_counter()
            answer = self.client.try_receive_frame()
            polled = time.perf_counter()
            self.stats.add_blocked(polled - start)
            if answer is not None:
                return answer
            if polled >= deadline:
                raise TimeoutError(f"no answer from {self.client.address} within {self.timeout} s")
            # Sleeps until the answer arrives or 1 ms passes: no spinning, no added latency.
            self.client.wait(0.001)
            self.stats.add_idle(time.perf_counter() - polled)

    def _flat_layout(self) -> FlatLayout | None:
        if self._flat_handshake is not self.handshake:
            self._flat = _flat_layout_of(self.handshake)
            self._flat_handshake = self.handshake
        return self._flat

    def _readings_of(self, answer: Message) -> SensorReadings:
        after_reset = isinstance(answer, ResetMessage)
        if after_reset:
            # The simulation was reset from its side; fetch the state it now has.
            answer = self._exchange(SensorRequestMessage())
        if not isinstance(answer, SensorMessage):
            raise _unexpected(answer, "Sensor")
        if any(image.shared is not None for image in answer.images):
            if self.shared_images is None:
                raise ProtocolError("an answer's images lie in shared memory this session did not map",
                                    ErrorCode.MALFORMED_FRAME)
            self.shared_images.resolve(answer.images)
        return SensorReadings(self.handshake, answer, after_reset)

    def _sensors_for(self, request: Message, through_channel: bool = False) -> SensorReadings:
        return self._readings_of(self._exchange(request, through_channel))

    def _images_through_channel(self) -> bool:
        """Whether requests for images go through the shared channel: their images then come through the ring,
        so the answer fits the channel's frames."""
        return self._channel is not None and self.shared_images is not None and not self.trace

    def _server_name(self) -> str:
        server = self.handshake.server
        return "this Click server" if server is None else f"the server '{server.name}' {server.version}"

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
        if isinstance(controls.steps, int) and controls.steps > 1 and not self.handshake.supports(EXTENSION_STEPS):
            raise ExtensionNotSupportedError(
                EXTENSION_STEPS, f"{controls.steps} steps per Control", self._server_name()
            )
        if images:
            control = controls.message()
            control.images = self._image_requests(images)
            control.shared_memory = self.shared_images is not None
            return self._sensors_for(control, self._images_through_channel())
        # A trace sees every message, so it goes through messages.
        flat = None if self.trace else self._flat_layout()
        if flat is None:
            return self._sensors_for(controls.message())
        # Called straight rather than through _with_reconnect: no closure to make on every step.
        try:
            answer = self._step_once(controls, flat)
        except TimeoutError as timeout:
            self._reconnect_after(timeout, "ControlMessage", resendable=False)
            raise  # not reached: _reconnect_after raises for a Control
        return answer if isinstance(answer, SensorReadings) else self._readings_of(answer)

    def sensors(self, images: Mapping[str, Asked] | None = None) -> SensorReadings:
        """The current state, without stepping; with `images`, camera images of it, as `step` takes them."""
        if images:
            return self._sensors_for(SensorRequestMessage(images=self._image_requests(images),
                                                          shared_memory=self.shared_images is not None),
                                     self._images_through_channel())
        return self._readings_of(self._exchange(SensorRequestMessage(), through_channel=not self.trace))

    def _image_requests(self, images: Mapping[str, Asked]) -> list[ImageRequest]:
        if not self.handshake.supports(EXTENSION_IMAGES):
            raise ExtensionNotSupportedError(EXTENSION_IMAGES, f"images of {', '.join(images)}", self._server_name())
        return image_requests(images)

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
        request = ResetMessage(qpos=[float(v) for v in qpos], qvel=[float(v) for v in qvel])
        if keyframe is not None:
            if not self.handshake.supports(EXTENSION_KEYFRAMES):
                raise ExtensionNotSupportedError(EXTENSION_KEYFRAMES, f"a Reset to keyframe {keyframe!r}",
                                                 self._server_name())
            if isinstance(keyframe, str):
                request.keyframe = keyframe
            else:
                request.keyframe_index = int(keyframe)
        if self._channel is not None:
            self._channel.ready = False  # the reset simulation waits for a step through the socket
        answer = self._exchange(request)
        if not isinstance(answer, ResetMessage):
            raise _unexpected(answer, "Reset")

    def close(self) -> None:
        """Tell the server this controller is leaving (no answer follows), then disconnect.

        The goodbye goes only to a server that announced the "goodbye"
        extension: a Click server cannot take a message it does not answer.
        """
        if not self._open:
            return
        self._open = False
        self._channel = None
        try:
            if self.handshake.supports(EXTENSION_GOODBYE):
                self.client.send(ErrorMessage(code=ErrorCode.SESSION_ENDED, text="controller closed the session"))
        finally:
            self.client.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
