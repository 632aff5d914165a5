"""The servers an environment started itself: one that exited is said at once, not found by a timeout."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

from coupler.serve.serve_process import ServeProcess
from coupler.wire.errors import Error, TimeoutError


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
