"""Serving through the C++ server (`coupler._native`), Controls without messages.

A Control is checked against the handshake and read into the simulation's
control arrays in C++, applied, stepped and read in C++ too by
`SimulationServer` (`coupler.serve.native_control_step`), and answered
with a frame that C++ encodes from the simulation's sensor array: no message
object is built for it, and the GIL is released while waiting for requests.
A Control asking for camera images is checked here (`ImageAnswer.check`)
and then served as any other, stepped in C++ (one of many steps chunk by
chunk there while the loop serves others); its images are rendered and
appended here.
A Control that does not match the handshake is refused with the C++ check's
words. Every other request goes, as the message the C++ server decoded,
through `SimulationServer.handle`: one codec, no second parse. With
`sim.trace`, every request and answer is logged as it is served, on this
same path. Under a loop's hot path, a Control that admits its controller is
only admitted here (`Answer.admitted`, neither logged nor sent): the loop
hands its request to the hot path, which serves it.
"""

from __future__ import annotations

import logging
import time
from concurrent import futures
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from coupler import _native, limits
from coupler.wire.codec import decode, encode
from coupler.wire.errors import Error, ProtocolError
from coupler.wire.messages import ErrorCode, ErrorMessage, HandshakeInitMessage, HandshakeMessage, MessageType
from coupler.wire.peer_text import shown
from coupler.serve.busy_grace import BusyGrace
from coupler.serve.coalesced_reads import CoalescedReads
from coupler.serve.rate_limited_log import RateLimitedLog
from coupler.serve.request_guard import internal_error
from coupler.serve.responder import ADMITTED_ANSWER, HELD_ANSWER, Answer
from coupler.serve.simulation import ArraySimulation
from coupler.serve.held import Admitted, Held
from coupler.serve.image_answer import RENDER_TIMEOUT, ImageAnswer, Rendered, Wanted, encoded
from coupler.serve.shared_channel import SharedChannelLease
from coupler.serve.shared_images import SharedImages, offered_on
from coupler.serve.simulation_server import SimulationServer

log = logging.getLogger(__name__)


@dataclass
class _Rendering:
    """An answer waiting for its images: its sensor frame, sent once they are rendered."""

    request: _native.Request
    answer: Answer  # the state's sensor frame, without the images
    images: futures.Future[Any]  # Rendered, or what `compose` takes
    deadline: float  # time.monotonic() past which it is answered with an error
    failing: str  # what the error says first
    # The answer's frame from the rendered images; None: the sensor frame with the images field appended.
    compose: Callable[[Any], bytes] | None = None


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
    `shared_memory` (default True) offers images through shared memory on an
    ipc:// or inproc:// address (`coupler.serve.shared_images`).
    """

    def __init__(self, address: str, sim: SimulationServer, trace_sizes: bool = False, shared_memory: bool = True,
                 **server_options: Any) -> None:
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
        # A newcomer's request to drive waits a moment for a goodbye that frees the place, read on another connection.
        self.busy_grace = BusyGrace(sim.sessions, look_for_leavers=self._closed_peers_leave)
        # Reads of one state share one frame: many readers must not cost the controller an encoding each.
        self.reads = CoalescedReads(sim, lambda: self._sensors.encode(simulation.sensor_values(self._sensors.values)))
        # The "images" extension: a scene's cameras, when it serves them.
        self.images = ImageAnswer(getattr(simulation, "images", None), sim.handshake.time_step,
                                  getattr(simulation, "images_unavailable", ""),
                                  server_options.get("max_frame_bytes", limits.MAX_FRAME_BYTES),
                                  len(self._sensors.encode(0.0)))
        self._images_after_round: Wanted = ()  # asked for by a Control whose steps the loop takes
        self._shared_after_round = False  # and whether through shared memory
        # The "shm" extension: images through shared memory, for clients on this host that ask.
        self.shared_images: SharedImages | None = None
        if self.images.source is not None and offered_on(self.endpoint) and shared_memory:
            # A buffer holds the largest answer's images, whatever the socket's frame limit: they never cross it.
            self.shared_images = SharedImages(max(self.images.max_frame_bytes or limits.MAX_FRAME_BYTES or 1 << 26,
                                                  self.images.largest_answer_bytes()))
            self.images.shared_min_bytes = self.shared_images.announced.min_bytes
            self.images.shared_slot_bytes = self.shared_images.announced.slot_bytes
        # The "shm" extension's channel: a lone controller's round trips through shared memory, leased on request.
        self.shared_channel: SharedChannelLease | None = None
        if offered_on(self.endpoint) and shared_memory and sim.lockstep:
            self.shared_channel = SharedChannelLease(len(self._sensors.encode(0.0)))
        # Set by the hot path of a lockstep loop: a lone controller's Controls read here (those asking for images,
        # their images checked here, rendered and sent from here) step in C++ there.
        # Set by a loop that sends `rendered_answers()`: images are then rendered while others are served.
        self.defer_images = False
        self._rendering: list[_Rendering] = []

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
        closed = self.server.take_closed_peers()
        if self.shared_channel is not None:
            for peer in closed:
                self.shared_channel.release(peer)
        return closed

    def _closed_peers_leave(self) -> None:
        """End the sessions of the peers whose connection closed, reported since the last look."""
        for peer in self.take_closed_peers():
            self.sim.peer_left(peer)

    def receive(self, timeout: float) -> _native.Request | None:
        if timeout <= 0:
            # A poll (the loop's, between looks at images being rendered): no timeout raised and caught.
            return self.try_receive()
        grace = self.busy_grace
        until = time.monotonic() + timeout
        while True:
            request = grace.release()
            if request is not None:
                return request
            left = until - time.monotonic()
            if left <= 0:
                return None
            # Woken when a held request's grace ends, to serve it then. An idle server wakes here every poll: a wait
            # that ends with nothing gives None, where an exception would cost each wake-up far more.
            request = grace.arrived(self.server.try_receive(min(left, grace.release_in())))
            if request is not None:
                return request

    def try_receive(self) -> _native.Request | None:
        grace = self.busy_grace
        while True:
            request = grace.release()
            if request is not None:
                return request
            request = self.server.try_receive()
            if request is None:
                return None
            request = grace.arrived(request)
            if request is not None:
                return request

    def respond(self, request: _native.Request) -> Answer:
        answer = self._respond(request)
        if self.sim.trace and not answer.admitted:  # an admitted Control is logged where it is answered
            self.log_traced(request.frame, answer.reply, answer.held)
        return answer

    @staticmethod
    def log_traced(request: bytes, answer: bytes | None, held: bool = False) -> None:
        """Log a request frame and its answer frame (None: none sent) as --trace does, wherever it was served."""
        log.info("received %s", _shown_frame(request))
        log.info("answered %s", "HELD" if held else _shown_frame(answer))

    def _respond(self, request: _native.Request) -> Answer:
        if request.type == MessageType.SENSOR_REQUEST:
            wanted = request.image_requests
            return self._read_with_images(wanted, request) if wanted else Answer(self.reads.answer())
        if request.type != MessageType.CONTROL:
            return self._through_messages(request)
        refused = self._refused_unread(request)
        if refused is not None:
            return refused
        wanted = request.image_requests
        try:
            if wanted:
                self._check_images(wanted, request.shared_memory)
            steps = self._controls.read(request)
        except ProtocolError as error:
            return Answer(encode(self.sim.refuse_control(error, request.peer)))
        answer = self._control(steps, request.peer)
        if not wanted or answer.admitted:
            return answer
        if answer.held:
            self._images_after_round = wanted
            self._shared_after_round = request.shared_memory
            return answer
        if answer.simulated_time is None:
            return answer  # refused: no state to show
        return self._with_images(answer, wanted, request)

    def _check_images(self, wanted: Wanted, shared: bool) -> None:
        if self.sim.shared:
            raise ProtocolError("images are served with the Controls of a lone controller; this server steps "
                                "several controllers' Controls together (SensorRequests can ask for images)",
                                ErrorCode.CONTROL_MISMATCH)
        self.images.check(wanted, shared and self.shared_images is not None)

    def _with_images(self, answer: Answer, wanted: Wanted, request: _native.Request | None = None,
                     shared: bool = False) -> Answer:
        """`answer` (a stepped state's) with the images `wanted` of that state; an ErrorMessage if none render.

        With `defer_images` and the `request` to answer, the images render while others are served: the
        answer returned then sends nothing, and `rendered_answers()` hands it over once they are done.
        `shared`: through shared memory, for an answer made without its request.
        """
        assert answer.simulated_time is not None
        failing = "the Control was applied, but its images could not be rendered"
        if request is not None and self._deferred(request, answer, wanted, answer.simulated_time, answer.steps,
                                                  failing):
            return Answer(None, answer.simulated_time, answer.steps)
        if request is not None:
            shared = request.shared_memory
        try:
            fields = self.images.fields(wanted, answer.simulated_time, answer.steps, self._encoder(shared))
        except (RuntimeError, futures.TimeoutError) as error:
            return Answer(self._render_failure(failing, error), answer.simulated_time, answer.steps)
        return Answer(answer.reply + fields, answer.simulated_time, answer.steps)

    def _deferred(self, request: _native.Request, answer: Answer, wanted: Wanted, simulated_time: float, steps: int,
                  failing: str) -> bool:
        """Start rendering the images of `answer` (of the state at `simulated_time`, reached by `steps` steps)
        for `request` when answers wait for them; whether it did."""
        if not self.defer_images or self.sim.trace:
            return False  # a trace logs each answer as it is made
        due = self.images.due(wanted, simulated_time, steps)
        if not due:
            return False
        self._rendering.append(_Rendering(request, answer, self.images.submit(due),
                                          time.monotonic() + RENDER_TIMEOUT, failing))
        return True

    def _encoder(self, shared: bool) -> Callable[[Rendered], bytes]:
        """What encodes an answer's images: through shared memory when its request asked and the ring is there."""
        ring = self.shared_images
        if ring is None or not shared:
            return encoded
        return lambda rendered: ring.fields(rendered, True)

    def defer(self, request: _native.Request, answer: Answer, images: futures.Future[Any], failing: str,
              compose: Callable[[Any], bytes]) -> bool:
        """Send the answer to `request` (of `answer`'s time and steps) once `images` are rendered, its frame
        `compose`d of them, serving others meanwhile; False (nothing kept) when answers do not wait for images
        here (`defer_images` off, or a trace logging each answer as it is made)."""
        if not self.defer_images or self.sim.trace:
            return False
        self._rendering.append(_Rendering(request, answer, images, time.monotonic() + RENDER_TIMEOUT, failing,
                                          compose))
        return True

    def _render_failure(self, failing: str, error: BaseException) -> bytes:
        self.sim.stats.errors_sent += 1
        return encode(internal_error("rendering took too long" if isinstance(error, futures.TimeoutError) else error,
                                     failing))

    @property
    def images_pending(self) -> bool:
        """True while answers wait for their images (with `defer_images`)."""
        return bool(self._rendering)

    def images_pending_for(self, peer: bytes) -> bool:
        """True while an answer to `peer` waits for its images."""
        return any(rendering.request.peer == peer for rendering in self._rendering)

    def wait_rendered(self, timeout: float) -> None:
        """Wait until an answer's images are done, or `timeout` seconds."""
        futures.wait([r.images for r in self._rendering], timeout, futures.FIRST_COMPLETED)

    def rendered_answers(self) -> list[tuple[_native.Request, Answer]]:
        """The answers whose images are done (or failed, or took too long), to send now; never blocks."""
        done, waiting = [], []
        now = time.monotonic()
        for rendering in self._rendering:
            answer = rendering.answer
            if rendering.images.done():
                try:
                    result = rendering.images.result()
                    reply = (rendering.compose(result) if rendering.compose
                             else answer.reply + self._encoder(rendering.request.shared_memory)(result))
                except Exception as error:  # the renderer's failure, told to the one who asked
                    reply = self._render_failure(rendering.failing, error)
                done.append((rendering.request, Answer(reply, answer.simulated_time, answer.steps)))
            elif now > rendering.deadline:
                reply = self._render_failure(rendering.failing, futures.TimeoutError())
                done.append((rendering.request, Answer(reply, answer.simulated_time, answer.steps)))
            else:
                waiting.append(rendering)
        self._rendering = waiting
        return done

    def _read_with_images(self, wanted: Wanted, request: _native.Request) -> Answer:
        """The answer to a SensorRequest asking for images: the state now, and its images."""
        stats = self.sim.stats
        stats.requests += 1
        stats.sensor_requests += 1
        try:
            self.images.check(wanted, request.shared_memory and self.shared_images is not None)
        except ProtocolError as error:
            stats.errors_sent += 1
            return Answer(encode(ErrorMessage(code=error.code, text=str(error))))
        simulated_time = self._simulation.sensor_values(self._sensors.values)
        state = Answer(self._sensors.encode(simulated_time))
        failing = "images could not be rendered"
        if self._deferred(request, state, wanted, simulated_time, 0, failing):
            return Answer(None)
        try:
            return Answer(state.reply + self.images.fields(wanted, simulated_time, 0,
                                                           self._encoder(request.shared_memory)))
        except (RuntimeError, futures.TimeoutError) as error:
            return Answer(self._render_failure(failing, error))

    def _control(self, steps: int, peer: bytes) -> Answer:
        simulated_time = self.sim.handle_control_values(self._controls, steps, self._sensors.values, peer)
        if isinstance(simulated_time, ErrorMessage):
            return Answer(encode(simulated_time))
        if isinstance(simulated_time, Held):
            return HELD_ANSWER
        if isinstance(simulated_time, Admitted):
            return ADMITTED_ANSWER
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
        lease = self.shared_channel
        if lease is not None and isinstance(message, (HandshakeInitMessage, ErrorMessage)):
            if isinstance(message, HandshakeInitMessage) and message.shared_channel:
                if lease.holder is not None and lease.holder not in self.sim.sessions.active:
                    lease.release(lease.holder)  # its session lapsed (--session-timeout) or ended: the channel is free
                refusal = lease.refusal(request.peer)
                if refusal is not None:
                    return Answer(encode(refusal))  # refused before the handshake admits it: it takes no place
            else:
                lease.release(request.peer)  # a goodbye, or a handshake without the channel
        # Not a Control (those are read above): never held, never stepped.
        answer = self.sim.handle(message, request.peer)
        if isinstance(answer, HandshakeMessage) and self.shared_images is not None:
            answer = self.shared_images.handshake(answer)
        if (isinstance(answer, HandshakeMessage) and lease is not None and isinstance(message, HandshakeInitMessage)
                and message.shared_channel):
            answer = lease.handshake(answer, request.peer)
        return Answer(None if answer is None or isinstance(answer, Held) else encode(answer))

    def round_answer(self, steps: int) -> Answer:
        simulated_time = self._simulation.sensor_values(self._sensors.values)
        answer = Answer(self._sensors.encode(simulated_time), simulated_time, steps)
        wanted, self._images_after_round = self._images_after_round, ()
        shared, self._shared_after_round = self._shared_after_round, False
        return self._with_images(answer, wanted, shared=shared) if wanted else answer

    def error_answer(self, error: ErrorMessage) -> Answer:
        return Answer(encode(error))

    def send(self, request: _native.Request, answer: Answer) -> None:
        if answer.reply is None:
            return
        if self._trace_sizes:
            self.trace_exchange(request.size, len(answer.reply))
        if request.through_channel:
            self._reply_through_channel(answer.reply, stepped=answer.simulated_time is not None)
            return
        self.server.reply(request, answer.reply)

    def _reply_through_channel(self, reply: bytes, stepped: bool) -> None:
        """Answer the request the hot path handed back from the shared channel (one asking for images) there,
        where its client waits; `stepped`: the answer is a Control's, which was applied."""
        lease = self.shared_channel
        if lease is None or lease.channel is None:
            return  # no channel any more: its client times out, as it would without an answer
        try:
            lease.channel.reply(reply)
        except Error as error:
            # Over the channel's frames (images the client did not take through the ring): an error it can read,
            # never an empty answer, which would have it send a Control that was applied again.
            applied = "the Control was applied, but " if stepped else ""
            text = (f"{applied}{error}: ask for images through the socket, or through the shared memory ring "
                    "(HandshakeInit shared_memory)")
            lease.channel.reply(encode(ErrorMessage(code=ErrorCode.INTERNAL_ERROR, text=text)))

    @property
    def sizes_logged(self) -> tuple[int, int] | None:
        """With trace_sizes, the (received, sent) sizes logged last, which a change is logged against; else None."""
        return self._sizes if self._trace_sizes else None

    def trace_exchange(self, received: int, sent: int) -> None:
        """With trace_sizes, log an exchange's frame sizes when they differ from the last ones logged."""
        if self._trace_sizes and self._sizes != (received, sent):
            self._sizes = (received, sent)
            log.info("received %d bytes, sent %d bytes", received, sent)

    def close(self) -> None:
        self.server.close()
        self.shared_images = None

    def __enter__(self) -> NativeResponder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
