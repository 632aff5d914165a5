"""What a controller author uses: connect and handshake once, then step."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import zmq

from coupler.client import Client
from coupler.controls import Controls
from coupler.errors import ProtocolError, ReconnectedError, RemoteError, SceneChangedError
from coupler.messages import (
    PROTOCOL_VERSION,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    Message,
    ResetMessage,
    SensorMessage,
    SensorRequestMessage,
)
from coupler.errors import TimeoutError
from coupler.round_trip_stats import RoundTripStats
from coupler.sensor_readings import SensorReadings

Trace = Callable[[str, Message], None]


def _unexpected(answer: Message, expected: str) -> Exception:
    if isinstance(answer, ErrorMessage):
        return RemoteError(answer.code, answer.text)
    return ProtocolError(f"expected {expected}, got {type(answer).__name__}", ErrorCode.UNEXPECTED_MESSAGE)


class Session:
    """A controller's connection to one simulation.

    Every call waits at most `timeout` seconds (default 5.0) and raises
    coupler.TimeoutError past it; an ErrorMessage from the server raises
    RemoteError; an answer of the wrong kind raises ProtocolError. A session
    whose request timed out stays usable; `reconnect()` resumes after a
    server restart, and `reconnect_attempts` does so on its own (see __init__).
    A request that timed out because the server was unreachable stays queued
    and is delivered if that server comes back; `reconnect()` drops it.

        with Session("tcp://127.0.0.1:5555") as session:
            controls = session.controls()
            controls.set("arm", "joint1", 0.3)
            readings = session.step(controls)
            readings.angle("arm", "joint1")
    """

    def __init__(
        self,
        address: str,
        timeout: float = 5.0,
        polling: bool = False,
        trace: Trace | None = None,
        context: zmq.Context | None = None,
        reconnect_attempts: int = 0,
        **transport: Any,
    ) -> None:
        """Connect and do the handshake.

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
        """
        self.client = Client(address, timeout=timeout, context=context, **transport)
        self.timeout = timeout
        self.reconnect_attempts = reconnect_attempts
        self.polling = polling
        self.trace = trace
        # Timing of every exchange so far (the handshake included); clear() it
        # to time a phase of its own.
        self.stats = RoundTripStats()
        self._open = True
        try:
            self.handshake: HandshakeMessage = self._handshake()
        except BaseException:
            self._open = False
            self.client.close()
            raise

    def _handshake(self) -> HandshakeMessage:
        answer = self._exchange_once(HandshakeInitMessage())
        if not isinstance(answer, HandshakeMessage):
            raise _unexpected(answer, "Handshake")
        if answer.version != PROTOCOL_VERSION:
            raise ProtocolError(f"server speaks protocol version {answer.version}", ErrorCode.VERSION_NOT_SUPPORTED)
        return answer

    def reconnect(self, accept_scene_change: bool = False) -> None:
        """Open a fresh connection to the same address and do the handshake again.

        Raises SceneChangedError, keeping the old handshake, when the server
        now describes a different scene, unless `accept_scene_change`.
        TimeoutError when the server does not answer within the timeout.
        """
        self.client.reconnect()
        handshake = self._handshake()
        if not accept_scene_change and handshake != self.handshake:
            raise SceneChangedError(
                f"the server at {self.client.address} now describes a different scene than this session was "
                "using; reconnect(accept_scene_change=True) accepts it"
            )
        self.handshake = handshake
        self._open = True

    def controls(self) -> Controls:
        """A fresh Controls for this scene: all zero, events off."""
        return Controls(self.handshake)

    def _exchange(self, request: Message) -> Message:
        try:
            return self._exchange_once(request)
        except TimeoutError as timeout:
            if self.reconnect_attempts <= 0:
                raise
            self._reestablish(timeout)
        if not isinstance(request, SensorRequestMessage):
            raise ReconnectedError(
                f"no answer to a {type(request).__name__} from {self.client.address}; the session reconnected "
                "with a new handshake (the server may have restarted), and the request was not sent again since "
                "it may have been applied"
            )
        return self._exchange_once(request)

    def _reestablish(self, cause: TimeoutError) -> None:
        for _ in range(self.reconnect_attempts):
            try:
                self.reconnect()
                return
            except TimeoutError:
                continue  # the server is not back yet; each attempt waits one timeout
        raise TimeoutError(f"{cause}; {self.reconnect_attempts} reconnect attempts found no server") from cause

    def _exchange_once(self, request: Message) -> Message:
        if self.trace:
            self.trace("send", request)
        sent = time.perf_counter()
        self.client.send(request)
        if self.polling:
            answer = self._receive_polling(sent)
        else:
            answer = self.client.receive()
            self.stats.blocked += time.perf_counter() - sent
        self.stats.add_round_trip(time.perf_counter() - sent)
        if self.trace:
            self.trace("recv", answer)
        return answer

    def _receive_polling(self, sent: float) -> Message:
        deadline = sent + self.timeout
        while True:
            start = time.perf_counter()
            answer = self.client.try_receive()
            polled = time.perf_counter()
            self.stats.blocked += polled - start
            if answer is not None:
                return answer
            if polled >= deadline:
                raise TimeoutError(f"no answer from {self.client.address} within {self.timeout} s")
            # Sleeps until the answer arrives or 1 ms passes: no spinning, no added latency.
            self.client.wait(0.001)
            self.stats.idle += time.perf_counter() - polled

    def _sensors_for(self, request: Message) -> SensorReadings:
        answer = self._exchange(request)
        after_reset = isinstance(answer, ResetMessage)
        if after_reset:
            # The simulation was reset from its side; fetch the state it now has.
            answer = self._exchange(SensorRequestMessage())
        if not isinstance(answer, SensorMessage):
            raise _unexpected(answer, "Sensor")
        return SensorReadings(self.handshake, answer, after_reset)

    def step(self, controls: Controls) -> SensorReadings:
        """Send the controls, let the simulation step, return the new state."""
        return self._sensors_for(controls.message())

    def sensors(self) -> SensorReadings:
        """The current state, without stepping."""
        return self._sensors_for(SensorRequestMessage())

    def reset(self) -> None:
        """Restore the initial state; the simulation waits for the next step."""
        answer = self._exchange(ResetMessage())
        if not isinstance(answer, ResetMessage):
            raise _unexpected(answer, "Reset")

    def close(self) -> None:
        """Tell the server this controller is leaving (no answer follows), then disconnect."""
        if not self._open:
            return
        self._open = False
        try:
            self.client.send(ErrorMessage(code=ErrorCode.SESSION_ENDED, text="controller closed the session"))
        finally:
            self.client.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
