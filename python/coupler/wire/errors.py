"""Every failure coupler reports derives from coupler.Error."""

from __future__ import annotations

import builtins

from coupler.wire.messages import ErrorCode


class Error(Exception):
    """Base of all coupler errors."""


class ProtocolError(Error):
    """A frame that is not a valid message, or a message that breaks the protocol.

    `code` is the ErrorCode a server sends back for it.
    """

    def __init__(self, text: str, code: int = ErrorCode.MALFORMED_FRAME) -> None:
        super().__init__(text)
        self.code = code


class TimeoutError(Error, builtins.TimeoutError):
    """A blocking call whose peer did not answer in time."""


class ReconnectedError(TimeoutError):
    """A request that changes the simulation (a Control, a Reset) timed out, and the
    session re-established itself with a new handshake (the server had restarted, say).

    The request was not sent again, since the server may or may not have
    applied it. The session is usable: decide what to send next.
    """


class SceneChangedError(Error):
    """After a reconnect, the server's handshake describes another scene than the session was using."""


class RemoteError(Error):
    """The peer answered with an ErrorMessage: `text` as it sent it, the message showing it escaped and cut (it ends
    up in log lines)."""

    def __init__(self, code: int, text: str) -> None:
        # The C++ rule (coupler.wire.peer_text binds it), looked up when raised: the binding raises this class itself.
        from coupler._native import peer_text

        super().__init__(f"peer reported error {code}: {peer_text.shown(text)}")
        self.code = code
        self.text = text


class ExtensionNotSupportedError(Error):
    """A request that needs a coupler extension the server did not announce (a Click server announces none).

    Sent anyway, its meaning would silently change (a Click server steps once
    whatever `steps` says), so it is refused before it is sent.
    """

    def __init__(self, extension: str, what: str, server: str) -> None:
        super().__init__(f"{what} needs the coupler extension '{extension}', which {server} did not announce")
        self.extension = extension
