"""A published batched server (--worlds N with --publish or --record) keeps the C++ hot path of its lone controller,
which publishes every request and its answer in turn, every world's state after each step among them."""

from __future__ import annotations

import math
import os
import threading
import time

import numpy as np
import pytest
import zmq

# Rendered with EGL, as the server renders: the one OpenGL chosen before MuJoCo is imported.
os.environ.setdefault("MUJOCO_GL", "egl")
pytest.importorskip("mujoco")

from coupler._proto.coupler_record_pb2 import MujocoState  # noqa: E402
from coupler.mujoco.camera_serving import serve_cameras  # noqa: E402
from coupler.mujoco.simulation import MujocoSimulation  # noqa: E402
from coupler.mujoco.world_batch import WorldBatch  # noqa: E402
from coupler.record.channels import ANSWERS, REQUESTS, frame_kind  # noqa: E402
from coupler.record.publisher import FramePublisher  # noqa: E402
from coupler.serve.batched_worlds import BatchedResponder, WorldsSimulation  # noqa: E402
from coupler.serve.frame_observer import observed  # noqa: E402
from coupler.serve.lockstep_loop import LockstepLoop  # noqa: E402
from coupler.serve.run_clock import RunClock  # noqa: E402
from coupler.serve.simulation_server import SimulationServer  # noqa: E402
from coupler.serve.world_hot_path import WorldHotPath  # noqa: E402
from coupler.wire.codec import encode  # noqa: E402
from coupler.wire.messages import (  # noqa: E402
    ControlMessage,
    HandshakeInitMessage,
    ImageRequest,
    ObjectControl,
    ResetMessage,
    SensorRequestMessage,
)
from coupler.wire.world_frames import (  # noqa: E402
    encode_world_control,
    read_world_answer_with_images,
    world_control_in,
)
from frame_subscriber import compared, follow, until_end  # noqa: E402
from served_loop import req_socket  # noqa: E402

# Two hinges, the shoulder's motor limited (values beyond it are clamped, the first time in each world by Python).
TWO_LINKS = """
<mujoco model="two_links">
  <option timestep="0.01"/>
  <worldbody>
    <body name="arm" pos="0 0 0.5">
      <joint name="shoulder" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="forearm" pos="0.3 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.03"/>
      </body>
    </body>
    <camera name="side" pos="0 -1.5 0.5" xyaxes="1 0 0 0 0 1" resolution="16 12"/>
  </worldbody>
  <actuator>
    <motor name="shoulder_motor" joint="shoulder" ctrllimited="true" ctrlrange="-1 1"/>
    <motor name="elbow_motor" joint="elbow"/>
  </actuator>
</mujoco>
"""
WORLDS = 3
WIDTH = 2  # numbers per world in a Control: the two motors' values (no events)
STATE = "/coupler/mujoco_state"
READS = 2  # the SensorRequests among the frames: answered with no state published


def random_frames(width: int, count: int, seed: int) -> list[bytes]:
    """Controls for every world, mostly plain, with resets (to the start state or to a qpos given), a value Python
    refuses, a long one taken in chunks, ones that step no world (resetting some), a Reset and a read among them."""
    rng = np.random.default_rng(seed)
    frames = []
    for k in range(count):
        controls = rng.uniform(-2.0, 2.0, (WORLDS, width))
        steps = int(rng.choice([0, 1, 3]))
        kind = k % 10
        if kind == 3:
            frames.append(encode_world_control(WORLDS, controls, steps, [1]))
        elif kind == 5:
            frames.append(encode_world_control(WORLDS, controls, steps, [0, 2], qpos=rng.uniform(-0.5, 0.5, 4)))
        elif kind == 6 and k < 10:
            controls[2, 1] = math.nan
            frames.append(encode_world_control(WORLDS, controls))
        elif kind == 7 and k < 10:
            frames.append(encode_world_control(WORLDS, controls, 101))
        elif kind == 8 and k < 10 * READS:
            frames.extend([encode(ResetMessage()), encode(SensorRequestMessage())])
        elif kind == 9:
            frames.append(encode_world_control(WORLDS, None, steps, [0, 2] if k < 20 else [1]))
        else:
            frames.append(encode_world_control(WORLDS, controls, steps))
    return frames


def stream_of(address: str, publish_on: str, frames: list[bytes], clock: RunClock | None = None,
              read_during: int | None = None, cameras: bool = False) -> tuple[list, list, int]:
    """Every frame message a subscriber receives from a published batched run of `frames` after a handshake (paced
    by `clock`; while the answer to frame `read_during` waits, another peer reads; with its `cameras` served), all
    header fields but the wall clock; the (topic, payload) of every request and answer in the order they went;
    and the Controls the native hot paths stepped."""
    first = MujocoSimulation.from_xml_string(TWO_LINKS)
    if cameras and serve_cameras(first) is None:
        pytest.fail("the scene's camera is not served")
    worlds = WorldBatch(first, WORLDS, threads=1)
    sim = SimulationServer(WorldsSimulation(worlds))
    publisher = FramePublisher()
    responder = BatchedResponder(address, sim)
    loop = LockstepLoop(observed(responder, publisher), clock)
    stop = threading.Event()
    thread = threading.Thread(target=loop.run, args=(stop, 0.05))
    socket, received = follow(publisher.bind(publish_on))
    went: list[tuple[str, bytes]] = []

    def exchange(peer: zmq.Socket, frame: bytes) -> bytes:
        went.append((REQUESTS + frame_kind(frame), frame))
        peer.send(frame)
        answer = peer.recv()
        went.append((ANSWERS + frame_kind(answer), answer))
        return answer

    try:
        assert publisher.wait_for_subscribers(1, 10.0)
        thread.start()
        with req_socket(responder.endpoint) as driver, req_socket(responder.endpoint) as reader:
            exchange(driver, encode(HandshakeInitMessage()))
            for k, frame in enumerate(frames):
                if k != read_during:
                    exchange(driver, frame)
                    continue
                driver.send(frame)
                went.append((REQUESTS + "Control", frame))
                time.sleep(0.02)
                exchange(reader, encode(SensorRequestMessage()))
                assert not driver.poll(0)  # still held
                went.append((ANSWERS + "Sensor", driver.recv()))
        stop.set()
        thread.join(timeout=10)
        responder.close()
        publisher.send_end()
        until_end(socket, received)
    finally:
        stop.set()
        publisher.close()
        socket.close()
        worlds.close()
    assert not thread.is_alive()
    assert isinstance(loop.hot_path, WorldHotPath)
    # World 0's ordinary Controls are stepped by the single-world hot path.
    world_0 = loop.hot_path.world_0
    served = loop.hot_path.controls + (0 if world_0 is None else world_0.controls)
    return compared(received), went, served


def requests_and_answers(stream: list) -> list[tuple[str, bytes]]:
    """The (topic, payload) of the requests and answers `stream` publishes, the states aside; AssertionError when
    its messages are not numbered in turn."""
    assert [message[1] for message in stream] == list(range(stream[0][1], stream[0][1] + len(stream)))
    return [(topic, payload) for topic, _, _, _, payload in stream if topic != STATE]


def test_a_published_batch_streams_every_request_and_answer_in_turn_and_each_worlds_state_after_each_step(
        make_address):
    frames = random_frames(WIDTH, 40, seed=5)
    stream, went, served = stream_of(make_address("ipc"), make_address("ipc"), frames)
    assert served > len(frames) // 2
    assert requests_and_answers(stream) == went
    answers = sum(1 for message in stream if message[0] == "/coupler/answers/Sensor")
    states = [MujocoState.FromString(message[4]) for message in stream if message[0] == STATE]
    # Neither a read nor a Control that steps no world publishes the worlds' states.
    stepping_none = sum(1 for frame in frames if (control := world_control_in(frame)) and not control.controls.size)
    assert stepping_none > 0
    assert len(states) == WORLDS * (answers - READS - stepping_none) > 0
    assert [state.world for state in states[:WORLDS]] == list(range(WORLDS))


def test_a_paced_published_batch_streams_a_read_answered_while_an_answer_is_held_before_that_answer(make_address):
    controls = np.array([[0.5, -0.5], [1.5, 0.0], [-0.2, 0.3]])
    # The second Control's answer waits 0.1 s for its time, while another peer reads.
    frames = [encode_world_control(WORLDS, controls, 1), encode_world_control(WORLDS, controls, 10),
              encode_world_control(WORLDS, controls, 1, [1])]
    stream, went, served = stream_of(make_address("ipc"), make_address("ipc"), frames, RunClock(1.0), read_during=1)
    assert served == len(frames)
    assert requests_and_answers(stream) == went
    channels = [message[0] for message in stream]
    held = channels.index("/coupler/requests/SensorRequest")
    assert channels[held - 1] == STATE and channels[held + 2] == "/coupler/answers/Sensor"  # held, then sent


def test_a_published_batch_streams_controls_stepped_in_cpp_for_python_to_answer_images_and_all(make_address):
    controls = np.array([[0.5, -0.5], [1.5, 0.0], [-0.2, 0.3]])
    world_0 = {"arm": ObjectControl(values=[0.3, -0.2])}
    # Controls for every world asking for images, then world 0's ordinary Controls, with and without an image.
    frames = [encode_world_control(WORLDS, controls, 2, images=[("side", ["rgb", "depth"])]),
              encode_world_control(WORLDS, controls, 1),
              encode_world_control(WORLDS, -controls, 3, [1], images=[("side", ["rgb"])], image_worlds=[0, 2]),
              encode(ControlMessage(objects=world_0, steps=2, images=[ImageRequest("side", ["rgb"])])),
              encode(ControlMessage(objects=world_0))]
    stream, went, served = stream_of(make_address("ipc"), make_address("ipc"), frames, cameras=True)
    assert served == len(frames)
    assert requests_and_answers(stream) == went
    answers = [message[4] for message in stream if message[0] == "/coupler/answers/Sensor"]
    assert [[(stack.kind, len(stack.pixels)) for stack in read_world_answer_with_images(answer)[3]]
            for answer in answers[:3]] == [[("rgb", WORLDS), ("depth", WORLDS)], [], [("rgb", 2)]]
    assert len(answers) == len(frames)
