"""The answer to a HandshakeInit: the scene's handshake, and a place to drive for the one who asks."""

from __future__ import annotations

from coupler.serve.controller_admission import ControllerAdmission
from coupler.serve.server_info import with_server_info
from coupler.wire.messages import (
    PROTOCOL_VERSION,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    Message,
)


class HandshakeAnswer:
    """Answers HandshakeInits with `handshake`, admitting their peers to drive through `admission`.

    A lone controller that handshakes starts afresh; with several (`shared`),
    the others keep the simulation running.
    """

    def __init__(self, handshake: HandshakeMessage, admission: ControllerAdmission, shared: bool) -> None:
        # Built once: the handshake is constant for a run.
        self.handshake = with_server_info(handshake)
        self.admission = admission
        self.shared = shared

    def answer(self, message: HandshakeInitMessage, peer: bytes) -> Message:
        if message.version != PROTOCOL_VERSION:
            return ErrorMessage(
                code=ErrorCode.VERSION_NOT_SUPPORTED,
                text=f"protocol version {message.version} is not supported; this server speaks {PROTOCOL_VERSION}",
            )
        admission = self.admission
        admission.accept(admission.sessions.admit(peer, rejoin=True))
        admission.stats.handshakes += 1
        if not self.shared:
            admission.run.running = False
        return self.handshake
