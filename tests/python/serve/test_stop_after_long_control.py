"""`--stop-after` cuts a Control of many steps at the limit: the server never runs far past it."""

from __future__ import annotations

import pytest

pytest.importorskip("mujoco")

from coupler.transport.client import Client  # noqa: E402
from coupler.wire.messages import ControlMessage, ErrorCode, ErrorMessage, HandshakeInitMessage, ObjectControl  # noqa: E402
from peers import coupler_server  # noqa: E402

ARM_STEP = 0.002


def test_a_control_of_many_steps_is_cut_at_stop_after_and_the_server_exits(tmp_path):
    address = f"ipc://{tmp_path / 's.sock'}"
    with coupler_server(address, "--scene", "arm", "--stop-after", "0.01") as process, \
            Client(address, timeout=10.0) as driver:
        driver.request(HandshakeInitMessage())
        answer = driver.request(ControlMessage(objects={"arm": ObjectControl([0.0] * 7)}, steps=100_000))
        assert process.wait(timeout=10.0) == 0
    assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.SESSION_ENDED, answer
    assert answer.text == ("server stopped after 5 of the 100000 steps this Control asked for: "
                           "--stop-after 0.01 s reached")
    assert "simulated time:        0.0100 s" in process.output()


def test_a_control_of_many_steps_on_the_hot_path_is_cut_at_stop_after_alike(tmp_path):
    address = f"ipc://{tmp_path / 's.sock'}"
    with coupler_server(address, "--scene", "arm", "--stop-after", "0.01") as process, \
            Client(address, timeout=10.0) as driver:
        driver.request(HandshakeInitMessage())
        driver.request(ControlMessage(objects={"arm": ObjectControl([0.0] * 7)}, steps=1))  # now the hot path drives
        answer = driver.request(ControlMessage(objects={"arm": ObjectControl([0.0] * 7)}, steps=100_000))
        assert process.wait(timeout=10.0) == 0
    assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.SESSION_ENDED, answer
    assert answer.text == ("server stopped after 4 of the 100000 steps this Control asked for: "
                           "--stop-after 0.01 s reached")
    assert "simulated time:        0.0100 s" in process.output()
