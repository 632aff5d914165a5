"""Session.step sends the Controls' frame and reads a SensorMessage of the
scene's shape into an array; any other answer goes through the codec as
before: errors, resets, and sensor messages of another shape."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from coupler.wire.codec import decode, encode
from coupler.wire.errors import RemoteError
from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    Message,
    ResetMessage,
    Sensor,
    SensorMessage,
    SensorRequestMessage,
    ValueType,
)
from coupler.controller.session import Session
from coupler.scenes.static import StaticScene

from scripted_server import ScriptedServer

@pytest.fixture
def serve() -> Iterator:
    servers: list[ScriptedServer] = []

    def start(*answers: Message) -> ScriptedServer:
        servers.append(ScriptedServer(list(answers)))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def test_a_step_sends_the_frame_the_codec_writes_for_the_controls(serve):
    scene = StaticScene()
    server = serve(scene.sensors())
    with Session(server.address) as session:
        controls = session.controls()
        name = next(n for n, described in session.handshake.objects.items() if described.controls)
        controls[name][:] = 0.5
        controls.steps = 3
        session.step(controls)
        assert server.requests[1] == encode(controls.message())


def test_a_step_answered_in_the_scenes_shape_gives_readings_of_the_sent_message(serve):
    scene = StaticScene()
    scene.step(2)
    sent = scene.sensors()
    server = serve(sent)
    with Session(server.address) as session:
        readings = session.step(session.controls())
    assert readings.message == decode(encode(sent))
    assert readings.time == sent.simulated_time
    assert not readings.after_reset


def test_a_step_answered_in_another_shape_gives_the_decoded_messages_readings(serve):
    sent = StaticScene().sensors()
    name = next(iter(sent.objects))
    sent.objects[name].object_sensors.append(Sensor(ValueType.VELOCITY_3D, (1.0, 2.0, 3.0)))
    server = serve(sent)
    with Session(server.address) as session:
        readings = session.step(session.controls())
    assert readings.object_sensor(name, ValueType.VELOCITY_3D).tolist() == [1.0, 2.0, 3.0]
    assert readings.message == decode(encode(sent))


def test_a_step_answered_with_an_error_raises_remote_error(serve):
    server = serve(ErrorMessage(ErrorCode.CONTROL_MISMATCH, "no such arm"))
    with Session(server.address) as session:
        with pytest.raises(RemoteError, match="no such arm"):
            session.step(session.controls())


def test_a_step_answered_with_reset_fetches_the_state_after_it(serve):
    after = StaticScene().sensors()
    server = serve(ResetMessage(), after)
    with Session(server.address) as session:
        readings = session.step(session.controls())
    assert readings.after_reset
    assert readings.message == decode(encode(after))
    assert decode(server.requests[2]) == SensorRequestMessage()


def test_a_traced_step_shows_the_messages_sent_and_received(serve):
    sent = StaticScene().sensors()
    server = serve(sent)
    seen: list[tuple[str, Message]] = []
    with Session(server.address, trace=lambda direction, message: seen.append((direction, message))) as session:
        session.step(session.controls())
    assert [(d, type(m)) for d, m in seen[2:]] == [("send", ControlMessage), ("recv", SensorMessage)]
