"""The reference server the tests hold the C++ one to: the same ROUTER server in pyzmq and the
Python codec, with a Python ZAP handler, so both can be compared frame for frame."""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass

import zmq
from zmq.utils.monitor import parse_monitor_message

from coupler.wire.codec import decode, encode
from coupler.wire.errors import Error, ProtocolError, TimeoutError
from coupler.wire.messages import ErrorCode, ErrorMessage, Message
from coupler.transport.liveness import set_liveness
from coupler.transport.options import (
    DEFAULT_HANDSHAKE_TIMEOUT,
    DEFAULT_HEARTBEAT,
    DEFAULT_HEARTBEAT_TIMEOUT,
    DEFAULT_MAX_FRAME_BYTES,
)
from reference.zap_handler import ZapRegistration

__all__ = ["Request", "Server"]

log = logging.getLogger(__name__)


@dataclass
class Request:
    """A message received by a Server, with the routing envelope its answer needs."""

    message: Message
    envelope: list[bytes]  # opaque: handed back by Server.reply
    size: int  # bytes of the frame on the wire

    @property
    def peer(self) -> bytes:
        """Identifies the connection it came from (stable while the peer stays connected)."""
        return self.envelope[0]


class Server:
    """Binds a ROUTER socket on tcp://, ipc:// or inproc://.

    REQ peers (Click controllers among them) connect as to a REP server,
    while the server can leave a message unanswered and sees multi-frame
    messages for what they are.

    A bad frame never reaches the caller and never stops the server: it is
    answered with an ErrorMessage naming the problem, logged, counted in
    `bad_frames`, and receiving goes on. An answer to a peer that has gone is
    logged and dropped. Pass a `context` to serve inproc:// endpoints in that
    context; by default the process-wide one is used. `endpoint` is the bound
    address, with the port filled in when `address` asked for any port
    (tcp://127.0.0.1:*).

    `heartbeat` (seconds, default 1.0; 0 turns it off) sends ZMTP PINGs on
    quiet tcp:// and ipc:// connections and drops one when nothing comes
    back within `heartbeat_timeout` (default 3.0), so a killed controller is
    noticed (`take_closed_peers`) while nobody sends. A frame over
    `max_frame_bytes` (default 1 MiB; 0: no limit) never reaches the
    decoder: ZeroMQ drops its sender's connection. With `curve_key_pair`
    (the server's Z85 public and secret keys), every connection is
    CurveZMQ-encrypted and only clients whose Z85 public key is in
    `curve_allowed_clients` get in; each refused client is logged with its
    address and key.
    """

    def __init__(
        self,
        address: str,
        context: zmq.Context | None = None,
        heartbeat: float = DEFAULT_HEARTBEAT,
        heartbeat_timeout: float = DEFAULT_HEARTBEAT_TIMEOUT,
        max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
        curve_key_pair: tuple[bytes, bytes] | None = None,
        curve_allowed_clients: Iterable[bytes] = (),
        handshake_timeout: float = DEFAULT_HANDSHAKE_TIMEOUT,
    ) -> None:
        context = context or zmq.Context.instance()
        allowed = list(curve_allowed_clients)
        if allowed and curve_key_pair is None:
            raise Error("a CURVE allow-list needs the server's own key pair")
        self._zap: ZapRegistration | None = None
        self._socket = context.socket(zmq.ROUTER)
        self._socket.linger = 0
        # Without it ROUTER silently drops an answer to a peer that has gone.
        self._socket.setsockopt(zmq.ROUTER_MANDATORY, 1)
        try:
            set_liveness(self._socket, heartbeat, heartbeat_timeout, max_frame_bytes)
            self._socket.handshake_ivl = int(handshake_timeout * 1000)
            if curve_key_pair is not None:
                self._zap = ZapRegistration(context, allowed, lambda refusal: log.warning("%s", refusal))
                self._socket.curve_server = True
                self._socket.curve_secretkey = curve_key_pair[1]
                self._socket.zap_domain = self._zap.domain.encode()
            self._socket.bind(address)
        except (zmq.ZMQError, Error) as error:
            self._socket.close(0)
            if self._zap is not None:
                self._zap.close()
            if isinstance(error, Error):
                raise
            raise Error(f"binding {address}: {error}") from None
        # Which connection (file descriptor) each peer's requests come from, so
        # that a closed connection, reported by the socket's monitor, can be told as a peer.
        self._monitor = self._socket.get_monitor_socket(zmq.EVENT_DISCONNECTED)
        self._peer_by_fd: dict[int, bytes] = {}
        self._closed_peers: list[bytes] = []
        self.endpoint: str = self._socket.getsockopt_string(zmq.LAST_ENDPOINT)
        # inproc:// connections have no file descriptor and no disconnect events.
        self._tracks_peers = not self.endpoint.startswith("inproc://")
        self._poller = zmq.Poller()
        self._poller.register(self._socket, zmq.POLLIN)
        self.bad_frames = 0
        # Log frame sizes received and sent whenever they change.
        self.trace_sizes = False
        self._sizes = (0, 0)

    def receive(self, timeout: float) -> Request:
        """Block up to `timeout` seconds for a valid request; raise TimeoutError otherwise.

        Bad frames arriving meanwhile are answered and do not end the wait.
        """
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            # Rounding up: the poll never returns before the deadline.
            if not self._poll(max(0, math.ceil(left * 1000))):
                raise TimeoutError(f"no request on {self.endpoint} within {timeout} s")
            request = self._read_one()
            if request is not None:
                return request

    def try_receive(self) -> Request | None:
        """Non-blocking: the next valid request, or None when none is waiting."""
        while self._poll(0):
            request = self._read_one()
            if request is not None:
                return request
        return None

    def reply(self, request: Request, message: Message) -> None:
        """Answer a request. Never blocks; an answer that cannot be delivered is logged and dropped."""
        frame = encode(message)
        if self.trace_sizes and self._sizes != (request.size, len(frame)):
            self._sizes = (request.size, len(frame))
            log.info("received %d bytes, sent %d bytes", request.size, len(frame))
        self._send(request.envelope, frame)

    def take_closed_peers(self) -> list[bytes]:
        """The routing identities (`Request.peer`) of peers whose connection has closed since the last call.

        A controller that was killed or left, or one whose heartbeats
        stopped. Only peers that sent a valid request are reported, each once.
        Never blocks.
        """
        self._drain_monitor()
        closed, self._closed_peers = self._closed_peers, []
        return closed

    def _record_peer(self, fd: int, peer: bytes) -> None:
        if self._peer_by_fd.get(fd) == peer:
            return
        # A new connection may have reused the number of one that closed: read
        # that close first, so it is reported for the old peer.
        self._drain_monitor()
        self._peer_by_fd[fd] = peer

    def _drain_monitor(self) -> None:
        while True:
            try:
                event = parse_monitor_message(self._monitor.recv_multipart(zmq.NOBLOCK))
            except zmq.Again:
                return
            except zmq.ZMQError:
                return  # closed
            if event["event"] == zmq.EVENT_DISCONNECTED:
                peer = self._peer_by_fd.pop(event["value"], None)
                if peer is not None:
                    self._closed_peers.append(peer)

    def _poll(self, milliseconds: int) -> bool:
        try:
            return bool(self._poller.poll(milliseconds))
        except zmq.ZMQError as error:
            raise Error(f"polling {self.endpoint}: {error}") from None

    def _send(self, envelope: list[bytes], frame: bytes) -> None:
        try:
            self._socket.send_multipart([*envelope, frame], flags=zmq.DONTWAIT)
        except zmq.Again:
            log.warning("answer dropped: peer is not reading")
        except zmq.ZMQError as error:
            # EHOSTUNREACH (from ROUTER_MANDATORY): the peer left before its answer.
            log.warning("answer dropped: %s", error)

    def _reject(self, envelope: list[bytes], problem: str, code: int) -> None:
        self.bad_frames += 1
        log.warning("bad frame from peer %s: %s", envelope[0].hex(), problem)
        self._send(envelope, encode(ErrorMessage(code=code, text=problem)))

    def _read_one(self) -> Request | None:
        """Read one waiting multipart message; return it when it is a valid request."""
        try:
            frames = self._socket.recv_multipart(zmq.NOBLOCK, copy=False)
        except zmq.Again:
            return None
        except zmq.ZMQError as error:
            raise Error(f"receiving on {self.endpoint}: {error}") from None
        parts = [frame.bytes for frame in frames]
        # The envelope is every frame up to and including the empty delimiter
        # a REQ peer puts before its payload; parts[0] is the identity ROUTER
        # adds, and REQ_CORRELATE peers add a request id after it.
        try:
            body = parts.index(b"", 1) + 1
        except ValueError:
            problem = "malformed frame: no empty delimiter frame before the payload (send from a REQ socket)"
            self._reject(parts[:1], problem, ErrorCode.MALFORMED_FRAME)
            return None
        envelope, payload = parts[:body], parts[body:]
        if len(payload) != 1:
            problem = (
                "malformed frame: message has no payload after its envelope"
                if not payload
                else f"malformed frame: multi-frame message of {len(payload)} frames; the protocol sends one"
            )
            self._reject(envelope, problem, ErrorCode.MALFORMED_FRAME)
            return None
        try:
            message = decode(payload[0])
        except ProtocolError as error:
            self._reject(envelope, f"malformed frame: {error}", error.code)
            return None
        if self._tracks_peers:
            self._record_peer(frames[-1].get(zmq.SRCFD), envelope[0])
        return Request(message=message, envelope=envelope, size=len(payload[0]))

    def close(self) -> None:
        """Unbind and close; removes the socket file of an ipc:// endpoint. Safe to call twice."""
        if self._socket.closed:
            return
        # Stopped explicitly, before either socket closes: ZeroMQ leaves the
        # monitor's sockets behind otherwise.
        self._socket.disable_monitor()
        self._monitor.close(0)
        self._socket.close()
        if self._zap is not None:
            self._zap.close()
        # ZeroMQ leaves the socket file of an ipc:// endpoint behind; a server
        # owns its endpoint, so it cleans up after itself.
        if self.endpoint.startswith("ipc://"):
            try:
                os.unlink(self.endpoint[len("ipc://") :])
            except OSError:
                pass

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
