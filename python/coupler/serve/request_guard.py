"""Every request is answered: a refusal or a failure while handling it becomes the ErrorMessage to send."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from coupler.serve.held import Admitted
from coupler.serve.rate_limited_log import RateLimitedLog
from coupler.serve.server_stats import ServerStats
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import ErrorCode, ErrorMessage

T = TypeVar("T")


def internal_error(error: BaseException | str, what: str = "internal error") -> ErrorMessage:
    """The answer to a request whose handling failed with `error`, saying `what` failed: the error's first line only,
    for the server's own stack or a long explanation has no place in a peer's answer (the log has the whole of it)."""
    lines = str(error).strip().splitlines()
    return ErrorMessage(code=ErrorCode.INTERNAL_ERROR, text=f"{what}: {lines[0] if lines else type(error).__name__}")


class RequestGuard:
    """Runs a request's handling, counting it in `stats` and logging refusals to `peer_log`."""

    def __init__(self, stats: ServerStats, peer_log: RateLimitedLog) -> None:
        self.stats = stats
        self.peer_log = peer_log

    def answer(self, kind: str, handle: Callable[[], T]) -> T | ErrorMessage:
        """Run `handle`, a request of `kind`; a refusal or a failure becomes the ErrorMessage to send.

        A Control `handle` only admits (ADMITTED) is counted where it is served, by the hot path.
        """
        try:
            answer: T | ErrorMessage = handle()
        except ProtocolError as error:
            if error.code == ErrorCode.SERVER_BUSY:
                # Normal operation, not a fault: a waiting controller may ask many times. Counted for the summary.
                self.peer_log.info("refused %s: %s", kind, error)
                self.stats.refused_busy += 1
            else:
                self.peer_log.warning("refused %s: %s", kind, error)
            answer = ErrorMessage(code=error.code, text=str(error))
        except Exception as error:  # a failing simulation must not take the server down
            self.peer_log.logger.exception("internal error while handling %s", kind)
            answer = internal_error(error)
        if isinstance(answer, Admitted):
            return answer
        self.stats.requests += 1
        if isinstance(answer, ErrorMessage):
            self.stats.errors_sent += 1
        return answer
