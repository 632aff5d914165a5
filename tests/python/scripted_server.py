"""A server that answers the handshake of the static scene, then each request with the next scripted answer."""

from __future__ import annotations

import itertools
import threading

from coupler import _native
from coupler.wire.codec import encode
from coupler.wire.errors import TimeoutError
from coupler.wire.messages import Message
from coupler.scenes.static import StaticScene
from coupler.serve.server_info import with_server_info

_names = itertools.count()


class ScriptedServer:
    """Answers the handshake, then each request with the next of `answers`, keeping the requests' frames; at
    `address` (default: an inproc:// address of its own)."""

    def __init__(self, answers: list[Message], address: str | None = None) -> None:
        self.scene = StaticScene()
        self.requests: list[bytes] = []
        # A coupler server's handshake: the extensions are announced.
        self._answers = [encode(with_server_info(self.scene.handshake()))] + [encode(a) for a in answers]
        self._server = _native.Server(address or f"inproc://scripted-{next(_names)}")
        self.address: str = self._server.endpoint
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        for answer in self._answers:
            try:
                request = self._server.receive(5.0)
            except TimeoutError:
                return
            self.requests.append(request.frame)
            self._server.reply(request, answer)

    def close(self) -> None:
        self._thread.join(timeout=10)
        self._server.close()
