"""Every failure coupler reports derives from coupler.Error."""

from __future__ import annotations

import builtins

from coupler.messages import ErrorCode


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


class RemoteError(Error):
    """The peer answered with an ErrorMessage."""

    def __init__(self, code: int, text: str) -> None:
        super().__init__(f"peer reported error {code}: {text}")
        self.code = code
        self.text = text
