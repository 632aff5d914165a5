"""A controller's connection to a simulation server."""

from __future__ import annotations

import math
import time

import zmq

from coupler import limits
from coupler.wire.codec import decode, encode
from coupler.wire.errors import Error, ProtocolError, TimeoutError
from coupler.wire.messages import Message
from coupler.transport.liveness import set_liveness
from coupler.transport.options import (
    DEFAULT_HEARTBEAT,
    DEFAULT_HEARTBEAT_TIMEOUT,
    DEFAULT_MAX_FRAME_BYTES,
    DEFAULT_TIMEOUT,
)

__all__ = ["Client"]


class Client:
    """Connects a REQ socket to a server's REP or ROUTER socket over tcp://, ipc:// or inproc://.

    Strictly in turn: send one message, then receive its answer. A request
    that timed out does not wedge the client: the next `send` starts a new
    request and a late answer to the old one is discarded.

    `timeout` (seconds, default 5.0) bounds every send and every receive not
    given a timeout of its own. `linger` (seconds, default 0.2) is how long
    closing waits to deliver messages still queued, such as a goodbye; it
    bounds how long `close` can take. Pass a `context` to reach inproc://
    endpoints bound in that context; by default the process-wide one is used.

    `heartbeat` (seconds, default 1.0; 0 turns it off) sends ZMTP PINGs on a
    quiet tcp:// or ipc:// connection, which is dropped when nothing comes
    back within `heartbeat_timeout` (default 3.0): a dead server is noticed
    while nobody sends. Frames over `max_frame_bytes` (default 1 MiB; 0: no
    limit) are never read: ZeroMQ drops the connection and the request times
    out. With `curve_server_key` (the server's Z85 public key) and
    `curve_key_pair` (this client's Z85 public and secret keys; see
    coupler.transport.curve_keys), the connection is CurveZMQ-encrypted and
    authenticated.

    An ErrorMessage from the server is an ordinary answer: `receive` and
    `request` return it.

        with Client("tcp://127.0.0.1:5555") as client:
            answer = client.request(HandshakeInitMessage())
    """

    def __init__(
        self,
        address: str,
        timeout: float = DEFAULT_TIMEOUT,
        linger: float = 0.2,
        context: zmq.Context | None = None,
        heartbeat: float = DEFAULT_HEARTBEAT,
        heartbeat_timeout: float = DEFAULT_HEARTBEAT_TIMEOUT,
        max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES,
        curve_server_key: bytes | None = None,
        curve_key_pair: tuple[bytes, bytes] | None = None,
    ) -> None:
        if (curve_server_key is None) != (curve_key_pair is None):
            raise Error("CURVE needs both the server's public key and this client's key pair")
        self.address = address
        self.timeout = timeout
        self._linger = linger
        self._context = context or zmq.Context.instance()
        self._liveness = (heartbeat, heartbeat_timeout, max_frame_bytes)
        self._curve = (curve_server_key, curve_key_pair)
        self._open()

    def _open(self) -> None:
        self._socket = self._context.socket(zmq.REQ)
        self._socket.linger = int(self._linger * 1000)
        # RELAXED lets a request that timed out be followed by a new one;
        # CORRELATE makes the socket drop the old request's late answer.
        self._socket.setsockopt(zmq.REQ_RELAXED, 1)
        self._socket.setsockopt(zmq.REQ_CORRELATE, 1)
        self._socket.sndtimeo = int(self.timeout * 1000)
        self._receive_timeout_ms: int | None = None  # the socket's RCVTIMEO, set by the first blocking receive
        self._poller = zmq.Poller()
        self._poller.register(self._socket, zmq.POLLIN)
        try:
            set_liveness(self._socket, *self._liveness)
            server_key, key_pair = self._curve
            if server_key is not None and key_pair is not None:
                self._socket.curve_serverkey = server_key
                self._socket.curve_publickey, self._socket.curve_secretkey = key_pair
            if "[" in self.address:  # an IPv6 host ([::1]) resolves only on a socket with IPV6 set
                self._socket.ipv6 = True
            self._socket.connect(self.address)
        except zmq.ZMQError as error:
            self._socket.close(0)
            raise Error(f"connecting to {self.address}: {error}") from None
        except Error:
            self._socket.close(0)
            raise

    def reconnect(self) -> None:
        """Close the socket, dropping whatever was queued or under way, and open a
        fresh one to the same address with the same options: after a server
        restart, or to abandon a request for good."""
        self._socket.close(0)
        self._open()

    @property
    def mechanism(self) -> str:
        """The socket's security mechanism: "CURVE" or "NULL"."""
        return {zmq.CURVE: "CURVE", zmq.NULL: "NULL"}.get(self._socket.getsockopt(zmq.MECHANISM), "other")

    def send(self, message: Message) -> None:
        """Send a request. Raises TimeoutError when it cannot be queued within the client's timeout."""
        self.send_frame(encode(message))

    def send_frame(self, frame: bytes) -> None:
        """Send a raw frame, for tools that replay captured traffic."""
        try:
            # Copying small frames is cheaper than zero-copy's bookkeeping.
            self._socket.send(frame, copy=len(frame) < 65536)
        except zmq.Again:
            raise TimeoutError(f"could not send to {self.address} within {self.timeout} s") from None
        except zmq.ZMQError as error:
            raise self._failed("sending to", error) from None

    def wait(self, timeout: float) -> bool:
        """Block until something is ready to read or `timeout` seconds pass; True when ready.

        A late answer to an abandoned request also wakes it; `try_receive`
        then drops that answer and returns None.
        """
        # ZeroMQ's poll keeps time with a coarse clock and can wake a fraction of
        # a millisecond early: waiting again for what is left keeps the promise
        # that a wait never ends before its timeout, so callers need no retry loop.
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                ready = self._poller.poll(max(0, math.ceil(remaining * 1000)))
            except zmq.ZMQError as error:
                raise self._failed("waiting for", error) from None
            if ready or remaining <= 0:
                return bool(ready)

    def receive(self, timeout: float | None = None) -> Message:
        """Block up to `timeout` seconds (default: the client's) for the answer.

        Raises TimeoutError when nothing came, ProtocolError when the answer
        is not a valid message.
        """
        return decode(self.receive_frame(timeout))

    def receive_frame(self, timeout: float | None = None) -> bytes:
        """receive(), handing back the answer's frame undecoded.

        Raises TimeoutError when nothing came, ProtocolError when the answer
        is not one frame.
        """
        wait = self.timeout if timeout is None else timeout
        # One blocking recv rather than a poll and a recv: a poll costs as much again per round trip. libzmq
        # bounds the whole call by RCVTIMEO, and with REQ_CORRELATE drops a stale answer inside it and waits
        # on. Rounding up: a receive never gives up before its timeout.
        milliseconds = max(0, math.ceil(wait * 1000))
        if milliseconds != self._receive_timeout_ms:
            self._socket.rcvtimeo = milliseconds
            self._receive_timeout_ms = milliseconds
        try:
            frame = self._socket.recv()
        except zmq.Again:
            raise TimeoutError(f"no answer from {self.address} within {wait} s") from None
        except zmq.ZMQError as error:
            raise self._failed("receiving from", error) from None
        return self._only_frame(frame)

    def _only_frame(self, frame: bytes) -> bytes:
        if self._socket.get(zmq.RCVMORE):
            # The rest of the message is there already; read it, so the next answer starts clean.
            rest = self._socket.recv_multipart(zmq.NOBLOCK)
            raise ProtocolError(f"answer from {self.address} has {1 + len(rest)} frames; the protocol sends one")
        return frame

    def try_receive(self) -> Message | None:
        """Non-blocking: the answer, or None when it has not arrived yet.

        Raises ProtocolError when the answer is not a valid message.
        """
        frame = self.try_receive_frame()
        return None if frame is None else decode(frame)

    def try_receive_frame(self) -> bytes | None:
        """try_receive(), handing back the answer's frame undecoded.

        Raises ProtocolError when the answer is not one frame.
        """
        try:
            # Never blocking: the socket may have had only a stale answer,
            # which it drops, leaving nothing to read.
            frame = self._socket.recv(zmq.NOBLOCK)
        except zmq.Again:
            return None
        except zmq.ZMQError as error:
            raise self._failed("receiving from", error) from None
        return self._only_frame(frame)

    def request(self, message: Message, timeout: float | None = None) -> Message:
        """send() then receive(timeout): the answer, an ErrorMessage included."""
        self.send(message)
        return self.receive(timeout)

    @property
    def max_frame_bytes(self) -> int:
        """The largest frame this client reads (0: no limit); a larger one drops the connection."""
        return self._liveness[2]

    def _failed(self, doing: str, error: zmq.ZMQError) -> Error:
        """The Error for a ZeroMQ failure while `doing` ("sending to"): a closed client says so, not ENOTSOCK."""
        if self._socket.closed:
            return Error(f"the client of {self.address} is closed: open a new one")
        return Error(f"{doing} {self.address}: {error}")

    def close(self) -> None:
        """Disconnect, waiting at most `linger` for queued messages. Safe to call twice."""
        self._socket.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
