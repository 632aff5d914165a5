"""A server observed only by its publisher (--publish, --record) keeps the C++ hot path, which publishes every
request and its answer in turn with the states stepped to, and a recording that replays identical."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

import numpy as np
import pytest
import zmq

from coupler.record.publisher import FramePublisher
from coupler.record.recording_process import RecordingProcess
from coupler.record.scene_record import scene_attachments, scene_metadata
from coupler.scenes import load_scene
from coupler.serve.frame_observer import observed
from coupler.serve.lockstep_loop import LockstepLoop
from coupler.serve.native_responder import NativeResponder
from coupler.serve.run_clock import RunClock
from coupler.serve.simulation_server import SimulationServer
from coupler.wire.codec import encode
from coupler.wire.messages import (
    ControlMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    ObjectControl,
    SensorRequestMessage,
)
from frame_subscriber import assert_streams_exchanges, compared, follow, until_end
from peers import run


class PublishedServer:
    """A lockstep server of `scene` in a thread, observed by a FramePublisher."""

    def __init__(self, scene: str, address: str, time_step: float | None = None,
                 clock: RunClock | None = None) -> None:
        simulation = load_scene(scene, time_step)
        self.sim = SimulationServer(simulation)
        self.publisher = FramePublisher(scene_metadata(simulation, scene), scene_attachments(simulation))
        self.responder = NativeResponder(address, self.sim)
        self.loop = LockstepLoop(observed(self.responder, self.publisher), clock)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self.loop.run, args=(self._stop, 0.05))

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self.responder.close()
        assert not self._thread.is_alive()


def random_controls(handshake: HandshakeMessage, count: int, seed: int) -> list[bytes]:
    """Controls of the driven objects with random values (some beyond their range), events and steps."""
    rng = np.random.default_rng(seed)
    driven = {name: d for name, d in handshake.objects.items() if d.controls}
    frames = []
    for _ in range(count):
        objects = {name: ObjectControl([float(v) for v in rng.uniform(-3.0, 3.0, len(d.controls))],
                                       {event: bool(rng.integers(2)) for event in d.control_events})
                   for name, d in driven.items() if rng.random() < 0.8}
        frames.append(encode(ControlMessage(objects, int(rng.choice([0, 1, 1, 3, 10])))))
    return frames


READ = encode(SensorRequestMessage())


def drive(address: str, frames: list[bytes], reads: int = 0,
          exchanged: list[tuple[bytes, bytes]] | None = None) -> None:
    """A controller: the handshake, then each frame, waiting for each answer; after each of its answers, a reader
    (a peer of its own, which never shakes hands) reads `reads` times. Each request and its answer, in turn, are
    appended to `exchanged`."""
    exchanged = [] if exchanged is None else exchanged
    context = zmq.Context.instance()
    with context.socket(zmq.REQ) as socket, context.socket(zmq.REQ) as reader:
        for peer in (socket, reader):
            peer.linger = 0
            peer.rcvtimeo = 10_000
            peer.connect(address)
        for frame in [encode(HandshakeInitMessage()), *frames]:
            socket.send(frame)
            exchanged.append((frame, socket.recv()))
            for _ in range(reads):
                reader.send(READ)
                exchanged.append((READ, reader.recv()))


def published(server: PublishedServer, publish_on: str, run: Callable[[str], None]) -> list:
    """Every frame message a subscriber receives while `run` drives `server` at the address it is given, all
    header fields but the wall clock."""
    socket, received = follow(server.publisher.bind(publish_on))
    try:
        assert server.publisher.wait_for_subscribers(1, 10.0)
        server.start()
        run(server.responder.endpoint)
        server.stop()
        server.publisher.send_end()
        until_end(socket, received)
    finally:
        server.publisher.close()
        socket.close()
    return compared(received)


def stream_of(scene: str, address: str, publish_on: str, frames: list[bytes], reads: int = 0,
              time_step: float | None = None, clock: RunClock | None = None) -> tuple[list, list, int, int]:
    """Every frame message a subscriber receives from a run of `frames` (and `reads` of another peer after each),
    all header fields but the wall clock; every request and its answer; and the Controls and the reads the hot
    path answered."""
    server = PublishedServer(scene, address, time_step, clock)
    exchanged: list[tuple[bytes, bytes]] = []
    stream = published(server, publish_on, lambda endpoint: drive(endpoint, frames, reads, exchanged))
    return stream, exchanged, server.loop.hot_path.controls, server.loop.hot_path.reads


def states_in(stream: list) -> int:
    return sum(1 for message in stream if message[0] == "/coupler/mujoco_state")


@pytest.mark.parametrize("scene", ["arm", "static"])
def test_a_publisher_on_the_hot_path_streams_every_random_control_and_its_answer_in_turn(scene, make_address):
    handshake = SimulationServer(load_scene(scene, None)).handshake
    frames = random_controls(handshake, 200, seed=14)
    stream, exchanged, served, _ = stream_of(scene, make_address("ipc"), make_address("ipc"), frames)
    assert served > 100  # the first clamp of each value takes the Python path
    assert_streams_exchanges(stream, exchanged)
    if scene == "arm":
        assert states_in(stream) == len(frames)


def test_reads_of_the_controller_and_of_another_peer_are_published_in_turn_with_their_answers(make_address):
    frames = [frame for _ in range(20) for frame in (encode(ControlMessage({"arm": ObjectControl([0.2] * 7)})), READ)]
    stream, exchanged, served, read = stream_of("arm", make_address("ipc"), make_address("ipc"), frames, reads=1)
    reads = 20 + len(frames) + 1  # the controller's, and the other peer's after each answer of the controller
    # Every Control, the first (which starts the simulation) too, and every read are answered in C++.
    assert served == 20
    assert read == reads
    assert sum(1 for message in stream if message[0] == "/coupler/requests/SensorRequest") == reads
    assert_streams_exchanges(stream, exchanged)


def test_long_controls_taken_in_chunks_on_the_hot_path_are_published_once_each_with_their_state(make_address):
    # Controls of many steps between plain ones: each stepped in chunks, its state and answer published once.
    frames = [encode(ControlMessage({"arm": ObjectControl([0.2] * 7)}, steps)) for steps in (1, 101, 1, 350, 1)]
    stream, exchanged, served, _ = stream_of("arm", make_address("ipc"), make_address("ipc"), frames)
    assert served == len(frames)  # the first, which starts the simulation, too
    assert_streams_exchanges(stream, exchanged)
    assert states_in(stream) == len(frames)


def test_paced_long_controls_held_on_the_hot_path_are_published_once_each_with_their_state(make_address):
    # 120 steps of 1 ms: taken in chunks, then held longer than an answer is held without serving others.
    frames = [encode(ControlMessage({"arm": ObjectControl([0.2] * 7)}, steps)) for steps in (1, 120, 1)]
    stream, exchanged, served, _ = stream_of("arm", make_address("ipc"), make_address("ipc"), frames,
                                             time_step=0.001, clock=RunClock(1.0))
    assert served == len(frames)
    assert_streams_exchanges(stream, exchanged)
    assert states_in(stream) == len(frames)


def test_paced_answers_held_on_the_hot_path_while_others_read_are_published_after_those_reads(make_address):
    # A real-time server of the arm with a 0.1 s step: each answer waits 0.1 s, longer than an answer is held
    # without serving others.
    server = PublishedServer("arm", make_address("ipc"), time_step=0.1, clock=RunClock(1.0))
    control = encode(ControlMessage({"arm": ObjectControl([-1.0] * 7)}))
    answers = []

    def run(endpoint: str) -> None:
        context = zmq.Context.instance()
        with context.socket(zmq.REQ) as driver, context.socket(zmq.REQ) as reader:
            for peer in (driver, reader):
                peer.linger = 0
                peer.rcvtimeo = 10_000
                peer.connect(endpoint)
            driver.send(encode(HandshakeInitMessage()))
            driver.recv()
            driver.send(control)
            time.sleep(0.01)  # the Control is taken; its answer waits until 0.1 s after its step
            reader.send(READ)
            answers.append(reader.recv())
            answers.append(driver.recv())

    stream = published(server, make_address("ipc"), run)
    assert server.loop.hot_path.reads == 1
    # The Control and the state after its step, then the read answered while its answer waits, then that answer.
    assert [(topic, payload) for topic, _, _, _, payload in stream[-5:] if topic != "/coupler/mujoco_state"] == [
        ("/coupler/requests/Control", control), ("/coupler/requests/SensorRequest", READ),
        ("/coupler/answers/Sensor", answers[0]), ("/coupler/answers/Sensor", answers[1])]
    assert stream[-4][0] == "/coupler/mujoco_state"


def test_a_recording_made_on_the_hot_path_replays_identical(make_address, tmp_path):
    server = PublishedServer("arm", make_address("ipc"))
    recording = RecordingProcess(tmp_path / "run.mcap", server.publisher)
    frames = random_controls(SimulationServer(load_scene("arm", None)).handshake, 300, seed=7)
    try:
        server.start()
        recording.started()
        drive(server.responder.endpoint, frames)
        server.stop()
        assert recording.close(timeout=60) == 0
    finally:
        server.publisher.close()
    assert server.loop.hot_path is not None and server.loop.hot_path.controls > 200
    result = run([sys.executable, "-m", "coupler.cli", "replay", str(tmp_path / "run.mcap"), "--scene", "recorded"])
    assert result.returncode == 0 and "identical, " in result.stdout, result.stdout


def test_a_newcomers_control_that_admits_it_is_published_by_the_hot_path_with_its_answer(make_address):
    # A controller that never shakes hands: Python admits it on its first Control, which C++ serves and publishes.
    frames = [encode(ControlMessage({"arm": ObjectControl([0.05 * k] * 7)})) for k in range(5)]
    exchanged = []

    def newcomer(endpoint: str) -> None:
        with zmq.Context.instance().socket(zmq.REQ) as socket:
            socket.linger = 0
            socket.rcvtimeo = 10_000
            socket.connect(endpoint)
            for frame in frames:
                socket.send(frame)
                exchanged.append((frame, socket.recv()))

    server = PublishedServer("arm", make_address("ipc"))
    stream = published(server, make_address("ipc"), newcomer)
    assert server.loop.hot_path.controls == len(frames)  # its first Control too
    assert_streams_exchanges(stream, exchanged)
    assert states_in(stream) == len(frames)
