"""The controller's flat path: Controls frames written from arrays equal the
codec's, and SensorMessage frames read into an array give the readings the
decoded message gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coupler.wire.codec import decode, encode
from coupler.controller.controls import Controls
from coupler.wire.errors import Error
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    ResetMessage,
    Sensor,
    SensorRequestMessage,
    ValueType,
)
from coupler.mujoco.simulation import MujocoSimulation
from coupler.controller.sensor_readings import SensorReadings
from coupler.scenes.static import StaticScene
from message_strategies import all_numbers, handshakes

REPO = Path(__file__).resolve().parents[3]
VECTORS = REPO / "tests" / "vectors"
SCENES = sorted((REPO / "demo" / "scenes").glob("*.xml"))


def vector(name: str) -> bytes:
    return (VECTORS / f"{name}.bin").read_bytes()


def fill(controls: Controls, handshake: HandshakeMessage, data: st.DataObject) -> None:
    """Random values and events, written through every way Controls offers."""
    for name, described in handshake.objects.items():
        if not described.controls and not described.control_events:
            continue
        values = data.draw(st.lists(all_numbers, min_size=len(described.controls), max_size=len(described.controls)))
        if data.draw(st.booleans()):
            controls[name] = values
        else:
            for control, value in zip(described.controls, values):
                controls.set(name, control, value)
        for event in described.control_events:
            controls.event(name, event, data.draw(st.booleans()))


@settings(max_examples=80, deadline=None)
@given(handshake=handshakes, data=st.data(), steps=st.integers(0, 2**32 - 1))
def test_a_controls_frame_equals_the_codecs_frame_of_its_message(handshake, data, steps):
    controls = Controls(handshake)
    fill(controls, handshake, data)
    controls.steps = steps
    assert controls.frame() == encode(controls.message())


def test_controls_filled_as_the_shared_control_vector_send_its_frame():
    handshake = decode(vector("handshake"))
    sent = decode(vector("control"))
    controls = Controls(handshake)
    for name, control in sent.objects.items():
        controls[name] = control.values
        for event, on in control.events.items():
            controls.event(name, event, on)
    assert controls.frame() == vector("control")


@pytest.mark.parametrize("steps", [-1, 2**64, 1.5])
def test_steps_that_cannot_be_sent_are_refused_as_encode_refuses_them(steps):
    controls = Controls(StaticScene().handshake())
    controls.steps = steps
    with pytest.raises(Error, match="cannot encode ControlMessage"):
        controls.frame()


def test_controls_values_are_views_of_one_array_that_the_frame_sends():
    handshake = decode(vector("handshake"))
    controls = Controls(handshake)
    controls["panda"][2] = 0.75
    controls.set("rover", "lift", -2.0)
    sent = decode(controls.frame())
    assert sent.objects["panda"].values[2] == 0.75
    assert sent.objects["rover"].values[3] == -2.0


def simulations() -> list:
    return [StaticScene()] + [MujocoSimulation(path) for path in SCENES]


def assert_same_readings(flat: SensorReadings, message: SensorReadings, handshake: HandshakeMessage) -> None:
    """Every lookup gives equal values of equal types, or the same refusal."""

    def same(lookup) -> None:
        try:
            expected = lookup(message)
        except Error as error:
            with pytest.raises(Error) as refused:
                lookup(flat)
            assert str(refused.value) == str(error)
            return
        got = lookup(flat)
        assert type(got) is type(expected)
        if isinstance(expected, np.ndarray):
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got, expected)
        else:
            assert got == expected

    same(lambda r: r.time)
    same(lambda r: r.angles("nobody"))
    for name, described in handshake.objects.items():
        for part in ("angles", "angular_velocities", "torques"):
            same(lambda r: getattr(r, part)(name))
        for joint in described.joint_sensors + ["nowhere"]:
            for kind in ("angle", "angular_velocity", "torque"):
                same(lambda r: getattr(r, kind)(name, joint))
        for value_type in ValueType:
            same(lambda r: r.object_sensor(name, value_type))
        for sensor in list(described.sensors) + ["nothing"]:
            same(lambda r: r.sensor(name, sensor))
            for value_type in ValueType:
                same(lambda r: r.sensor(name, sensor, value_type))
    assert flat.message == message.message


@pytest.mark.parametrize("simulation", simulations(), ids=lambda s: type(s).__name__ + str(getattr(s, "model", "")))
def test_readings_read_into_an_array_equal_the_decoded_messages_for_every_scene(simulation):
    handshake = simulation.handshake()
    flat = FlatLayout(handshake)
    simulation.step(3)
    frame = encode(simulation.sensors())
    read = flat.sensors.read(frame)
    assert read is not None
    values, simulated_time = read
    assert_same_readings(
        SensorReadings.from_array(handshake, flat, values, simulated_time),
        SensorReadings(handshake, decode(frame)),
        handshake,
    )


def test_each_read_fills_a_new_array():
    flat = StaticScene().flat
    frame = flat.sensors.encode(1.0)
    first, _ = flat.sensors.read(frame)
    second, _ = flat.sensors.read(frame)
    assert first is not second
    first[:] = -1.0
    assert not np.array_equal(first, second)


@pytest.mark.parametrize(
    "message",
    [HandshakeInitMessage(), SensorRequestMessage(), ResetMessage(), ControlMessage(),
     ErrorMessage(ErrorCode.SERVER_BUSY, "busy")],
    ids=lambda m: type(m).__name__,
)
def test_other_message_kinds_are_left_to_the_codec(message):
    assert StaticScene().flat.sensors.read(encode(message)) is None


def test_a_sensor_message_of_another_shape_is_left_to_the_codec():
    scene = StaticScene()
    message = scene.sensors()
    assert scene.flat.sensors.read(encode(message)) is not None
    name = next(iter(message.objects))
    message.objects[name].object_sensors.append(Sensor(ValueType.POSITION, (1.0, 2.0, 3.0)))
    assert scene.flat.sensors.read(encode(message)) is None


STATIC = StaticScene()
VALID = STATIC.flat.sensors.encode(0.5)


def changed_byte(at: int, byte: int) -> bytes:
    at %= len(VALID)
    return VALID[:at] + bytes([byte]) + VALID[at + 1 :]


arbitrary_frames = st.one_of(
    st.binary(max_size=1200),
    st.integers(0, len(VALID)).map(lambda cut: VALID[:cut]),
    st.builds(changed_byte, st.integers(0, len(VALID)), st.integers(0, 255)),
)


@settings(max_examples=400, deadline=None)
@given(frame=arbitrary_frames)
def test_arbitrary_bytes_never_crash_the_reader_and_what_it_takes_decodes_alike(frame):
    read = STATIC.flat.sensors.read(frame)
    if read is None:
        return
    values, simulated_time = read
    # As frames, so that NaN readings compare equal: the numbers read, encoded again, are the frame's message.
    STATIC.flat.sensors.values[:] = values
    assert STATIC.flat.sensors.encode(simulated_time) == encode(decode(frame))
