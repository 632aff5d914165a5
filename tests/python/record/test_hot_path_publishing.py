"""A server observed only by its publisher (--publish, --record) keeps the C++ hot path, which publishes what the
Python path would: the same stream, header times of the wall clock aside, and a recording that replays identical."""

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
from frame_subscriber import compared, follow, until_end
from peers import run


class PublishedServer:
    """A lockstep server of `scene` in a thread, observed by a FramePublisher, through the hot path or not."""

    def __init__(self, scene: str, address: str, hot_path: bool, time_step: float | None = None,
                 clock: RunClock | None = None) -> None:
        simulation = load_scene(scene, time_step)
        self.sim = SimulationServer(simulation)
        self.publisher = FramePublisher(scene_metadata(simulation, scene), scene_attachments(simulation))
        self.responder = NativeResponder(address, self.sim)
        self.loop = LockstepLoop(observed(self.responder, self.publisher), clock, hot_path=hot_path)
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


def drive(address: str, frames: list[bytes], reads: int = 0) -> None:
    """A controller: the handshake, then each frame, waiting for each answer; after each of its answers, a reader
    (a peer of its own, which never shakes hands) reads `reads` times."""
    context = zmq.Context.instance()
    with context.socket(zmq.REQ) as socket, context.socket(zmq.REQ) as reader:
        for peer in (socket, reader):
            peer.linger = 0
            peer.rcvtimeo = 10_000
            peer.connect(address)
        for frame in [encode(HandshakeInitMessage()), *frames]:
            socket.send(frame)
            socket.recv()
            for _ in range(reads):
                reader.send(READ)
                reader.recv()


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


def stream_of(scene: str, address: str, publish_on: str, hot_path: bool, frames: list[bytes],
              reads: int = 0, time_step: float | None = None, clock: RunClock | None = None) -> tuple[list, int, int]:
    """Every frame message a subscriber receives from a run of `frames` (and `reads` of another peer after each),
    all header fields but the wall clock; and the Controls and the reads the hot path answered."""
    server = PublishedServer(scene, address, hot_path, time_step, clock)
    stream = published(server, publish_on, lambda endpoint: drive(endpoint, frames, reads))
    path = server.loop.hot_path
    served, read = (0, 0) if path is None else (path.controls, path.reads)
    return stream, served, read


@pytest.mark.parametrize("scene", ["arm", "static"])
def test_a_publisher_on_the_hot_path_streams_what_the_python_path_streams_for_the_same_random_controls(
        scene, make_address):
    handshake = SimulationServer(load_scene(scene, None)).handshake
    frames = random_controls(handshake, 200, seed=14)
    hot, served, _ = stream_of(scene, make_address("ipc"), make_address("ipc"), True, frames)
    plain, not_served, _ = stream_of(scene, make_address("ipc"), make_address("ipc"), False, frames)
    assert served > 100 and not_served == 0  # the first clamp of each value takes the Python path
    assert len(hot) == len(plain) and len(hot) >= 2 * (len(frames) + 1)
    assert hot == plain
    if scene == "arm":
        assert sum(1 for message in hot if message[0] == "/coupler/mujoco_state") == len(frames)


def test_reads_of_the_controller_and_of_another_peer_are_published_on_the_hot_path_as_on_the_python_path(
        make_address):
    handshake = SimulationServer(load_scene("arm", None)).handshake
    frames = [frame for control in random_controls(handshake, 60, seed=3) for frame in (control, READ)]
    hot, served, _ = stream_of("arm", make_address("ipc"), make_address("ipc"), True, frames, reads=1)
    plain, _, _ = stream_of("arm", make_address("ipc"), make_address("ipc"), False, frames, reads=1)
    assert served > 0
    assert sum(1 for message in hot if message[0] == "/coupler/requests/SensorRequest") == 60 + len(frames) + 1
    assert hot == plain


def test_a_published_server_answers_the_reads_of_the_controller_and_of_another_peer_in_cpp(make_address):
    frames = [frame for _ in range(20) for frame in (encode(ControlMessage({"arm": ObjectControl([0.2] * 7)})), READ)]
    hot, served, read = stream_of("arm", make_address("ipc"), make_address("ipc"), True, frames, reads=1)
    reads = 20 + len(frames) + 1  # the controller's, and the other peer's after each answer of the controller
    # Every Control, the first (which starts the simulation) too, and every read are answered in C++.
    assert served == 20
    assert read == reads
    assert sum(1 for message in hot if message[0] == "/coupler/requests/SensorRequest") == reads


def test_long_controls_taken_in_chunks_on_the_hot_path_are_published_as_on_the_python_path(make_address):
    # Controls of many steps between plain ones: each stepped in chunks, its state and answer published once.
    frames = [encode(ControlMessage({"arm": ObjectControl([0.2] * 7)}, steps)) for steps in (1, 101, 1, 350, 1)]
    hot, served, _ = stream_of("arm", make_address("ipc"), make_address("ipc"), True, frames)
    plain, _, _ = stream_of("arm", make_address("ipc"), make_address("ipc"), False, frames)
    assert served == len(frames)  # the first, which starts the simulation, too
    assert hot == plain


def test_paced_long_controls_held_on_the_hot_path_are_published_as_on_the_python_path(make_address):
    # 120 steps of 1 ms: taken in chunks, then held longer than an answer is held without serving others.
    frames = [encode(ControlMessage({"arm": ObjectControl([0.2] * 7)}, steps)) for steps in (1, 120, 1)]
    hot, served, _ = stream_of("arm", make_address("ipc"), make_address("ipc"), True, frames, time_step=0.001,
                               clock=RunClock(1.0))
    plain, _, _ = stream_of("arm", make_address("ipc"), make_address("ipc"), False, frames, time_step=0.001,
                            clock=RunClock(1.0))
    assert served == len(frames)
    assert hot == plain


def paced_stream_with_reads_while_held(address: str, publish_on: str, hot_path: bool) -> tuple[list, int]:
    """The frame messages of a real-time server of the arm with a 0.1 s step (each answer waits 0.1 s, longer
    than an answer is held without serving others), a reader reading while a Control's answer waits; and the
    reads the hot path answered."""
    server = PublishedServer("arm", address, hot_path, time_step=0.1, clock=RunClock(1.0))

    def run(endpoint: str) -> None:
        context = zmq.Context.instance()
        with context.socket(zmq.REQ) as driver, context.socket(zmq.REQ) as reader:
            for peer in (driver, reader):
                peer.linger = 0
                peer.rcvtimeo = 10_000
                peer.connect(endpoint)
            driver.send(encode(HandshakeInitMessage()))
            driver.recv()
            driver.send(encode(ControlMessage({"arm": ObjectControl([-1.0] * 7)})))
            time.sleep(0.01)  # the Control is taken; its answer waits until 0.1 s after its step
            reader.send(READ)
            reader.recv()
            driver.recv()

    stream = published(server, publish_on, run)
    path = server.loop.hot_path
    return stream, 0 if path is None else path.reads


def test_paced_answers_held_on_the_hot_path_while_others_read_are_published_as_on_the_python_path(make_address):
    hot, read = paced_stream_with_reads_while_held(make_address("ipc"), make_address("ipc"), True)
    plain, _ = paced_stream_with_reads_while_held(make_address("ipc"), make_address("ipc"), False)
    assert read == 1
    # The Control and the state after its step, then the read answered while its answer waits, then that answer.
    assert [message[0] for message in hot][-5:] == ["/coupler/requests/Control", "/coupler/mujoco_state",
                                                       "/coupler/requests/SensorRequest", "/coupler/answers/Sensor",
                                                       "/coupler/answers/Sensor"]
    assert hot == plain


def test_a_recording_made_on_the_hot_path_replays_identical(make_address, tmp_path):
    server = PublishedServer("arm", make_address("ipc"), hot_path=True)
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


def test_a_newcomers_control_that_admits_it_is_published_by_the_hot_path_as_on_the_python_path(make_address):
    # A controller that never shakes hands: Python admits it on its first Control, which C++ serves and publishes.
    frames = [encode(ControlMessage({"arm": ObjectControl([0.05 * k] * 7)})) for k in range(5)]

    def newcomer(endpoint: str) -> None:
        with zmq.Context.instance().socket(zmq.REQ) as socket:
            socket.linger = 0
            socket.rcvtimeo = 10_000
            socket.connect(endpoint)
            for frame in frames:
                socket.send(frame)
                socket.recv()

    hot_server = PublishedServer("arm", make_address("ipc"), True)
    hot = published(hot_server, make_address("ipc"), newcomer)
    plain = published(PublishedServer("arm", make_address("ipc"), False), make_address("ipc"), newcomer)
    assert hot_server.loop.hot_path.controls == len(frames)  # its first Control too
    assert hot == plain
