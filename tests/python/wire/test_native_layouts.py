"""The flat layouts: frames encoded from the arrays are the codec's frames of
the same numbers, frames read into the arrays hold the message's numbers,
and the Controls refused are named, writing nothing."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coupler import _native
from coupler.wire.codec import decode, encode
from coupler.wire.errors import ProtocolError
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import (
    ControlField,
    ControlMessage,
    ErrorCode,
    HandshakeMessage,
    ObjectControl,
    SensorMessage,
    ValueType,
)
from coupler.scenes.static import StaticScene

VECTORS = Path(__file__).resolve().parents[2] / "vectors"


def vector(name: str) -> bytes:
    return (VECTORS / f"{name}.bin").read_bytes()


def flatten(flat: FlatLayout, message: SensorMessage) -> np.ndarray:
    """The numbers of a message in slot order, as the layout lays them out."""
    values = np.zeros(flat.sensors.size)
    for slot in flat.sensors.slots:
        readings = message.objects[slot.object]
        if slot.part == "forces":
            numbers = [n for force in readings.forces for n in force]
        elif slot.part == "object_sensors":
            numbers = readings.object_sensors[slot.index].value
        elif slot.part == "sensors":
            numbers = readings.sensors[slot.sensor][slot.index].value
        else:
            numbers = getattr(readings, slot.part)
        values[slot.offset : slot.offset + slot.size] = numbers
    return values


@pytest.fixture(scope="module")
def vectors_layout() -> FlatLayout:
    return FlatLayout(decode(vector("handshake")))


@pytest.fixture(scope="module")
def static_layout() -> FlatLayout:
    return StaticScene().flat


def test_the_shared_sensor_vector_encodes_from_its_numbers_byte_for_byte(vectors_layout):
    message = decode(vector("sensor"))
    values = flatten(vectors_layout, message)
    vectors_layout.sensors.values[:] = values
    assert vectors_layout.sensors.encode(message.simulated_time) == vector("sensor")


def test_slots_cover_the_array_once_in_order(static_layout):
    slots = static_layout.sensors.slots
    assert slots[0].offset == 0
    for before, after in zip(slots, slots[1:]):
        assert after.offset == before.offset + before.size
    assert slots[-1].offset + slots[-1].size == static_layout.sensors.size
    assert [s.object for s in slots] == sorted(s.object for s in slots)


numbers = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, -0.0, 1.0])


@settings(max_examples=60, deadline=None)
@given(data=st.data(), simulated_time=numbers)
def test_a_frame_encoded_from_any_numbers_is_the_codecs_frame_of_a_message_of_those_numbers(static_layout, data,
                                                                                            simulated_time):
    values = np.array(data.draw(st.lists(numbers, min_size=static_layout.sensors.size,
                                         max_size=static_layout.sensors.size)))
    static_layout.sensors.values[:] = values
    frame = static_layout.sensors.encode(simulated_time)
    message = decode(frame)
    # An ACTIVATED reading is on (1) or off (0).
    activated = np.zeros(values.size, dtype=bool)
    activated[[s.offset for s in static_layout.sensors.slots if s.type == ValueType.ACTIVATED]] = True
    np.testing.assert_array_equal(flatten(static_layout, message), np.where(activated, values != 0.0, values))
    assert message.simulated_time == simulated_time or math.isnan(simulated_time)
    assert encode(message) == frame


def control_arrays(flat: FlatLayout) -> list[np.ndarray]:
    c = flat.controls
    return [c.values, c.values_set, c.events_set, c.events_on]


def test_the_shared_control_vectors_read_into_the_arrays_as_their_messages_say(vectors_layout):
    c = vectors_layout.controls
    for name in ("control", "control_angles"):
        frame = vector(name)
        message = decode(frame)
        for array in control_arrays(vectors_layout):
            array[:] = 0
        assert c.decode(frame) == message.steps
        for k, described in enumerate(c.objects):
            sent = message.objects.get(described.name)
            # An object sent without values (events only) keeps its values, and is marked unset.
            assert c.values_set[k] == bool(sent and sent.values), name
            if sent and sent.values:
                assert c.values[described.offset : described.offset + described.size].tolist() == sent.values
            for i, event in enumerate(described.events):
                on = sent.events.get(event) if sent else None
                assert c.events_set[described.event_offset + i] == (on is not None), (name, event)
                assert c.events_on[described.event_offset + i] == bool(on), (name, event)
    assert c.values_set.tolist() == [False, True, False]  # box, panda, rover


HANDSHAKE = StaticScene().handshake()
ARM = HANDSHAKE.objects["arm"]
MAX_STEPS = _native.ControlLayout.MAX_STEPS

SCENE = "(the scene has 'arm', 'box', 'cart')"
# Each Control that does not match the static scene, and the refusal naming its first problem.
MISMATCHES = {
    "unknown object": (ControlMessage(objects={"robot9": ObjectControl([1.0])}), f"unknown object 'robot9' {SCENE}"),
    "name holding a NUL byte": (ControlMessage(objects={"robot\x00nine": ObjectControl([1.0])}),
                                f"unknown object 'robot\\x00nine' {SCENE}"),
    "name holding a newline": (ControlMessage(objects={"arm\nERROR forged": ObjectControl([1.0])}),
                               f"unknown object 'arm\\nERROR forged' {SCENE}"),
    "megabyte name": (ControlMessage(objects={"x" * 1_000_000: ObjectControl([1.0])}),
                      f"xxxx… (1000000 characters)' {SCENE}"),
    "wrong count": (ControlMessage(objects={"arm": ObjectControl([1.0])}), "object 'arm' has 7 controls, got 1 values"),
    "events only": (ControlMessage(objects={"arm": ObjectControl([], {"gripper": True})}),
                    "object 'arm' has 7 controls, got 0 values"),
    "legacy list of the wrong type": (ControlMessage(objects={"cart": ObjectControl([1.0] * 4, field=ControlField.ANGLES)}),
                                      "'angles' sent for object 'cart', but control 'wheel_left' is ANGULAR_VELOCITY_1D"),
    "nan": (ControlMessage(objects={"arm": ObjectControl([0.0] * 6 + [math.nan])}),
            "control 'joint7' of object 'arm' is nan"),
    "-inf": (ControlMessage(objects={"cart": ObjectControl([0.0, -math.inf, 0.0, 0.0])}),
             "control 'wheel_right' of object 'cart' is -inf"),
    "unknown event": (ControlMessage(objects={"arm": ObjectControl([0.0] * 7, {"laser": True, "gripper": True})}),
                      "unknown control event 'laser' of object 'arm'"),
    "too many steps": (ControlMessage(steps=MAX_STEPS + 1), f"steps {MAX_STEPS + 1} exceeds the maximum of {MAX_STEPS}"),
    "two problems": (ControlMessage(objects={"zz": ObjectControl([1.0]), "cart": ObjectControl([1.0])}),
                     "object 'cart' has 4 controls, got 1 values"),
}
MISMATCH = "control does not match the handshake: "


@pytest.mark.parametrize("case", sorted(MISMATCHES))
def test_a_mismatch_is_refused_naming_its_first_problem_and_nothing_written(static_layout, case):
    control, problem = MISMATCHES[case]
    before = [array.copy() for array in control_arrays(static_layout)]
    with pytest.raises(ProtocolError) as refused:
        static_layout.controls.decode(encode(control))
    assert refused.value.code == ErrorCode.CONTROL_MISMATCH
    text = str(refused.value)
    assert text.startswith(MISMATCH) and text.endswith(problem) and len(text) < 400
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(control_arrays(static_layout), before))


def test_a_scene_without_objects_is_named():
    control = ControlMessage(objects={"arm": ObjectControl([])})
    with pytest.raises(ProtocolError) as refused:
        FlatLayout(HandshakeMessage()).controls.decode(encode(control))
    assert str(refused.value) == MISMATCH + "unknown object 'arm' (the scene has no objects)"


# A server sends Sensors frame after frame; the native read copies the numbers of a frame laid out as the
# last one it parsed, and must still read every frame as the codec decodes it.
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_a_run_of_sensor_frames_reads_as_the_codec_decodes_each(data):
    scene = StaticScene()
    writer, reader = scene.flat, FlatLayout(scene.handshake())
    activated = [slot for slot in writer.sensors.slots if slot.type == 5]
    for step in range(data.draw(st.integers(2, 12))):
        values = np.array(data.draw(st.lists(numbers, min_size=writer.sensors.size, max_size=writer.sensors.size)))
        for slot in activated:
            values[slot.offset] = float(data.draw(st.booleans()))
        time = data.draw(numbers)
        writer.sensors.values[:] = values
        frame = writer.sensors.encode(time)
        read = reader.sensors.read(frame)
        assert read is not None, f"step {step}"
        message = decode(frame)
        expected, expected_time = flatten(reader, message), message.simulated_time
        np.testing.assert_array_equal(read[0], expected)  # NaN where NaN
        assert read[1] == expected_time or (np.isnan(read[1]) and np.isnan(expected_time))
