"""An environment's own server that exits is said at once, with its exit code: before a call, or when a call
times out because the server died while answering it."""

from __future__ import annotations

import pytest

from coupler.gym.own_servers import RECORDING_STOP_TIMEOUT, serving, stop_timeout
from coupler.serve.serve_process import DEFAULT_STOP_TIMEOUT
from coupler.wire.errors import Error, TimeoutError


class Process:
    """A server process as `serving` sees one: its exit code once it has exited."""

    def __init__(self, exit_code: int | None = None) -> None:
        self.exit_code = exit_code

    def poll(self) -> int | None:
        return self.exit_code


def test_a_server_that_exited_before_a_call_is_said_with_its_exit_code():
    with pytest.raises(Error, match=r"the environment's server exited \(exit code -9\)"):
        with serving([Process(), Process(-9)]):
            pytest.fail("the call must not run")


def test_a_call_that_times_out_because_its_server_died_says_the_server_exited():
    process = Process()
    with pytest.raises(Error, match=r"exited \(exit code 1\): close this environment") as raised:
        with serving([process]):
            process.exit_code = 1  # died while answering
            raise TimeoutError("no answer within 2 s")
    assert isinstance(raised.value.__cause__, TimeoutError)


def test_a_call_that_times_out_while_its_server_runs_is_a_timeout():
    with pytest.raises(TimeoutError, match="no answer"):
        with serving([Process()]):
            raise TimeoutError("no answer within 2 s")


def test_a_recording_server_gets_longer_to_stop():
    assert stop_timeout(["--record", "run.mcap"]) == RECORDING_STOP_TIMEOUT > DEFAULT_STOP_TIMEOUT
    assert stop_timeout(["--scene", "arm"]) == DEFAULT_STOP_TIMEOUT
