"""A live stream as `coupler view` reads it: the newest state only, and one clear line when the stream stops,
ends or carries states of another scene; the last good state stays shown."""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import pytest

from coupler.record.publisher import FramePublisher
from coupler.record.scene_record import scene_attachments
from coupler.view.live_stream import LiveStream
from coupler.wire.errors import Error

PENDULUM = """
<mujoco>
  <worldbody>
    <body name="pole"><joint name="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.02"/></body>
  </worldbody>
</mujoco>
"""
QUIET_AFTER = 0.3  # seconds
TIMEOUT = 5.0


@dataclass
class _Scene:
    """What the publisher reads of a MuJoCo scene: its model and data."""

    model: mujoco.MjModel
    data: mujoco.MjData

    def handshake(self):  # scene_metadata's need; the view reads none of it
        raise NotImplementedError


@pytest.fixture
def published(tmp_path):
    model = mujoco.MjModel.from_xml_string(PENDULUM)
    scene = _Scene(model, mujoco.MjData(model))
    publisher = FramePublisher({"coupler.scene": {"scene": "pendulum"}}, scene_attachments(scene))
    address = publisher.bind(f"ipc://{tmp_path}/published")
    stream = LiveStream(address, quiet_after=QUIET_AFTER)
    try:
        yield publisher, scene, stream
    finally:
        stream.close()
        publisher.close()


def _step(publisher, scene, angle: float, step: int) -> None:
    scene.data.qpos[0] = angle
    scene.data.time = step * 0.002
    publisher.on_step(scene, step, 0.0)


def _until_state(stream: LiveStream):
    for _ in range(int(TIMEOUT / 0.05)):
        state = stream.poll(0.05)
        if state is not None:
            return state
    raise AssertionError(f"no state within {TIMEOUT:g} s: {stream.status}")


def _until_status(stream: LiveStream, status: str) -> list:
    """Poll until the stream's status is `status`; the states polled meanwhile."""
    states = []
    for _ in range(int(TIMEOUT / 0.02)):
        states.append(stream.poll(0.02))
        if stream.status == status:
            return states
    raise AssertionError(f"the status is {stream.status!r}, not {status!r}")


def test_the_view_gets_the_newest_of_the_states_that_arrived(published):
    publisher, scene, stream = published
    stream.wait_for_scene(TIMEOUT)
    assert publisher.wait_for_subscribers(3, TIMEOUT)
    for step in range(1, 51):
        _step(publisher, scene, 0.01 * step, step)
    state = _until_state(stream)
    while (newer := stream.poll(0.2)) is not None:
        state = newer
    assert (state.step, state.qpos[0]) == (50, 0.5)
    assert stream.status == f"live from {stream.address}, scene 'pendulum'"


def test_a_stream_that_stops_is_said_to_have_stopped_once_quiet(published):
    publisher, scene, stream = published
    stream.wait_for_scene(TIMEOUT)
    assert publisher.wait_for_subscribers(3, TIMEOUT)
    _step(publisher, scene, 0.3, 1)
    _until_state(stream)
    assert stream.poll(QUIET_AFTER + 0.1) is None
    assert stream.status == (f"no state from {stream.address} for {QUIET_AFTER:g} s: the stream stopped; showing the "
                             "last state")


def test_a_server_that_ends_its_stream_is_said_to_have_stopped(published):
    publisher, scene, stream = published
    stream.wait_for_scene(TIMEOUT)
    assert publisher.wait_for_subscribers(3, TIMEOUT)
    _step(publisher, scene, 0.3, 1)
    _until_state(stream)
    publisher.send_end()
    _until_status(stream, f"the server at {stream.address} stopped: showing its last state")


def test_states_of_another_scene_are_not_shown_saying_so(published, tmp_path):
    publisher, _, stream = published
    stream.wait_for_scene(TIMEOUT)
    assert publisher.wait_for_subscribers(3, TIMEOUT)
    other = mujoco.MjModel.from_xml_string(PENDULUM.replace('axis="0 1 0"/>', 'axis="0 1 0"/><joint axis="1 0 0"/>'))
    _step(publisher, _Scene(other, mujoco.MjData(other)), 0.3, 1)
    states = _until_status(stream, "a state of 2 positions and 0 controls, not of the model drawn (1 and 0): it "
                                   "comes from another scene")
    assert states == [None] * len(states)


def test_no_scene_within_the_wait_is_one_clear_error(tmp_path):
    stream = LiveStream(f"ipc://{tmp_path}/nobody")
    try:
        with pytest.raises(Error) as raised:
            stream.wait_for_scene(0.2)
    finally:
        stream.close()
    assert str(raised.value) == (f"no scene from ipc://{tmp_path}/nobody within 0.2 s: is a server publishing there "
                                 "(coupler serve --publish ADDR)?")


def test_a_server_that_comes_back_with_another_scene_is_redrawn_saying_so(published, tmp_path):
    publisher, _, stream = published
    stream.wait_for_scene(TIMEOUT)
    publisher.close()
    other = mujoco.MjModel.from_xml_string(PENDULUM.replace('axis="0 1 0"/>', 'axis="0 1 0"/><joint axis="1 0 0"/>'))
    again = FramePublisher({"coupler.scene": {"scene": "double"}}, scene_attachments(_Scene(other, mujoco.MjData(other))))
    again.bind(stream.address)
    try:
        _until_status(stream, f"the server at {stream.address} now serves another scene ('double'): redrawn")
        assert (stream.scene_changes, stream.scene.model.nq) == (1, 2)
    finally:
        again.close()
