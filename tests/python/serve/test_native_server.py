"""coupler._native's Server and Client, and the native responder a served scene uses."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import zmq

from coupler import _native
from coupler.transport.client import Client
from coupler.wire.codec import decode, encode
from coupler.wire.errors import Error, ProtocolError, TimeoutError
from coupler.serve.native_responder import NativeResponder
from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    MessageType,
    ObjectControl,
    ResetMessage,
    SensorRequestMessage,
)
from coupler.serve.simulation_server import SimulationServer
from coupler.scenes.static import StaticScene
from failing_stepper import BrokenScene
from peers import coupler_server


@pytest.fixture
def problems() -> list[str]:
    """What the server reported through on_bad_frame."""
    return []


@pytest.fixture
def server(make_address: Callable[[str], str], problems: list[str]):
    with _native.Server(make_address("ipc"), on_bad_frame=problems.append) as server:
        yield server


def test_a_request_is_answered_with_the_frame_given(server):
    with Client(server.endpoint, timeout=2.0) as client:
        client.send(HandshakeInitMessage())
        request = server.receive(2.0)
        assert request.type == MessageType.HANDSHAKE_INIT
        assert (decode(request.frame), request.size) == (HandshakeInitMessage(), 2)
        server.reply(request, encode(HandshakeMessage(time_step=0.5)))
        assert client.receive().time_step == 0.5


def test_receive_times_out_with_coupler_timeout_error_and_try_receive_returns_none(server):
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        server.receive(0.05)
    assert time.monotonic() - started >= 0.05
    assert server.try_receive() is None


def test_receive_releases_the_gil_while_it_waits(server):
    received = []
    waiting = threading.Thread(target=lambda: received.append(server.receive(5.0)))
    waiting.start()
    # This thread gets to send only if the waiting one let go of the GIL.
    time.sleep(0.1)
    with Client(server.endpoint, timeout=2.0) as client:
        client.send(SensorRequestMessage())
        waiting.join(timeout=2.0)
    assert received and received[0].type == MessageType.SENSOR_REQUEST


def test_a_bad_frame_is_answered_counted_and_reported_and_never_returned(server, problems):
    peer = zmq.Context.instance().socket(zmq.REQ)
    peer.linger = 0
    peer.connect(server.endpoint)
    try:
        peer.send(b"\xde\xad\xbe\xef")
        with pytest.raises(TimeoutError):  # answered while waiting, never returned
            server.receive(0.2)
        assert peer.poll(2000)
        answer = decode(peer.recv())
    finally:
        peer.close()
    assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.MALFORMED_FRAME
    assert server.bad_frames == 1
    assert problems == [answer.text]


def test_close_removes_the_ipc_socket_file_and_ends_the_server(make_address):
    server = _native.Server(make_address("ipc"))
    path = Path(server.endpoint.removeprefix("ipc://"))
    assert path.exists()
    server.close()
    server.close()
    assert not path.exists()
    with pytest.raises(Error, match="closed"):
        server.receive(0.0)


def test_binding_an_address_in_use_raises_coupler_error(make_address):
    with _native.Server(make_address("tcp")) as first:
        with pytest.raises(Error, match="binding"):
            _native.Server(first.endpoint)


def test_reading_a_request_that_holds_no_control_is_refused(server):
    layout = _native.ControlLayout(encode(HandshakeMessage()))
    with Client(server.endpoint, timeout=2.0) as client:
        client.send(ResetMessage())
        with pytest.raises(ProtocolError) as refused:
            layout.read(server.receive(2.0))
    assert refused.value.code == ErrorCode.UNEXPECTED_MESSAGE


def test_a_simulation_failing_on_the_native_fast_path_is_answered_with_an_internal_error(make_address):
    sim = SimulationServer(BrokenScene())
    with NativeResponder(make_address("ipc"), sim) as responder, Client(responder.endpoint, timeout=2.0) as client:
        for _ in range(2):
            client.send(ControlMessage(objects={"arm": ObjectControl([0.0] * 7)}))
            request = responder.receive(2.0)
            responder.send(request, responder.respond(request))
            answer = client.receive()
            assert isinstance(answer, ErrorMessage)
            assert answer.code == ErrorCode.INTERNAL_ERROR and "the motor is on fire" in answer.text
    assert (sim.stats.requests, sim.stats.errors_sent) == (2, 2)


def test_a_stepper_written_in_python_that_raises_is_answered_in_one_line_without_the_servers_stack(make_address):
    sim = SimulationServer(BrokenScene())
    with NativeResponder(make_address("ipc"), sim) as responder, Client(responder.endpoint, timeout=2.0) as client:
        client.send(ControlMessage(objects={"arm": ObjectControl([0.0] * 7)}))
        request = responder.receive(2.0)
        responder.send(request, responder.respond(request))
        answer = client.receive()
    assert answer.text == "internal error: RuntimeError: the motor is on fire"


def test_the_native_path_needs_a_simulation_with_arrays(make_address):
    class MessagesOnly:
        def handshake(self) -> HandshakeMessage:
            return HandshakeMessage()

    with pytest.raises(TypeError, match="ArraySimulation"):
        NativeResponder(make_address("ipc"), SimulationServer(MessagesOnly()))


def test_a_responder_polled_without_waiting_gives_the_request_that_waits_or_none(make_address):
    with NativeResponder(make_address("ipc"), SimulationServer(StaticScene())) as responder, \
            Client(responder.endpoint, timeout=2.0) as client:
        assert responder.receive(0.0) is None
        client.send(SensorRequestMessage())
        deadline = time.monotonic() + 2.0
        request = None
        while request is None and time.monotonic() < deadline:
            request = responder.receive(0.0)
            time.sleep(0.001)  # the frame crosses the socket on ZeroMQ's own thread
        assert request is not None and request.type == MessageType.SENSOR_REQUEST
        assert responder.receive(0.0) is None


def test_a_responder_waiting_in_vain_gives_none_once_its_timeout_has_passed(make_address):
    with NativeResponder(make_address("ipc"), SimulationServer(StaticScene())) as responder:
        started = time.monotonic()
        assert responder.receive(0.05) is None
        assert time.monotonic() - started >= 0.05


def test_a_negative_wait_for_a_request_is_refused_in_one_line(make_address):
    with NativeResponder(make_address("ipc"), SimulationServer(StaticScene())) as responder:
        with pytest.raises(ValueError, match="^a timeout is a number of seconds, 0 or more$"):
            responder.server.try_receive(-1.0)


def _cpu_seconds(pid: int) -> float:
    """CPU time of the process's threads to the nanosecond (schedstat), not in 10 ms clock ticks: a short
    window then judges the server, not the tick a stray wake-up happened to land on."""
    tasks = Path(f"/proc/{pid}/task")
    return sum(int((task / "schedstat").read_text().split()[0]) for task in tasks.iterdir()) / 1e9


@pytest.mark.skipif(not Path("/proc/self/schedstat").exists(), reason="reads CPU time from /proc")
def test_an_idle_native_server_uses_under_one_percent_of_a_cpu(tmp_path):
    with coupler_server(f"ipc://{tmp_path / 'idle.sock'}", "--scene", "static") as server:
        time.sleep(1.0)  # past start-up
        # The least of three windows: a server that polls uses its share in every one, while a window of this busy
        # machine may catch a stray piece of work.
        used = []
        for _ in range(3):
            before, started = _cpu_seconds(server.pid), time.monotonic()
            time.sleep(0.5)
            used.append((_cpu_seconds(server.pid) - before) / (time.monotonic() - started))
    assert min(used) < 0.01, used


def test_with_trace_every_request_and_answer_is_logged_and_a_control_is_served_the_same(make_address, caplog):
    caplog.set_level(logging.INFO, logger="coupler.serve.native_responder")
    control = ControlMessage(objects={"arm": ObjectControl([0.1] * 7)})
    answers = []
    for trace in (False, True):
        sim = SimulationServer(StaticScene())
        sim.trace = trace
        with NativeResponder(make_address("ipc"), sim) as responder, Client(responder.endpoint, timeout=2.0) as client:
            for message in (HandshakeInitMessage(), control):
                client.send(message)
                request = responder.receive(2.0)
                responder.send(request, responder.respond(request))
                answers.append(client.receive())
    assert answers[:2] == answers[2:]
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith(("received", "answered"))]
    assert logged[0] == "received HandshakeInitMessage(version=1, shared_channel=False)"
    assert logged[1].startswith("answered HandshakeMessage(")
    assert logged[2] == f"received {control!r}"
    assert logged[3] == f"answered {answers[-1]!r}"
