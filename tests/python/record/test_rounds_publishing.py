"""Several controllers observed by their publisher (--publish, --record) keep the C++ hot path, which publishes
each round as the Python path does: both Controls as they arrive, then the state after the round's step and the
answer to each; and each read, answered in C++ too, with its answer."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import zmq

from coupler.record.frame_stream import END_TOPIC, FRAME_PREFIX, NO_TIME, SCENE_TOPIC, Streamed, parse, topic_of
from coupler.record.publisher import FramePublisher
from coupler.record.scene_record import scene_attachments, scene_metadata
from coupler.scenes import load_scene
from coupler.serve.frame_observer import observed
from coupler.serve.lockstep_loop import LockstepLoop
from coupler.serve.native_responder import NativeResponder
from coupler.serve.run_clock import LONGEST_HOLD, RunClock
from coupler.serve.simulation_server import SimulationServer
from coupler.transport.client import Client
from coupler.wire.codec import encode
from coupler.wire.messages import ControlMessage, HandshakeInitMessage, ObjectControl, SensorRequestMessage

ROUNDS = 20
CONTROL, STATE, SENSOR = "/coupler/requests/Control", "/coupler/mujoco_state", "/coupler/answers/Sensor"
READ = "/coupler/requests/SensorRequest"


def streamed_until_end(socket: zmq.Socket, timeout: float = 30.0) -> list[list[bytes]]:
    """The frame messages `socket` receives until the stream's end."""
    received = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if socket.poll(100):
            parts = socket.recv_multipart()
            if topic_of(parts) == END_TOPIC:
                return received
            received.append(parts)
    raise AssertionError("no end message")


@dataclass
class PublishedRounds:
    """What a run of ROUNDS rounds of two controllers, each followed by a read of a third peer, published."""

    streamed: list[Streamed]  # every frame message but the scene's
    answers: list[ControlMessage]  # each round's answer
    reads: list[bytes]  # the reader's answers, one after each round
    hot_path: Any
    time_step: float


def published_rounds(make_address, hot_path: bool, rounds: int = ROUNDS, time_step: float | None = None,
                     clock: RunClock | None = None) -> PublishedRounds:
    simulation = load_scene("two_arms", time_step)
    sim = SimulationServer(simulation, controllers=2)
    publisher = FramePublisher(scene_metadata(simulation, "two_arms"), scene_attachments(simulation))
    socket = zmq.Context.instance().socket(zmq.SUB)
    socket.linger = 0
    socket.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
    socket.connect(publisher.bind(make_address("ipc")))
    stop = threading.Event()
    answers, reads = [], []
    try:
        assert publisher.wait_for_subscribers(1, 10.0)
        with NativeResponder(make_address("ipc"), sim) as responder:
            loop = LockstepLoop(observed(responder, publisher), clock, hot_path=hot_path)
            thread = threading.Thread(target=loop.run, args=(stop, 0.05))
            thread.start()
            try:
                with (Client(responder.endpoint, timeout=5.0) as left, Client(responder.endpoint, timeout=5.0) as right,
                      Client(responder.endpoint, timeout=5.0) as reader):
                    left.request(HandshakeInitMessage())
                    right.request(HandshakeInitMessage())
                    for _ in range(rounds):
                        left.send(ControlMessage(objects={"left_arm": ObjectControl(values=[0.2] * 7)}))
                        right.send(ControlMessage(objects={"right_arm": ObjectControl(values=[-0.2] * 7)}))
                        answers.append(left.receive())
                        assert right.receive() == answers[-1]
                        reads.append(encode(reader.request(SensorRequestMessage())))
            finally:
                stop.set()
                thread.join(timeout=10)
        publisher.send_end()
        received = streamed_until_end(socket)
    finally:
        publisher.close()
        socket.close()
    streamed = [parse(parts) for parts in received if topic_of(parts) != SCENE_TOPIC]
    return PublishedRounds(streamed, answers, reads, loop.hot_path, sim.handshake.time_step)


def test_each_round_of_two_controllers_is_published_controls_first_then_its_state_and_answers(make_address):
    published = published_rounds(make_address, hot_path=True)
    assert published.hot_path is not None and published.hot_path.controls >= 2 * (ROUNDS - 2)
    rounds = [s for s in published.streamed if s.topic in (CONTROL, STATE, SENSOR, READ)]
    assert len(rounds) == 7 * ROUNDS
    for k, answer in enumerate(published.answers):
        group = rounds[7 * k:7 * k + 5]
        assert [s.topic for s in group] == [CONTROL, CONTROL, STATE, SENSOR, SENSOR]
        assert group[2].simulated_ns == group[3].simulated_ns == round((k + 1) * published.time_step * 1e9)
        assert group[3].payload == group[4].payload == encode(answer)


def test_a_read_after_each_round_is_answered_in_cpp_and_published_with_its_answer(make_address):
    published = published_rounds(make_address, hot_path=True)
    assert published.hot_path is not None and published.hot_path.reads >= ROUNDS - 2
    rounds = [s for s in published.streamed if s.topic in (CONTROL, STATE, SENSOR, READ)]
    for k, (answer, read) in enumerate(zip(published.answers, published.reads)):
        request, reply = rounds[7 * k + 5:7 * k + 7]
        assert (request.topic, request.payload) == (READ, encode(SensorRequestMessage()))
        # A read takes no step: its answer, the round's state, carries no simulated time.
        assert (reply.topic, reply.simulated_ns, reply.payload) == (SENSOR, NO_TIME, read)
        assert read == encode(answer)


def in_one_order(streamed: list[Streamed]) -> list[tuple]:
    """`streamed` without its wall times, the Controls of each round in one order (the controllers send them at
    once: they arrive in either)."""
    messages = [(s.topic, s.sequence, s.topic_sequence, s.simulated_ns, s.payload) for s in streamed]
    k = 0
    while k < len(messages):
        end = k
        while end < len(messages) and messages[end][0] == CONTROL:
            end += 1
        payloads = sorted(message[4] for message in messages[k:end])
        messages[k:end] = [message[:4] + (payload,) for message, payload in zip(messages[k:end], payloads)]
        k = max(end, k + 1)
    return messages


def test_rounds_and_reads_are_published_on_the_hot_path_as_on_the_python_path(make_address):
    hot = published_rounds(make_address, hot_path=True)
    plain = published_rounds(make_address, hot_path=False)
    assert hot.hot_path is not None and hot.hot_path.reads > 0 and plain.hot_path is None
    assert in_one_order(hot.streamed) == in_one_order(plain.streamed)


def test_paced_rounds_whose_answers_are_held_are_published_on_the_hot_path_as_on_the_python_path(make_address):
    time_step = 2 * LONGEST_HOLD  # each round's answers wait longer than an answer is held without serving others
    hot = published_rounds(make_address, True, rounds=3, time_step=time_step, clock=RunClock(1.0))
    plain = published_rounds(make_address, False, rounds=3, time_step=time_step, clock=RunClock(1.0))
    # Every round is held and answered in C++, the first (whose Controls claim the robots, decided in Python) too.
    assert hot.hot_path is not None and hot.hot_path.controls == 6 and plain.hot_path is None
    assert in_one_order(hot.streamed) == in_one_order(plain.streamed)
