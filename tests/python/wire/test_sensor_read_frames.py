"""The native sensor read, frame after frame as a server sends them: every Sensor of the scene's shape is
read as the codec decodes it, whether the read parses it or copies its numbers out of a known layout."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from coupler.scenes.static import StaticScene
from coupler.wire.codec import decode, encode
from coupler.wire.flat_layout import FlatLayout

numbers = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from([0.0, -0.0, 1.0])


def _values_of(flat: FlatLayout, frame: bytes) -> tuple[np.ndarray, float]:
    """The numbers the codec decodes from `frame`, in slot order, through the message path."""
    message = decode(frame)
    values = np.zeros(flat.sensors.size)
    for slot in flat.sensors.slots:
        read = message.objects[slot.object]
        if slot.part == "forces":
            found = [n for force in read.forces for n in force]
        elif slot.part == "object_sensors":
            found = read.object_sensors[slot.index].value
        elif slot.part == "sensors":
            found = read.sensors[slot.sensor][slot.index].value
        else:
            found = getattr(read, slot.part)
        values[slot.offset : slot.offset + slot.size] = found
    return values, message.simulated_time


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
        frame = encode(writer.sensor_message(values, time))
        read = reader.sensors.read(frame)
        assert read is not None, f"step {step}"
        expected, expected_time = _values_of(reader, frame)
        np.testing.assert_array_equal(read[0], expected)  # NaN where NaN
        assert read[1] == expected_time or (np.isnan(read[1]) and np.isnan(expected_time))
