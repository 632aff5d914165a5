"""A loopback TCP relay for transport tests: forwards bytes between clients
and a server, records everything that passes, and can go silent (stop
forwarding while keeping every connection open), as a dead peer or a
broken network path would."""

from __future__ import annotations

import selectors
import socket
import threading


class TcpRelay:
    """Listens on a free loopback port (`address`) and forwards each connection to `target` (tcp://host:port)."""

    def __init__(self, target: str) -> None:
        host, _, port = target.removeprefix("tcp://").rpartition(":")
        self._target = (host, int(port))
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"tcp://127.0.0.1:{self._listener.getsockname()[1]}"
        self._recorded = bytearray()
        self._lock = threading.Lock()
        self._forwarding = True
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tcp-relay", daemon=True)
        self._thread.start()

    def recorded(self) -> bytes:
        """Every byte that came in from either side so far."""
        with self._lock:
            return bytes(self._recorded)

    def go_silent(self) -> None:
        """Stop forwarding in both directions; connections stay open and bytes are swallowed."""
        self._forwarding = False

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def __enter__(self) -> TcpRelay:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _run(self) -> None:
        selector = selectors.DefaultSelector()
        selector.register(self._listener, selectors.EVENT_READ)
        peers: dict[socket.socket, socket.socket] = {}
        try:
            while not self._stop.is_set():
                for key, _ in selector.select(timeout=0.05):
                    conn = key.fileobj
                    if conn is self._listener:
                        client, _ = self._listener.accept()
                        server = socket.create_connection(self._target)
                        peers[client], peers[server] = server, client
                        selector.register(client, selectors.EVENT_READ)
                        selector.register(server, selectors.EVENT_READ)
                        continue
                    assert isinstance(conn, socket.socket)
                    try:
                        data = conn.recv(65536)
                    except OSError:
                        data = b""
                    other = peers.get(conn)
                    if not data or other is None:
                        for end in (conn, other):
                            if end is not None and end in peers:
                                selector.unregister(end)
                                del peers[end]
                                end.close()
                        continue
                    with self._lock:
                        self._recorded += data
                    if self._forwarding:
                        try:
                            other.sendall(data)
                        except OSError:
                            pass
        finally:
            for conn in list(peers):
                conn.close()
            self._listener.close()
            selector.close()
