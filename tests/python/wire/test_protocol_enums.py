"""The protocol's enums and constants, as Python sees them: built from the C++ library's, spelled as Python spells
enum members, with each value type's width and unit."""

from __future__ import annotations

import pickle

from coupler.wire.messages import (
    EXTENSION_SHARED_MEMORY,
    EXTENSION_VALUE_TYPES,
    IMAGE_BYTES_PER_PIXEL,
    IMAGE_KINDS,
    ErrorCode,
    MessageType,
    ValueType,
)


def test_enum_members_are_spelled_in_upper_case_words_split_before_digits():
    assert ValueType.ANGULAR_VELOCITY_1D == 1
    assert ValueType.ACCELERATION_3D == 6
    assert ValueType.RPY == 4
    assert MessageType.SENSOR_REQUEST == 6
    assert ErrorCode.VERSION_NOT_SUPPORTED == 0


def test_a_value_type_has_its_width_and_unit():
    assert (ValueType.FORCE_3D.width, ValueType.FORCE_3D.unit) == (3, "N")
    assert (ValueType.TORQUE_1D.width, ValueType.TORQUE_1D.unit) == (1, "N m")
    assert (ValueType.ANGULAR_ACCELERATION_3D.width, ValueType.ANGULAR_ACCELERATION_3D.unit) == (3, "rad/s^2")


def test_a_value_type_without_a_fixed_unit_has_an_empty_one():
    assert [t.name for t in ValueType if not t.unit] == ["ACTIVATED", "MULTIPLE", "ACTUATOR_INPUT", "NUMBER",
                                                           "MOCAP_QUATERNION"]


def test_enum_members_survive_pickling_as_themselves():
    assert pickle.loads(pickle.dumps(ValueType.MOCAP_POSITION)) is ValueType.MOCAP_POSITION
    assert pickle.loads(pickle.dumps(ErrorCode.SESSION_ENDED)) is ErrorCode.SESSION_ENDED


def test_extensions_and_image_kinds_are_the_protocols_names():
    assert (EXTENSION_SHARED_MEMORY, EXTENSION_VALUE_TYPES) == ("shm", "value-types")
    assert IMAGE_KINDS == ("rgb", "depth", "segmentation")
    assert IMAGE_BYTES_PER_PIXEL == {"rgb": 3, "depth": 4, "segmentation": 4}
