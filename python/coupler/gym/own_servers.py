"""The servers an environment started itself: one that exited is said at once, not found by a timeout."""

from __future__ import annotations

from collections.abc import Iterable

from coupler.serve.serve_process import ServeProcess
from coupler.wire.errors import Error


def check_serving(processes: Iterable[ServeProcess]) -> None:
    """Error naming the exit code of the first of `processes` that has exited."""
    for process in processes:
        code = process.poll()
        if code is not None:
            raise Error(f"the environment's server exited (exit code {code}): close this environment and make a new "
                        "one")
