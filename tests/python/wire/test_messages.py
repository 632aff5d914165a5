"""The message dataclasses, made from the C++ structs' fields: their defaults, their fields' order, and what the
codec makes of values of the wrong kind in them."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from coupler.wire.codec import decode, encode
from coupler.wire.errors import Error
from coupler.wire.messages import (
    PROTOCOL_VERSION,
    ControlField,
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    Image,
    ImageRequest,
    ObjectControl,
    ObjectDescription,
    ObjectSensors,
    Range,
    Sensor,
    SensorMessage,
    SharedSlice,
    ValueType,
)


def test_defaults_are_the_cpp_structs_defaults_with_their_enum_members():
    assert HandshakeInitMessage().version == PROTOCOL_VERSION
    assert ErrorMessage().code is ErrorCode.VERSION_NOT_SUPPORTED
    assert ObjectControl().field is ControlField.VALUES
    assert Sensor().type is ValueType.ANGLE
    assert HandshakeMessage().control_type is None and ImageRequest().every is None


def test_fields_are_positional_in_the_cpp_structs_order():
    assert Range(-1.0, 2.0, True) == Range(min=-1.0, max=2.0, limited=True)
    assert [f.name for f in dataclasses.fields(Sensor)] == ["type", "value"]
    assert [f.name for f in dataclasses.fields(ObjectControl)] == ["values", "events", "field"]


def test_each_message_gets_its_own_lists_and_dicts():
    first, second = ControlMessage(), ControlMessage()
    first.objects["arm"] = ObjectControl([1.0])
    first.image_worlds.append(0)
    assert second.objects == {} and second.image_worlds == []


def test_a_message_changed_in_place_is_encoded_as_changed():
    message = ControlMessage(objects={"arm": ObjectControl([1.0])})
    message.objects["arm"].values.append(2.0)
    message.objects["arm"].events["grip"] = True
    assert decode(encode(message)) == message


def test_a_reading_and_a_joint_force_given_as_lists_read_back_as_tuples():
    sent = ObjectSensors(angles=[0.5], forces=[[4.0, 5.0, 6.0]], object_sensors=[Sensor(ValueType.POSITION, [1.0, 2.0, 3.0])])
    read = decode(encode(SensorMessage(objects={"a": sent}))).objects["a"]
    assert (read.object_sensors[0].value, read.forces) == ((1.0, 2.0, 3.0), [(4.0, 5.0, 6.0)])


def test_a_message_pickles_as_itself():
    message = ControlMessage(objects={"arm": ObjectControl([1.0], {"grip": True})}, steps=3)
    assert pickle.loads(pickle.dumps(message)) == message


def test_an_images_pixels_are_left_out_of_its_repr():
    assert "data" not in repr(Image(camera="eye", data=b"\x00" * 1000))


def test_pixels_resolved_out_of_shared_memory_are_sent_as_where_they_lie():
    where = SharedSlice(slot=1, sequence=7, offset=64, length=12)
    message = SensorMessage(images=[Image("eye", "rgb", 2, 2, 0.5, np.zeros((2, 2, 3), np.uint8), where)])
    [image] = decode(encode(message)).images
    assert (image.data, image.shared) == (b"", where)


def test_pixels_given_as_an_array_are_sent_as_their_bytes_in_c_order():
    pixels = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)[:, ::2]  # a view with gaps between its pixels
    [image] = decode(encode(SensorMessage(images=[Image("eye", "rgb", 2, 2, 0.5, pixels)]))).images
    assert image.data == pixels.tobytes()


@pytest.mark.parametrize("message", [
    ControlMessage(objects={"arm": ObjectControl(["one"])}),
    ControlMessage(images=5),
    ControlMessage(objects=[]),
    HandshakeMessage(cameras=["eye"]),
], ids=["text-for-a-number", "number-for-a-list", "list-for-a-dict", "list-for-the-cameras-by-name"])
def test_a_field_of_the_wrong_kind_is_refused_naming_the_message(message):
    with pytest.raises(Error, match=f"cannot encode {type(message).__name__}: a field holds a value of the wrong type"):
        encode(message)


def test_a_joints_types_are_its_joint_types_or_the_objects_joint_sensor_types_without_them():
    angle, speed = ValueType.ANGLE, ValueType.ANGULAR_VELOCITY_1D
    slide = [ValueType.LINEAR_POSITION, ValueType.LINEAR_VELOCITY]
    described = ObjectDescription(joint_sensors=["slide", "hinge"], joint_sensor_types=[angle, speed],
                                  joint_types=slide + [angle, speed])
    assert (described.types_of_joint(0), described.types_of_joint(1)) == (slide, [angle, speed])
    assert ObjectDescription(joint_sensors=["hinge"], joint_sensor_types=[angle]).types_of_joint(0) == [angle]
