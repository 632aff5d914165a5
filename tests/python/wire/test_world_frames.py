"""Frames of the "worlds" extension from and to NumPy arrays: written as protobuf writes them, read as protobuf
reads them, and the shared vectors' frames."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from coupler._proto import coupler_pb2 as pb
from coupler.wire.codec import encode
from coupler.wire.errors import ProtocolError, RemoteError
from coupler.wire.messages import ControlMessage, ErrorCode, ErrorMessage, ObjectControl
from coupler.wire.world_frames import (
    carries_worlds,
    encode_world_control,
    encode_world_sensors,
    read_world_answer_with_images,
    read_world_control,
    read_world_sensors,
)

VECTORS = Path(__file__).parents[2] / "vectors"


def test_a_control_for_every_world_is_the_frame_protobuf_writes_for_the_same_fields():
    controls = np.arange(6.0).reshape(2, 3)
    frame = encode_world_control(2, controls, steps=5, resets=[0, 300], qpos=np.array([1.5, -2.0]), qvel=np.zeros(0))
    expected = pb.ControlMessage(messageType=pb.ControlMessageType, steps=5, worlds=2, worldControls=controls.ravel(),
                                 resetWorlds=[0, 300], resetQpos=[1.5, -2.0])
    assert frame == expected.SerializeToString(deterministic=True)


def test_a_control_for_every_world_reads_back_every_field_protobuf_wrote():
    message = pb.ControlMessage(messageType=pb.ControlMessageType, steps=7, worlds=2, worldControls=[0.5, -1.0],
                                resetWorlds=[1, 2], resetQpos=[3.0, 4.0], resetQvel=[5.0, 6.0])
    control = read_world_control(message.SerializeToString())
    assert (control.worlds, control.steps) == (2, 7)
    assert control.controls.tolist() == [0.5, -1.0]
    assert control.resets.tolist() == [1, 2]
    assert (control.qpos.tolist(), control.qvel.tolist()) == ([3.0, 4.0], [5.0, 6.0])


def test_an_ordinary_control_does_not_carry_worlds():
    frame = encode(ControlMessage(objects={"arm": ObjectControl(values=[0.1, 0.2])}, steps=3))
    assert not carries_worlds(frame)


def test_a_control_that_only_reads_every_world_carries_worlds():
    assert carries_worlds(encode_world_control(3, np.zeros(0)))


def test_the_answer_for_every_world_is_the_frame_protobuf_writes_with_world_0s_time_in_sim_vars():
    sensors, times = np.arange(4.0).reshape(2, 2), np.array([0.25, 0.5])
    expected = pb.SensorMessage(messageType=pb.SensorMessageType, simVars=pb.SensorMessage.SimulationVariables(
        simulatedTime=0.25), worldSensors=sensors.ravel(), worldTimes=times)
    assert encode_world_sensors(sensors, times) == expected.SerializeToString(deterministic=True)


def test_the_answer_for_every_world_reads_back_its_readings_and_times():
    sensors, times = read_world_sensors(encode_world_sensors(np.arange(4.0).reshape(2, 2), np.array([0.0, 1.0])))
    assert sensors.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert times.tolist() == [0.0, 1.0]


def test_an_error_answer_raises_remote_error_with_the_servers_code_and_text():
    frame = encode(ErrorMessage(code=ErrorCode.CONTROL_MISMATCH, text="worldControls has 3 numbers"))
    with pytest.raises(RemoteError, match="worldControls has 3 numbers") as raised:
        read_world_sensors(frame)
    assert raised.value.code == ErrorCode.CONTROL_MISMATCH


def test_a_frame_cut_inside_a_field_is_refused_as_malformed():
    frame = encode_world_control(2, np.arange(4.0))
    with pytest.raises(ProtocolError, match="not a valid Control message: truncated or corrupt") as raised:
        read_world_control(frame[:-3])
    assert raised.value.code == ErrorCode.MALFORMED_FRAME


def test_a_control_for_every_world_from_arrays_is_the_shared_vector():
    frame = encode_world_control(2, np.array([[0.5, 1.0], [-0.25, 0.0]]), steps=5, resets=[1],
                                 qpos=np.array([0.125]), qvel=np.array([-1.5]))
    assert frame == (VECTORS / "control_worlds.bin").read_bytes()


def test_the_answer_from_arrays_is_the_shared_vector():
    frame = encode_world_sensors(np.array([[0.5, 2.5], [0.125, -1.5]]), np.array([0.01, 0.0]))
    assert frame == (VECTORS / "sensor_worlds.bin").read_bytes()


def test_the_shared_vector_reads_back_as_arrays():
    control = read_world_control((VECTORS / "control_worlds.bin").read_bytes())
    assert (control.worlds, control.steps, control.resets.tolist()) == (2, 5, [1])
    assert control.controls.tolist() == [0.5, 1.0, -0.25, 0.0]
    assert (control.qpos.tolist(), control.qvel.tolist()) == ([0.125], [-1.5])


def test_an_answer_whose_readings_do_not_divide_among_its_worlds_is_refused_naming_both():
    frame = pb.SensorMessage(messageType=pb.SensorMessageType, worldSensors=[1.0, 2.0, 3.0],
                             worldTimes=[0.0, 0.0]).SerializeToString()
    with pytest.raises(ProtocolError, match="answered with 3 readings, 2 times .* for 2 worlds"):
        read_world_sensors(frame)


def test_an_answers_image_of_an_unknown_kind_is_refused_naming_it():
    frame = pb.SensorMessage(messageType=pb.SensorMessageType, worldTimes=[0.0], imageWorlds=[0], worldImages=[
        pb.Image(camera="eye", kind="infrared", width=1, height=1, data=b"\0")]).SerializeToString()
    with pytest.raises(ProtocolError, match="camera 'eye' is of unknown kind 'infrared'"):
        read_world_answer_with_images(frame)


def test_an_answers_images_that_do_not_fill_their_worlds_pictures_are_refused_naming_the_sizes():
    frame = pb.SensorMessage(messageType=pb.SensorMessageType, worldTimes=[0.0, 0.0], imageWorlds=[0, 1], worldImages=[
        pb.Image(camera="eye", kind="depth", width=2, height=1, data=bytes(12))]).SerializeToString()
    with pytest.raises(ProtocolError, match="the depth images of camera 'eye' have 12 bytes; 2 of 2x1 take 16"):
        read_world_answer_with_images(frame)


def test_an_answers_images_read_as_stacks_of_their_worlds_pictures():
    pixels = np.arange(2 * 1 * 2 * 3, dtype=np.uint8)
    frame = pb.SensorMessage(messageType=pb.SensorMessageType, worldTimes=[0.0, 0.0, 0.0], imageWorlds=[0, 2],
                             worldImages=[pb.Image(camera="eye", kind="rgb", width=2, height=1,
                                                   data=pixels.tobytes())]).SerializeToString()
    _, _, _, [stack], worlds = read_world_answer_with_images(frame)
    assert (stack.camera, stack.kind, worlds.tolist()) == ("eye", "rgb", [0, 2])
    np.testing.assert_array_equal(stack.pixels, pixels.reshape(2, 1, 2, 3))
