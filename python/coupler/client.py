"""A controller's connection to a simulation server."""

from __future__ import annotations

import zmq

from coupler.codec import decode, encode
from coupler.errors import Error, ProtocolError, TimeoutError
from coupler.messages import Message


class Client:
    """Connects to a server's REP or ROUTER socket over tcp://, ipc:// or inproc://.

    Strictly in turn: send one message, then receive its answer. A request
    that timed out does not wedge the client: the next `send` starts a new
    request and a late answer to the old one is discarded.

    `timeout` (seconds, default 5.0) bounds every receive that is not given
    its own. `linger` (seconds, default 0.2) is how long closing waits to
    deliver messages still queued, such as a goodbye. Pass a `context` to
    reach inproc:// endpoints of that context; by default the process-wide
    one is used.

        with Client("tcp://127.0.0.1:5555") as client:
            answer = client.request(HandshakeInitMessage())
    """

    def __init__(
        self, address: str, timeout: float = 5.0, linger: float = 0.2, context: zmq.Context | None = None
    ) -> None:
        self.address = address
        self.timeout = timeout
        self._socket = (context or zmq.Context.instance()).socket(zmq.REQ)
        self._socket.linger = int(linger * 1000)
        self._socket.setsockopt(zmq.REQ_RELAXED, 1)
        self._socket.setsockopt(zmq.REQ_CORRELATE, 1)
        self._socket.sndtimeo = int(timeout * 1000)
        self._poller = zmq.Poller()
        self._poller.register(self._socket, zmq.POLLIN)
        try:
            self._socket.connect(address)
        except zmq.ZMQError as error:
            self._socket.close(0)
            raise Error(f"connecting to {address}: {error}") from None

    def send(self, message: Message) -> None:
        self.send_frame(encode(message))

    def send_frame(self, frame: bytes) -> None:
        """Send a raw frame, for tools that replay captured traffic."""
        try:
            self._socket.send(frame, copy=len(frame) < 65536)
        except zmq.Again:
            raise TimeoutError(f"could not send to {self.address} within {self.timeout} s") from None
        except zmq.ZMQError as error:
            raise Error(f"sending to {self.address}: {error}") from None

    def wait(self, timeout: float) -> bool:
        """Block until an answer is ready to read or `timeout` seconds pass; True when ready."""
        return bool(self._poller.poll(max(0, int(timeout * 1000))))

    def receive(self, timeout: float | None = None) -> Message:
        """Block up to `timeout` seconds (default: the client's) for the answer.

        Raises TimeoutError when nothing came, ProtocolError when the answer
        is not a valid message.
        """
        wait = self.timeout if timeout is None else timeout
        if not self.wait(wait):
            raise TimeoutError(f"no answer from {self.address} within {wait} s")
        return self._read()

    def try_receive(self) -> Message | None:
        """Non-blocking: the answer, or None when it has not arrived yet."""
        return self._read() if self.wait(0) else None

    def request(self, message: Message, timeout: float | None = None) -> Message:
        """send() then receive()."""
        self.send(message)
        return self.receive(timeout)

    def _read(self) -> Message:
        try:
            frames = self._socket.recv_multipart(copy=True)
        except zmq.ZMQError as error:
            raise Error(f"receiving from {self.address}: {error}") from None
        if len(frames) != 1:
            raise ProtocolError(f"answer from {self.address} has {len(frames)} frames; the protocol sends one")
        return decode(frames[0])

    def close(self) -> None:
        self._socket.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
