"""The ZeroMQ authentication (ZAP) handler of a context: decides which CURVE
clients a pyzmq server accepts.

One handler per zmq.Context serves every CURVE server socket of that
context; each server registers its own ZAP domain with its allow-list, so
several servers with different allow-lists can share a process.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterable

import zmq
import zmq.utils.z85

from coupler.wire.errors import Error

log = logging.getLogger(__name__)

_ZAP_ENDPOINT = "inproc://zeromq.zap.01"
# A refused client retries every reconnect interval; one line a minute says enough.
_REPEAT_LOG_AFTER = 60.0

_lock = threading.Lock()
_handlers: dict[int, _ZapHandler] = {}
_domains = itertools.count()


class _Domain:
    def __init__(self, allowed: set[bytes], report: Callable[[str], None]) -> None:
        self.allowed = allowed  # binary public keys
        self.report = report
        self.last_logged: dict[tuple[str, bytes], float] = {}


class _ZapHandler:
    """A REP socket on inproc://zeromq.zap.01 answered by a thread of its own."""

    def __init__(self, context: zmq.Context) -> None:
        self.context = context
        self.users = 0
        self.domains: dict[str, _Domain] = {}
        self._domains_lock = threading.Lock()
        self._socket = context.socket(zmq.REP)
        self._socket.linger = 0
        self._stop_receiver = context.socket(zmq.PAIR)
        self._stop_sender = context.socket(zmq.PAIR)
        stop_address = f"inproc://coupler-zap-stop-{id(self)}"
        try:
            self._socket.bind(_ZAP_ENDPOINT)
            self._stop_receiver.bind(stop_address)
            self._stop_sender.connect(stop_address)
        except zmq.ZMQError as error:
            self._close_sockets()
            raise Error(f"starting the ZAP handler: {error}") from None
        self._thread = threading.Thread(target=self._serve, name="coupler-zap", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop_sender.send(b"stop")
        self._thread.join()
        self._close_sockets()

    def _close_sockets(self) -> None:
        for socket in (self._socket, self._stop_receiver, self._stop_sender):
            socket.close(0)

    def _serve(self) -> None:
        poller = zmq.Poller()
        poller.register(self._socket, zmq.POLLIN)
        poller.register(self._stop_receiver, zmq.POLLIN)
        try:
            while True:
                ready = dict(poller.poll())
                if self._stop_receiver in ready:
                    return
                if self._socket in ready:
                    self._answer_one()
        except zmq.ContextTerminated:
            return

    def _answer_one(self) -> None:
        # ZAP request frames (RFC 27): version, request id, domain, address,
        # routing id, mechanism, credentials (for CURVE: the client's public key).
        frames = self._socket.recv_multipart()
        # A REP socket must answer whatever came; a short request finds no domain and is refused.
        frames += [b""] * (7 - len(frames))
        version, request_id, domain_name, address, _routing_id, mechanism, key = frames[:7]
        accepted = False
        report: Callable[[str], None] | None = None
        refusal = ""
        with self._domains_lock:
            domain = self.domains.get(domain_name.decode(errors="replace"))
            if domain is not None:
                accepted = mechanism == b"CURVE" and key in domain.allowed
                if not accepted:
                    shown_key = zmq.utils.z85.encode(key).decode() if len(key) == 32 else "(not a 32-byte key)"
                    refusal = (f"refused {mechanism.decode(errors='replace')} client at "
                               f"{address.decode(errors='replace')} with public key {shown_key}: not in the allow-list")
                    now = time.monotonic()
                    seen = (address.decode(errors="replace"), key)
                    last = domain.last_logged.get(seen)
                    if last is None or now - last >= _REPEAT_LOG_AFTER:
                        domain.last_logged[seen] = now
                        report = domain.report
                    if len(domain.last_logged) > 1024:  # bounded against key-spraying peers
                        domain.last_logged.clear()
        if report is not None:
            try:
                report(refusal)
            except Exception:
                # A failing logger must not stop authentication: every later client would hang in its handshake.
                log.exception("reporting a refused client failed")
        status, text = (b"200", b"OK") if accepted else (b"400", b"client key not allowed")
        self._socket.send_multipart([version, request_id, status, text, b"", b""])


class ZapRegistration:
    """While open, CURVE handshakes on a server socket whose ZAP domain is
    `domain` are accepted only from clients whose Z85 public key is in
    `allowed_keys`; each refused client (address and key) is passed to
    `report`, from the handler's thread, at most once a minute for the same
    address and key. The first registration in a context starts its handler,
    the last to close stops it.
    """

    def __init__(self, context: zmq.Context, allowed_keys: Iterable[bytes], report: Callable[[str], None]) -> None:
        allowed = set()
        for key in allowed_keys:
            if len(key) != 40:
                raise Error(f"{key!r} is not a 40-character Z85 CURVE public key")
            allowed.add(zmq.utils.z85.decode(key))
        self.domain = f"coupler-{next(_domains)}"
        with _lock:
            handler = _handlers.get(id(context))
            if handler is None:
                handler = _handlers[id(context)] = _ZapHandler(context)
            handler.users += 1
        with handler._domains_lock:
            handler.domains[self.domain] = _Domain(allowed, report)
        self._handler: _ZapHandler | None = handler

    def close(self) -> None:
        """Unregister; the last registration of a context stops its handler. Safe to call twice."""
        handler, self._handler = self._handler, None
        if handler is None:
            return
        with handler._domains_lock:
            handler.domains.pop(self.domain, None)
        with _lock:
            handler.users -= 1
            if handler.users == 0:
                del _handlers[id(handler.context)]
                handler.stop()
