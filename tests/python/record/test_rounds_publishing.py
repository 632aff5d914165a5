"""Several controllers observed by their publisher (--publish, --record) keep the C++ hot path, which publishes
each round as the Python path does: both Controls as they arrive, then the state after the round's step and the
answer to each."""

from __future__ import annotations

import threading
import time

import zmq

from coupler.record.frame_stream import END_TOPIC, FRAME_PREFIX, SCENE_TOPIC, parse, topic_of
from coupler.record.publisher import FramePublisher
from coupler.record.scene_record import scene_attachments, scene_metadata
from coupler.scenes import load_scene
from coupler.serve.frame_observer import observed
from coupler.serve.lockstep_loop import LockstepLoop
from coupler.serve.native_responder import NativeResponder
from coupler.serve.simulation_server import SimulationServer
from coupler.transport.client import Client
from coupler.wire.codec import encode
from coupler.wire.messages import ControlMessage, HandshakeInitMessage, ObjectControl

ROUNDS = 20
CONTROL, STATE, SENSOR = "/coupler/requests/Control", "/coupler/mujoco_state", "/coupler/answers/Sensor"


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


def test_each_round_of_two_controllers_is_published_controls_first_then_its_state_and_answers(make_address):
    simulation = load_scene("two_arms", None)
    sim = SimulationServer(simulation, controllers=2)
    publisher = FramePublisher(scene_metadata(simulation, "two_arms"), scene_attachments(simulation))
    socket = zmq.Context.instance().socket(zmq.SUB)
    socket.linger = 0
    socket.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
    socket.connect(publisher.bind(make_address("ipc")))
    stop = threading.Event()
    answers = []
    try:
        assert publisher.wait_for_subscribers(1, 10.0)
        with NativeResponder(make_address("ipc"), sim) as responder:
            loop = LockstepLoop(observed(responder, publisher))
            thread = threading.Thread(target=loop.run, args=(stop, 0.05))
            thread.start()
            try:
                with Client(responder.endpoint, timeout=5.0) as left, Client(responder.endpoint, timeout=5.0) as right:
                    left.request(HandshakeInitMessage())
                    right.request(HandshakeInitMessage())
                    for _ in range(ROUNDS):
                        left.send(ControlMessage(objects={"left_arm": ObjectControl(values=[0.2] * 7)}))
                        right.send(ControlMessage(objects={"right_arm": ObjectControl(values=[-0.2] * 7)}))
                        answers.append(left.receive())
                        assert right.receive() == answers[-1]
            finally:
                stop.set()
                thread.join(timeout=10)
        publisher.send_end()
        received = streamed_until_end(socket)
    finally:
        publisher.close()
        socket.close()
    assert loop.hot_path is not None and loop.hot_path.controls >= 2 * (ROUNDS - 2)
    streamed = [parse(parts) for parts in received if topic_of(parts) != SCENE_TOPIC]
    rounds = [s for s in streamed if s.topic in (CONTROL, STATE, SENSOR)]
    assert len(rounds) == 5 * ROUNDS
    dt = sim.handshake.time_step
    for k, answer in enumerate(answers):
        group = rounds[5 * k:5 * k + 5]
        assert [s.topic for s in group] == [CONTROL, CONTROL, STATE, SENSOR, SENSOR]
        assert group[2].simulated_ns == group[3].simulated_ns == round((k + 1) * dt * 1e9)
        assert group[3].payload == group[4].payload == encode(answer)
