"""The publisher: every subscriber gets every frame in order with the scene; a stuck subscriber loses
messages, counted, without holding anyone up; CURVE admits only the allowed keys."""

import threading
import time

import numpy as np
import zmq

from coupler._proto import coupler_pb2, coupler_record_pb2
from coupler.record.frame_stream import END_TOPIC, FRAME_PREFIX, SCENE_TOPIC, parse, parse_end, parse_scene, topic_of
from coupler.record.publisher import FramePublisher
from coupler.record.stream_recorder import StopWhen, StreamRecorder
from coupler.transport.options import TransportOptions

SENSOR = coupler_pb2.SensorMessage(messageType=coupler_pb2.SensorMessageType).SerializeToString()
CONTROL = coupler_pb2.ControlMessage(messageType=coupler_pb2.ControlMessageType).SerializeToString()
SCENE = ({"coupler.scene": {"scene": "test"}}, {"model.xml": ("application/xml", b"<mujoco/>")})


class FakeData:
    def __init__(self, t: float) -> None:
        self.time = t
        self.qpos = np.arange(3.0) + t
        self.qvel = np.zeros(3)
        self.act = np.zeros(0)
        self.ctrl = np.ones(2)
        self.mocap_pos = np.zeros((0, 3))  # a model without mocap bodies
        self.mocap_quat = np.zeros((0, 4))


class FakeSimulation:
    def __init__(self, t: float) -> None:
        self.data = FakeData(t)


def _subscriber(context: zmq.Context, endpoint: str, **curve: bytes) -> zmq.Socket:
    socket = context.socket(zmq.SUB)
    socket.linger = 0
    for name, value in curve.items():
        setattr(socket, name, value)
    socket.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
    socket.connect(endpoint)
    return socket


def _publish_steps(publisher: FramePublisher, steps: int) -> None:
    for step in range(1, steps + 1):
        publisher.on_request(CONTROL, b"peer", time.time())
        publisher.on_step(FakeSimulation(step * 0.002), step, time.time())
        publisher.on_answer(SENSOR, b"peer", time.time(), step * 0.002)


def _receive(socket: zmq.Socket, count: int, timeout: float = 10.0) -> list[list[bytes]]:
    received = []
    deadline = time.monotonic() + timeout
    while len(received) < count and time.monotonic() < deadline:
        if socket.poll(100):
            received.append(socket.recv_multipart())
    return received


def _receive_until_end(socket: zmq.Socket, timeout: float) -> list[list[bytes]]:
    received = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if socket.poll(100):
            parts = socket.recv_multipart()
            if topic_of(parts) == END_TOPIC:
                break
            received.append(parts)
    return received


def test_every_subscriber_gets_the_scene_then_every_frame_and_state_in_order(tmp_path):
    publisher = FramePublisher(*SCENE)
    endpoint = publisher.bind(f"ipc://{tmp_path}/pub")
    context = zmq.Context()
    subscribers = [_subscriber(context, endpoint) for _ in range(2)]
    try:
        assert publisher.wait_for_subscribers(2, 10.0)
        _publish_steps(publisher, 100)
        publisher.send_end()
        for socket in subscribers:
            received = _receive_until_end(socket, timeout=10.0)
            scenes = [parts for parts in received if topic_of(parts) == SCENE_TOPIC]
            assert parse_scene(scenes[0]) == SCENE
            frames = [parse(parts) for parts in received if topic_of(parts) != SCENE_TOPIC]
            assert [f.sequence for f in frames] == list(range(300))
            assert [f.topic for f in frames[:3]] == ["/coupler/requests/Control", "/coupler/mujoco_state",
                                                      "/coupler/answers/Sensor"]
            state = coupler_record_pb2.MujocoState.FromString(frames[-2].payload)
            assert state.step == 100 and list(state.qpos) == [0.2, 1.2, 2.2]
            assert frames[-1].simulated_ns == 200_000_000 and frames[-1].topic_sequence == 99
    finally:
        for socket in subscribers:
            socket.close()
        publisher.close()
        context.term()


def test_a_stuck_subscriber_loses_messages_counted_while_the_publisher_and_a_live_subscriber_go_on(tmp_path):
    publisher = FramePublisher(*SCENE)
    stuck = StreamRecorder(publisher.bind(f"ipc://{tmp_path}/small", hwm=10), tmp_path / "stuck.mcap", rcvhwm=10)
    context = zmq.Context()
    live = _subscriber(context, publisher.bind(f"ipc://{tmp_path}/deep", hwm=100_000))
    received: list[list[bytes]] = []
    reader = threading.Thread(target=lambda: received.extend(_receive_until_end(live, timeout=60.0)))
    try:
        assert publisher.wait_for_subscribers(2, 10.0)
        reader.start()
        _publish_steps(publisher, 10_000)  # the stuck recorder reads nothing meanwhile
        publisher.send_end()
        reader.join(60.0)
        follower = threading.Thread(target=stuck.run, args=(StopWhen(duration=20.0),))
        follower.start()
        while follower.is_alive():  # the end may itself be lost while the stuck one is full: sent until it arrives
            publisher.send_end()
            follower.join(0.1)
        counts = stuck.counts
    finally:
        stuck.close()
        live.close()
        publisher.close()
        context.term()
    frames = [parse(parts) for parts in received if topic_of(parts) != SCENE_TOPIC]
    assert [f.sequence for f in frames] == list(range(30_000))  # the live one lost nothing
    assert counts.ended and counts.lost > 0  # a publisher that waited for the stuck one would have lost nothing
    assert counts.written + counts.lost == 30_000


def test_with_curve_only_an_allowed_subscriber_receives_and_it_is_encrypted(tmp_path):
    server_public, server_secret = zmq.curve_keypair()
    allowed_public, allowed_secret = zmq.curve_keypair()
    other_public, other_secret = zmq.curve_keypair()
    publisher = FramePublisher(*SCENE)
    endpoint = publisher.bind("tcp://127.0.0.1:*", transport=TransportOptions(
        curve_key_pair=(server_public, server_secret), curve_allowed_clients=(allowed_public,)))
    context = zmq.Context()
    allowed = _subscriber(context, endpoint, curve_serverkey=server_public, curve_publickey=allowed_public,
                          curve_secretkey=allowed_secret)
    other = _subscriber(context, endpoint, curve_serverkey=server_public, curve_publickey=other_public,
                        curve_secretkey=other_secret)
    try:
        assert publisher.wait_for_subscribers(1, 10.0)
        time.sleep(0.5)  # time for the refused one to have tried
        _publish_steps(publisher, 10)
        assert len([p for p in _receive(allowed, 31) if topic_of(p) != SCENE_TOPIC]) == 30
        assert _receive(other, 1, timeout=1.0) == []
        assert publisher.subscriptions == 1
    finally:
        allowed.close()
        other.close()
        publisher.close()
        context.term()


def test_the_end_message_carries_how_many_frames_were_sent(tmp_path):
    publisher = FramePublisher(*SCENE)
    context = zmq.Context()
    subscriber = _subscriber(context, publisher.bind(f"ipc://{tmp_path}/pub"))
    try:
        assert publisher.wait_for_subscribers(1, 10.0)
        _publish_steps(publisher, 7)
        publisher.close()
        ends = [parts for parts in _receive(subscriber, 23) if topic_of(parts) == END_TOPIC]
        assert [parse_end(parts) for parts in ends] == [21]
    finally:
        subscriber.close()
        publisher.close()
        context.term()
