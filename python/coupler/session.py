"""What a controller author uses: connect and handshake once, then step."""

from __future__ import annotations

import time
from collections.abc import Callable

import zmq

from coupler.client import Client
from coupler.controls import Controls
from coupler.errors import ProtocolError, RemoteError
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
    RemoteError; an answer of the wrong kind raises ProtocolError.

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
    ) -> None:
        """Connect and do the handshake.

        `polling` waits for answers by polling without blocking, sleeping in
        zmq_poll between polls, as a controller with other work would
        (default: blocking receive). `trace` is called with "send" or "recv"
        and each message.
        """
        self.client = Client(address, timeout=timeout, context=context)
        self.timeout = timeout
        self.polling = polling
        self.trace = trace
        # Timing of every exchange so far (the handshake included); clear() it
        # to time a phase of its own.
        self.stats = RoundTripStats()
        self._open = True
        try:
            answer = self._exchange(HandshakeInitMessage())
            if not isinstance(answer, HandshakeMessage):
                raise _unexpected(answer, "Handshake")
            if answer.version != PROTOCOL_VERSION:
                raise ProtocolError(
                    f"server speaks protocol version {answer.version}", ErrorCode.VERSION_NOT_SUPPORTED
                )
        except BaseException:
            self._open = False
            self.client.close()
            raise
        self.handshake: HandshakeMessage = answer

    def controls(self) -> Controls:
        """A fresh Controls for this scene: all zero, events off."""
        return Controls(self.handshake)

    def _exchange(self, request: Message) -> Message:
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
