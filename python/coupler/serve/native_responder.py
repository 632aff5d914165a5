"""Serving through the C++ server (`coupler._native`), Controls without messages.

A Control is checked against the handshake and read into the simulation's
control arrays in C++, applied and stepped by `SimulationServer`, and answered
with a frame that C++ encodes from the simulation's sensor array: no message
object is built for it, and the GIL is released while waiting for requests.
A Control that does not match the handshake is refused with the C++ check's
words. Every other request goes, as the message the C++ server decoded,
through `SimulationServer.handle`: one codec, no second parse. With
`sim.trace`, every request and answer is logged as it is served, on this
same path.
"""

from __future__ import annotations

import logging
from typing import Any

from coupler import _native
from coupler.wire.codec import decode, encode
from coupler.wire.errors import ProtocolError, TimeoutError
from coupler.wire.messages import ErrorMessage, MessageType
from coupler.wire.peer_text import shown
from coupler.serve.coalesced_reads import CoalescedReads
from coupler.serve.rate_limited_log import RateLimitedLog
from coupler.serve.responder import HELD_ANSWER, Answer
from coupler.serve.simulation import ArraySimulation
from coupler.serve.held import Held
from coupler.serve.simulation_server import SimulationServer

log = logging.getLogger(__name__)


def _shown_frame(frame: bytes | None) -> str:
    """A frame as --trace logs it: the message it holds."""
    if frame is None:
        return "nothing"
    try:
        return repr(decode(frame))
    except ProtocolError as error:
        return f"a frame of {len(frame)} bytes that does not decode ({error})"


class NativeResponder:
    """A `coupler.serve.responder.Responder` over a `coupler._native.Server` bound to `address`.

    The simulation must be an `ArraySimulation`. `trace_sizes` logs the frame
    sizes received and sent whenever they change. With `sim.trace` on, every
    request and answer is logged, decoded. `server_options`
    (heartbeat, heartbeat_timeout, max_frame_bytes, curve_key_pair,
    curve_allowed_clients) go to the server, as for `coupler.Server`.
    """

    def __init__(self, address: str, sim: SimulationServer, trace_sizes: bool = False, **server_options: Any) -> None:
        simulation = sim.simulation
        if not isinstance(simulation, ArraySimulation):
            raise TypeError(f"the native server path needs an ArraySimulation, not a {type(simulation).__name__}")
        self.sim = sim
        self._simulation = simulation
        self._controls = simulation.flat.controls
        self._sensors = simulation.flat.sensors
        self._trace_sizes = trace_sizes
        self._sizes = (0, 0)
        # Peers trigger these lines: bounded, so that no peer can flood the log.
        self._peer_log = RateLimitedLog(log)
        # Controls arrive undecoded (their kind read by a scan bounded by the frame's size) until the busy check
        # has passed: a peer that may not drive must not cost a full decode of whatever shape it sends.
        self.server = _native.Server(
            address, on_bad_frame=self._bad_frame, on_refused_client=self._refused_client,
            decode_on_demand=[MessageType.CONTROL], **server_options
        )
        self.endpoint: str = self.server.endpoint
        # Reads of one state share one frame: many readers must not cost the controller an encoding each.
        self.reads = CoalescedReads(sim, lambda: self._sensors.encode(simulation.sensor_values(self._sensors.values)))

    @property
    def trace_sizes(self) -> bool:
        """True when frame sizes are logged (every answer must then pass through `send`)."""
        return self._trace_sizes

    def _bad_frame(self, problem: str) -> None:
        if problem.startswith("answer dropped"):
            # Not the frame's fault: its peer left (or stopped reading) before its answer.
            self._peer_log.info("%s", shown(problem))
        else:
            self._peer_log.warning("bad frame: %s", shown(problem))

    @staticmethod
    def _refused_client(refusal: str) -> None:
        log.warning("%s", refusal)  # the C++ ZAP handler already logs a refused client at most once a minute

    def take_closed_peers(self) -> list[bytes]:
        return self.server.take_closed_peers()

    def receive(self, timeout: float) -> _native.Request | None:
        try:
            return self.server.receive(timeout)
        except TimeoutError:
            return None

    def try_receive(self) -> _native.Request | None:
        return self.server.try_receive()

    def respond(self, request: _native.Request) -> Answer:
        answer = self._respond(request)
        if self.sim.trace:
            self.log_traced(request.frame, answer.reply, answer.held)
        return answer

    @staticmethod
    def log_traced(request: bytes, answer: bytes | None, held: bool = False) -> None:
        """Log a request frame and its answer frame (None: none sent) as --trace does, wherever it was served."""
        log.info("received %s", _shown_frame(request))
        log.info("answered %s", "HELD" if held else _shown_frame(answer))

    def _respond(self, request: _native.Request) -> Answer:
        if request.type == MessageType.SENSOR_REQUEST:
            return Answer(self.reads.answer())
        if request.type != MessageType.CONTROL:
            return self._through_messages(request)
        refused = self._refused_unread(request)
        if refused is not None:
            return refused
        try:
            steps = self._controls.read(request)
        except ProtocolError as error:
            return Answer(encode(self.sim.refuse_control(error, request.peer)))
        return self._control(steps, request.peer)

    def _control(self, steps: int, peer: bytes) -> Answer:
        simulated_time = self.sim.handle_control_values(self._controls, steps, self._sensors.values, peer)
        if isinstance(simulated_time, ErrorMessage):
            return Answer(encode(simulated_time))
        if isinstance(simulated_time, Held):
            return HELD_ANSWER
        return Answer(self._sensors.encode(simulated_time), simulated_time, self.sim.steps_per_control(steps))

    def _refused_unread(self, request: _native.Request) -> Answer | None:
        """The answer to a Control refused before its body is read, or None to read it."""
        busy = self.sim.busy_refusal(request.peer)
        if busy is not None:
            # Decoding costs nothing for a peer that may not drive.
            return Answer(encode(busy))
        if not self.server.complete(request):
            return Answer(None)  # a bad frame: the C++ server answered and reported it, as on arrival
        return None

    def _through_messages(self, request: _native.Request) -> Answer:
        message = request.message  # as the C++ server decoded it: the one codec, no second parse
        # Not a Control (those are read above): never held, never stepped.
        answer = self.sim.handle(message, request.peer)
        return Answer(None if answer is None or isinstance(answer, Held) else encode(answer))

    def step(self) -> None:
        self.sim.step()

    def round_answer(self, steps: int) -> Answer:
        simulated_time = self._simulation.sensor_values(self._sensors.values)
        return Answer(self._sensors.encode(simulated_time), simulated_time, steps)

    def error_answer(self, error: ErrorMessage) -> Answer:
        return Answer(encode(error))

    def send(self, request: _native.Request, answer: Answer) -> None:
        if answer.reply is None:
            return
        if self._trace_sizes:
            self.trace_exchange(request.size, len(answer.reply))
        self.server.reply(request, answer.reply)

    def trace_exchange(self, received: int, sent: int) -> None:
        """With trace_sizes, log an exchange's frame sizes when they differ from the last ones logged."""
        if self._trace_sizes and self._sizes != (received, sent):
            self._sizes = (received, sent)
            log.info("received %d bytes, sent %d bytes", received, sent)

    def close(self) -> None:
        self.server.close()

    def __enter__(self) -> NativeResponder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
