"""Several controllers observed by their publisher (--publish, --record) keep the C++ hot path, which publishes
each round: both Controls as they arrive, then the state after the round's step and the
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


def published_rounds(make_address, rounds: int = ROUNDS, time_step: float | None = None,
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
            loop = LockstepLoop(observed(responder, publisher), clock)
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


def assert_published_in_rounds(published: PublishedRounds) -> None:
    """Each round published as its two Controls, then its state and both answers, then the read after it with its
    answer; every message numbered in turn, in the stream and in its topic."""
    rounds = [s for s in published.streamed if s.topic in (CONTROL, STATE, SENSOR, READ)]
    assert len(rounds) == 7 * len(published.answers)
    for k, (answer, read) in enumerate(zip(published.answers, published.reads, strict=True)):
        group = rounds[7 * k:7 * k + 5]
        assert [s.topic for s in group] == [CONTROL, CONTROL, STATE, SENSOR, SENSOR]
        assert group[2].simulated_ns == group[3].simulated_ns == round((k + 1) * published.time_step * 1e9)
        assert group[3].payload == group[4].payload == encode(answer)
        request, reply = rounds[7 * k + 5:7 * k + 7]
        assert (request.topic, request.payload) == (READ, encode(SensorRequestMessage()))
        # A read takes no step: its answer, the round's state, carries no simulated time.
        assert (reply.topic, reply.simulated_ns, reply.payload) == (SENSOR, NO_TIME, read)
        assert read == encode(answer)
    sequences = [s.sequence for s in published.streamed]
    assert sequences == list(range(sequences[0], sequences[0] + len(sequences)))
    for topic in {s.topic for s in published.streamed}:
        numbered = [s.topic_sequence for s in published.streamed if s.topic == topic]
        assert numbered == list(range(numbered[0], numbered[0] + len(numbered))), topic


def test_each_round_of_two_controllers_and_the_read_after_it_are_published_in_order_answered_in_cpp(make_address):
    published = published_rounds(make_address)
    assert published.hot_path is not None and published.hot_path.controls >= 2 * (ROUNDS - 2)
    assert published.hot_path.reads >= ROUNDS - 2
    assert_published_in_rounds(published)


def test_paced_rounds_whose_answers_are_held_are_published_in_order_answered_in_cpp(make_address):
    time_step = 2 * LONGEST_HOLD  # each round's answers wait longer than an answer is held without serving others
    published = published_rounds(make_address, rounds=3, time_step=time_step, clock=RunClock(1.0))
    # Every round is held and answered in C++, the first (whose Controls claim the robots, decided in Python) too.
    assert published.hot_path is not None and published.hot_path.controls == 6
    assert_published_in_rounds(published)
