"""The servers an environment started itself: one that exited is said at once, not found by a timeout."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence

from coupler.serve.serve_process import DEFAULT_STOP_TIMEOUT, ServeProcess
from coupler.wire.errors import Error, TimeoutError


# Seconds a server started with --record gets to stop: it waits for its recording's writer, which runs at a lower
# priority, to write what is queued and finish the file; killed sooner, the queue would be lost.
RECORDING_STOP_TIMEOUT = 60.0


def stop_timeout(serve_flags: Sequence[str]) -> float:
    """How long a server started with `serve_flags` gets from SIGTERM to SIGKILL."""
    return RECORDING_STOP_TIMEOUT if "--record" in serve_flags else DEFAULT_STOP_TIMEOUT


def check_serving(processes: Iterable[ServeProcess]) -> None:
    """Error naming the exit code of the first of `processes` that has exited."""
    for process in processes:
        code = process.poll()
        if code is not None:
            raise Error(f"the environment's server exited (exit code {code}): close this environment and make a new "
                        "one")


@contextlib.contextmanager
def serving(processes: Iterable[ServeProcess]) -> Iterator[None]:
    """Around calls to `processes`: Error at once when one has exited, before the calls or when a call times out
    (a server that died while answering: its exit, not only a timeout, is said)."""
    processes = list(processes)
    check_serving(processes)
    try:
        yield
    except TimeoutError as timeout:
        try:
            check_serving(processes)
        except Error as exited:
            raise exited from timeout
        raise
