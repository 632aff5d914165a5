"""A lone controller's round trips through the server's shared channel (the "shm" extension's channel).

One `coupler serve --scene static` on an ipc:// address serves every test of
the module, each test leaving it free for the next controller.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from coupler import _native
from coupler.controller.controls import Controls
from coupler.scenes import load_scene
from coupler.serve.run_clock import RunClock
from coupler.transport.client import Client
from coupler.wire.codec import decode, encode
from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    ImageRequest,
    ObjectControl,
    ResetMessage,
    SensorMessage,
    SensorRequestMessage,
)
from peers import coupler_server, democlient, run
from served_loop import Served

STEPS = 20
TIMEOUT = 5.0


@pytest.fixture(scope="module")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    address = f"ipc://{tmp_path_factory.mktemp('channel') / 'coupler.sock'}"
    with coupler_server(address, "--scene", "static"):
        yield address


def _goodbye(client: Client) -> None:
    client.send(ErrorMessage(code=ErrorCode.SESSION_ENDED, text="done"))


def _controls(handshake: HandshakeMessage, k: int) -> bytes:
    controls = Controls(handshake)
    for name in handshake.objects:
        try:
            values = controls[name]
        except Exception:
            continue  # an object without controls
        values[:] = 0.1 * np.sin(0.3 * k + np.arange(len(values)))
    return controls.frame()


def _answers(address: str, channel: bool) -> list[bytes]:
    """The answers to a Reset then STEPS Controls (the first through the socket, the rest through the channel when
    `channel`), and a read."""
    with Client(address, timeout=TIMEOUT) as client:
        handshake = client.request(HandshakeInitMessage(shared_channel=channel))
        assert isinstance(handshake, HandshakeMessage)
        assert bool(handshake.shared_channel) == channel
        assert isinstance(client.request(ResetMessage()), ResetMessage)
        client.send_frame(_controls(handshake, 0))
        answers = [client.receive_frame()]
        through = _native.SharedChannelClient(handshake.shared_channel) if channel else None
        for k in range(1, STEPS):
            frame = _controls(handshake, k)
            if through is not None:
                answers.append(through.exchange(frame, TIMEOUT))
            else:
                client.send_frame(frame)
                answers.append(client.receive_frame())
        read = encode(SensorRequestMessage())
        if through is not None:
            answers.append(through.exchange(read, TIMEOUT))
        else:
            client.send_frame(read)
            answers.append(client.receive_frame())
        _goodbye(client)
    return answers


def test_answers_through_the_channel_are_the_socket_answers_byte_for_byte(address: str) -> None:
    through_channel = _answers(address, channel=True)
    through_socket = _answers(address, channel=False)
    assert all(isinstance(decode(a), SensorMessage) for a in through_channel)
    assert through_channel == through_socket


def test_a_reader_is_served_while_a_controller_holds_the_channel(address: str) -> None:
    with Client(address, timeout=TIMEOUT) as controller:
        handshake = controller.request(HandshakeInitMessage(shared_channel=True))
        controller.send_frame(_controls(handshake, 0))
        controller.receive_frame()
        through = _native.SharedChannelClient(handshake.shared_channel)
        stepped = through.exchange(_controls(handshake, 1), TIMEOUT)
        with Client(address, timeout=TIMEOUT) as reader:
            started = time.monotonic()
            reader.send_frame(encode(SensorRequestMessage()))
            read = reader.receive_frame()
            waited = time.monotonic() - started
        assert read == stepped  # the state the controller's last Control left
        assert waited < 0.5
        assert isinstance(decode(through.exchange(_controls(handshake, 2), TIMEOUT)), SensorMessage)
        _goodbye(controller)


def test_a_request_only_the_socket_path_serves_is_handed_back_empty_through_the_channel(address: str) -> None:
    with Client(address, timeout=TIMEOUT) as controller:
        handshake = controller.request(HandshakeInitMessage(shared_channel=True))
        controller.send_frame(_controls(handshake, 0))
        controller.receive_frame()
        through = _native.SharedChannelClient(handshake.shared_channel)
        assert through.exchange(encode(ResetMessage()), TIMEOUT) == b""
        assert isinstance(decode(through.exchange(_controls(handshake, 1), TIMEOUT)), SensorMessage)
        _goodbye(controller)


def test_a_read_asking_for_images_is_answered_through_the_channel(address: str) -> None:
    with Client(address, timeout=TIMEOUT) as controller:
        handshake = controller.request(HandshakeInitMessage(shared_channel=True))
        controller.send_frame(_controls(handshake, 0))
        controller.receive_frame()
        through = _native.SharedChannelClient(handshake.shared_channel)
        # The static scene serves no cameras: the answer is its one-line refusal, through the channel all the same.
        with_images = encode(SensorRequestMessage(images=[ImageRequest(camera="overview", kinds=["rgb"])]))
        refused = decode(through.exchange(with_images, TIMEOUT))
        assert isinstance(refused, ErrorMessage) and "images" in refused.text
        assert isinstance(decode(through.exchange(_controls(handshake, 1), TIMEOUT)), SensorMessage)
        _goodbye(controller)


def test_a_control_of_many_steps_is_handed_back_empty_through_the_channel_and_taken_through_the_socket(
        address: str) -> None:
    with Client(address, timeout=TIMEOUT) as controller:
        handshake = controller.request(HandshakeInitMessage(shared_channel=True))
        controller.send_frame(_controls(handshake, 0))
        first = decode(controller.receive_frame())
        started = first.simulated_time
        through = _native.SharedChannelClient(handshake.shared_channel)
        long = encode(ControlMessage(objects={"arm": ObjectControl([0.1] * 7)}, steps=300))
        assert through.exchange(long, TIMEOUT) == b""  # nothing applied or stepped: sent again through the socket
        assert controller.request(SensorRequestMessage()) == first
        controller.send_frame(long)
        answer = decode(controller.receive_frame())
        assert answer.simulated_time == pytest.approx(started + 300 * handshake.time_step)
        _goodbye(controller)


def test_a_second_controller_cannot_lease_a_leased_channel(address: str) -> None:
    with Client(address, timeout=TIMEOUT) as first, Client(address, timeout=TIMEOUT) as second:
        assert first.request(HandshakeInitMessage(shared_channel=True)).shared_channel
        refused = second.request(HandshakeInitMessage(shared_channel=True))
        assert isinstance(refused, ErrorMessage)
        assert "shared channel is leased to another controller" in refused.text
        _goodbye(first)


def test_the_lease_ends_when_its_democlient_is_killed(address: str, tmp_path: Path) -> None:
    with Client(address, timeout=TIMEOUT) as reader:
        before = reader.request(SensorRequestMessage()).simulated_time
        holder = subprocess.Popen([str(democlient()), "--addr", address, "--shared-channel", "--range", "100000000"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10.0
        # The holder drives once it has started and connected: the simulated time moves on.
        while reader.request(SensorRequestMessage()).simulated_time == before and time.monotonic() < deadline:
            time.sleep(0.05)
    try:
        refused = run([str(democlient()), "--addr", address, "--shared-channel", "--range", "5"], timeout=30)
        assert refused.returncode != 0 and "leased to another controller" in refused.stdout
    finally:
        holder.kill()
        holder.wait(timeout=10)
    deadline = time.monotonic() + 5.0
    while True:
        after = run([str(democlient()), "--addr", address, "--shared-channel", "--range", "200", "--timings"],
                    timeout=30)
        if after.returncode == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert after.returncode == 0, after.stdout
    assert "controls sent: 201" in after.stdout


def test_paced_a_control_whose_answer_waits_long_is_handed_back_empty_through_the_channel(make_address) -> None:
    # Real time with a 0.1 s step: each answer waits longer than the channel may hold it, while others wait too.
    with Served(load_scene("static", 0.1), make_address("ipc"), clock=RunClock(1.0)) as served, \
            Client(served.responder.endpoint, timeout=TIMEOUT) as controller:
        handshake = controller.request(HandshakeInitMessage(shared_channel=True))
        assert handshake.shared_channel
        controller.send_frame(_controls(handshake, 0))
        first = decode(controller.receive_frame())
        through = _native.SharedChannelClient(handshake.shared_channel)
        assert through.exchange(_controls(handshake, 1), TIMEOUT) == b""  # sent again through the socket
        controller.send_frame(_controls(handshake, 1))
        answer = decode(controller.receive_frame())
    assert answer.simulated_time == pytest.approx(first.simulated_time + 0.1)
    assert served.loop.hot_path.controls == 2


def test_images_too_large_for_the_channel_are_refused_there_in_one_line_saying_whether_the_control_was_applied(
        make_address) -> None:
    address = make_address("ipc")
    overview = [ImageRequest(camera="overview", kinds=["rgb"])]  # 320 x 240 x 3 bytes: over the channel's frames
    with coupler_server(address, "--scene", "arm"), Client(address, timeout=TIMEOUT) as controller:
        handshake = controller.request(HandshakeInitMessage(shared_channel=True))
        controller.send_frame(_controls(handshake, 0))
        first = decode(controller.receive_frame())
        through = _native.SharedChannelClient(handshake.shared_channel)
        read = decode(through.exchange(encode(SensorRequestMessage(images=overview)), TIMEOUT))
        control = ControlMessage(objects={"arm": ObjectControl([0.0] * 7)}, images=overview)
        stepped = decode(through.exchange(encode(control), TIMEOUT))
        after = decode(through.exchange(_controls(handshake, 1), TIMEOUT))
        _goodbye(controller)
    assert isinstance(read, ErrorMessage) and read.code == ErrorCode.INTERNAL_ERROR
    assert read.text.startswith("a reply of ") and "over the shared channel's 65536-byte frames" in read.text
    assert "through the shared memory ring" in read.text and "\n" not in read.text
    assert isinstance(stepped, ErrorMessage) and stepped.text.startswith("the Control was applied, but a reply of ")
    # The refused answer's Control stepped all the same: the next Control is the third step.
    assert isinstance(after, SensorMessage)
    assert after.simulated_time == pytest.approx(first.simulated_time + 2 * handshake.time_step)


def test_a_holder_whose_session_lapsed_frees_the_channel_for_the_next_controller(make_address) -> None:
    address = make_address("ipc")
    with coupler_server(address, "--scene", "static", "--session-timeout", "0.3"), \
            Client(address, timeout=TIMEOUT) as first, Client(address, timeout=TIMEOUT) as second:
        held = first.request(HandshakeInitMessage(shared_channel=True))
        first.send_frame(_controls(held, 0))
        assert isinstance(decode(first.receive_frame()), SensorMessage)
        time.sleep(0.6)  # the first controller sends nothing more: its session lapses, its connection stays open
        handshake = second.request(HandshakeInitMessage(shared_channel=True))
        assert isinstance(handshake, HandshakeMessage) and handshake.shared_channel
        second.send_frame(_controls(handshake, 0))
        assert isinstance(decode(second.receive_frame()), SensorMessage)
        through = _native.SharedChannelClient(handshake.shared_channel)
        assert isinstance(decode(through.exchange(_controls(handshake, 1), TIMEOUT)), SensorMessage)
        _goodbye(second)
