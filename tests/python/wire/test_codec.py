"""The Python codec: what it writes, what it rejects and how it names the problem."""

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coupler.wire.codec import decode, encode
from coupler.wire.errors import Error, ProtocolError
from coupler.wire.messages import (
    ControlField,
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    MessageType,
    ObjectControl,
    ObjectDescription,
    ObjectSensors,
    Range,
    ResetMessage,
    Sensor,
    SensorMessage,
    SensorRequestMessage,
    ServerInfo,
    ValueType,
)
from message_strategies import as_decoded, valid_messages


def field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field (numbers below 16, payloads below 128 bytes)."""
    return bytes([number << 3 | 2, len(payload)]) + payload


def doubles(number: int, values: list[float]) -> bytes:
    return field(number, struct.pack(f"<{len(values)}d", *values))


def entry(key: bytes, value: bytes) -> bytes:
    """One map entry: key field 1, value field 2."""
    return field(1, key) + field(2, value)


# ---- Encoding rules


def test_every_frame_starts_with_its_message_type():
    assert encode(ResetMessage()) == b"\x08\x04"
    assert encode(SensorRequestMessage()) == b"\x08\x06"


def test_a_handshake_init_carries_the_current_version():
    assert encode(HandshakeInitMessage()) == b"\x10\x01"  # messageType 0 is not written


def test_the_control_type_is_the_one_all_controls_share():
    robot = ObjectDescription(controls=["a", "b"], control_types=[ValueType.TORQUE_1D] * 2)
    assert decode(encode(HandshakeMessage(objects={"r": robot}))).control_type == ValueType.TORQUE_1D


def test_the_control_type_is_multiple_when_controls_differ():
    robot = ObjectDescription(controls=["a", "b"], control_types=[ValueType.ANGLE, ValueType.TORQUE_1D])
    assert decode(encode(HandshakeMessage(objects={"r": robot}))).control_type == ValueType.MULTIPLE


def test_the_control_type_is_multiple_without_controls():
    assert decode(encode(HandshakeMessage())).control_type == ValueType.MULTIPLE


def test_an_explicit_control_type_is_kept():
    robot = ObjectDescription(controls=["a"], control_types=[ValueType.ANGLE])
    message = HandshakeMessage(objects={"r": robot}, control_type=ValueType.FORCE_3D)
    assert decode(encode(message)).control_type == ValueType.FORCE_3D


def test_map_entries_are_written_sorted_by_key():
    ab = ControlMessage(objects={"a": ObjectControl([1.0]), "b": ObjectControl([2.0])})
    ba = ControlMessage(objects={"b": ObjectControl([2.0]), "a": ObjectControl([1.0])})
    assert encode(ab) == encode(ba)
    assert encode(ab).index(b"\x0a\x01a") < encode(ab).index(b"\x0a\x01b")


def test_the_control_field_selects_which_list_carries_the_values():
    for control_field, number in [
        (ControlField.ANGLES, 1),
        (ControlField.ANGULAR_VELOCITIES, 2),
        (ControlField.TORQUES, 3),
        (ControlField.VALUES, 5),
    ]:
        frame = encode(ControlMessage(objects={"r": ObjectControl([0.5], field=control_field)}))
        assert frame == b"\x08\x02" + field(2, entry(b"r", doubles(number, [0.5])))


def test_the_steps_extension_is_field_100_and_absent_unless_set():
    plain = ControlMessage(objects={"r": ObjectControl([1.0])})
    assert encode(ControlMessage(objects=plain.objects, steps=10)) == encode(plain) + b"\xa0\x06\x0a"
    assert decode(encode(plain)).steps == 0


def test_a_handshake_without_server_info_reads_back_as_a_click_servers_announcing_nothing():
    decoded = decode(encode(HandshakeMessage(objects={"r": ObjectDescription(controls=["a"])})))
    assert decoded.server is None
    assert not decoded.supports("steps")


def test_an_empty_server_info_is_still_sent_and_reads_back_present():
    decoded = decode(encode(HandshakeMessage(server=ServerInfo())))
    assert decoded.server == ServerInfo()


def test_the_server_info_is_handshake_field_100():
    plain = HandshakeMessage()
    told = HandshakeMessage(server=ServerInfo(name="c"))
    assert encode(told) == encode(plain) + b"\xa2\x06\x03\x0a\x01c"


def test_a_server_supports_exactly_the_extensions_it_announces():
    handshake = decode(encode(HandshakeMessage(server=ServerInfo("coupler", "1", ["goodbye"]))))
    assert handshake.supports("goodbye")
    assert not handshake.supports("steps")


def test_ranges_keep_their_order_and_an_unlimited_one_keeps_its_place():
    ranges = [Range(-1.0, 1.0, True), Range(), Range(0.0, 0.3, True)]
    described = ObjectDescription(controls=["a", "b", "c"], control_ranges=ranges, joint_limits=ranges[::-1])
    decoded = decode(encode(HandshakeMessage(objects={"r": described}))).objects["r"]
    assert decoded.control_ranges == ranges
    assert decoded.joint_limits == ranges[::-1]


def test_zero_time_step_and_simulated_time_leave_their_sub_messages_out():
    # As Click writes them, so Click's frames re-encode byte for byte.
    assert encode(SensorMessage()) == b"\x08\x03"
    assert encode(HandshakeMessage()) == b"\x08\x01\x10\x01\x18\x0f"


def test_a_negative_zero_time_survives_the_round_trip():
    frame = encode(SensorMessage(simulated_time=-0.0))
    assert frame == b"\x08\x03" + field(4, b"\x09" + struct.pack("<d", -0.0))
    assert encode(decode(frame)) == frame


def test_an_activated_sensor_is_a_bool_and_reads_back_as_one_or_zero():
    on = SensorMessage(objects={"r": ObjectSensors(object_sensors=[Sensor(ValueType.ACTIVATED, (1.0,))])})
    frame = encode(on)
    assert frame == b"\x08\x03" + field(3, entry(b"r", field(4, b"\x30\x01")))
    assert decode(frame).objects["r"].object_sensors == [Sensor(ValueType.ACTIVATED, (1.0,))]


def test_a_zero_sensor_value_is_still_written():
    frame = encode(SensorMessage(objects={"r": ObjectSensors(object_sensors=[Sensor(ValueType.ANGLE, (0.0,))])}))
    assert decode(frame).objects["r"].object_sensors == [Sensor(ValueType.ANGLE, (0.0,))]


def test_the_encoder_refuses_a_sensor_value_with_the_wrong_count():
    with pytest.raises(Error, match="a Position value has 3 numbers, not 1"):
        encode(SensorMessage(objects={"a": ObjectSensors(object_sensors=[Sensor(ValueType.POSITION, (1.0,))])}))


def test_the_encoder_refuses_a_joint_force_without_three_numbers():
    with pytest.raises(Error, match="joint force sensor: a Force3D value has 3 numbers, not 2"):
        encode(SensorMessage(objects={"a": ObjectSensors(forces=[(1.0, 2.0)])}))


def test_the_encoder_refuses_a_multiple_sensor():
    with pytest.raises(Error, match="sensor type Multiple cannot be sent"):
        encode(SensorMessage(objects={"a": ObjectSensors(object_sensors=[Sensor(ValueType.MULTIPLE, (1.0,))])}))


def test_the_encoder_reports_a_number_out_of_range_as_a_coupler_error():
    with pytest.raises(Error, match="cannot encode ControlMessage"):
        encode(ControlMessage(steps=2**64))  # steps is uint64 on the wire


def test_the_encoder_refuses_what_is_not_a_message():
    with pytest.raises(TypeError, match="dict is not a coupler message"):
        encode({})


# ---- Decoding: what it keeps, what it rejects


def test_an_empty_frame_is_a_handshake_init_of_undefined_version():
    assert decode(b"") == HandshakeInitMessage(version=0)


def test_an_unknown_version_is_kept_for_the_protocol_layer_to_refuse():
    assert decode(b"\x10\x07") == HandshakeInitMessage(version=7)


def test_a_known_error_code_reads_back_as_an_error_code_and_an_unknown_one_as_an_int():
    assert decode(encode(ErrorMessage(code=103, text="busy"))).code is ErrorCode.SERVER_BUSY
    assert decode(encode(ErrorMessage(code=999, text="from a newer peer"))).code == 999


def test_bytes_that_are_not_protobuf_are_rejected():
    with pytest.raises(ProtocolError, match="frame of 4 bytes is not a protobuf message") as caught:
        decode(b"\xff\xff\xff\xff")
    assert caught.value.code == ErrorCode.MALFORMED_FRAME


def test_an_unknown_message_type_is_named():
    with pytest.raises(ProtocolError, match="unknown message type 42") as caught:
        decode(b"\x08\x2a")
    assert caught.value.code == ErrorCode.UNEXPECTED_MESSAGE


def test_a_truncated_frame_is_named_with_the_kind_it_claims_to_be():
    frame = encode(SensorMessage(objects={"arm": ObjectSensors(angles=[1.0, 2.0, 3.0])}, simulated_time=1.0))
    with pytest.raises(ProtocolError, match="is not a valid Sensor message: truncated or corrupt") as caught:
        decode(frame[:-5])
    assert caught.value.code == ErrorCode.MALFORMED_FRAME


def test_a_frame_that_fails_as_its_kind_names_the_kind():
    # Invalid UTF-8 in a string: fine for the generic header, not for an ErrorMessage.
    with pytest.raises(ProtocolError, match="frame of 7 bytes is not a valid Error message$"):
        decode(b"\x08\x05" + field(3, b"\xff\xfe\xfd"))


def test_a_control_object_with_two_value_lists_is_rejected():
    frame = b"\x08\x02" + field(2, entry(b"robot1", doubles(1, [1.0]) + doubles(5, [1.0])))
    with pytest.raises(ProtocolError, match="control object 'robot1' sets 2 of values/angles"):
        decode(frame)


def test_a_vector_sensor_without_three_numbers_is_rejected():
    sensor = field(4, doubles(1, [1.0, 2.0]))
    frame = b"\x08\x03" + field(3, entry(b"box", field(4, sensor)))
    with pytest.raises(ProtocolError, match="sensor object 'box': a vector has 2 numbers, not 3"):
        decode(frame)


def test_a_sensor_without_a_value_is_rejected():
    frame = b"\x08\x03" + field(3, entry(b"box", field(4, b"")))
    with pytest.raises(ProtocolError, match="sensor object 'box': a sensor carries no value"):
        decode(frame)


def test_an_unknown_value_type_in_a_handshake_is_named():
    frame = b"\x08\x01" + field(4, entry(b"robot1", b"\x40\x4d"))  # controlTypesInOrder = 77
    with pytest.raises(ProtocolError, match="unknown value type 77 in handshake object 'robot1'"):
        decode(frame)


def test_an_unknown_value_type_of_a_named_sensor_is_named():
    sensors = entry(b"imu", field(1, b"\x63"))  # types = [99]
    frame = b"\x08\x01" + field(4, entry(b"robot1", field(4, sensors)))
    with pytest.raises(ProtocolError, match="unknown value type 99 in handshake object 'robot1' sensor 'imu'"):
        decode(frame)


def test_a_map_entry_with_a_field_of_its_own_unknown_is_read_skipping_that_field():
    frame = b"\x08\x02" + field(2, entry(b"arm", doubles(5, [1.0])) + b"\x18\x05")
    assert decode(frame) == ControlMessage(objects={"arm": ObjectControl(values=[1.0])})


def test_a_map_entry_whose_key_has_another_wire_type_reads_as_the_empty_key():
    frame = b"\x08\x02" + field(2, b"\x09" + struct.pack("<d", 1.0))  # key as a fixed64
    assert decode(frame) == ControlMessage(objects={"": ObjectControl()})


def test_a_later_entry_for_the_same_key_wins_even_beside_an_entry_with_an_unknown_field():
    first = entry(b"arm", doubles(5, [1.0])) + b"\x18\x05"
    frame = b"\x08\x02" + field(2, first) + field(2, entry(b"arm", doubles(5, [2.0])))
    assert decode(frame) == ControlMessage(objects={"arm": ObjectControl(values=[2.0])})


def test_a_key_is_written_before_the_keys_it_is_a_prefix_of():
    # As a byte-wise comparison orders them.
    frame = encode(ControlMessage(objects={"ab": ObjectControl(), "a": ObjectControl(), "": ObjectControl()}))
    assert frame == b"\x08\x02" + b"".join(field(2, entry(key, b"")) for key in (b"", b"a", b"ab"))


def test_nested_keys_that_prefix_each_other_are_written_in_byte_order_too():
    sensors = ObjectSensors(sensors={"imu2": [], "imu": []})
    frame = encode(SensorMessage(objects={"arm": sensors, "arm_left": ObjectSensors()}, simulated_time=0.5))
    named = field(6, entry(b"imu", b"")) + field(6, entry(b"imu2", b""))
    expected_objects = field(3, entry(b"arm", named)) + field(3, entry(b"arm_left", b""))
    assert frame == b"\x08\x03" + expected_objects + field(4, b"\x09" + struct.pack("<d", 0.5))


def test_an_unknown_control_type_is_named():
    with pytest.raises(ProtocolError, match="unknown value type 13 in handshake controlType"):
        decode(b"\x08\x01\x18\x0d")


@given(st.binary(max_size=256))
@settings(max_examples=300, deadline=None)
def test_decoding_arbitrary_bytes_raises_nothing_but_protocol_error(frame):
    try:
        decode(frame)
    except ProtocolError:
        pass


@given(st.sampled_from(list(MessageType)), st.binary(max_size=256))
@settings(max_examples=500, deadline=None)
def test_decoding_arbitrary_bytes_of_each_kind_raises_nothing_but_protocol_error(message_type, body):
    # The type first, so the bytes reach each kind's own reader.
    try:
        decode(bytes([0x08, message_type]) + body)
    except ProtocolError:
        pass


# ---- Round trips of random valid messages

messages = valid_messages()


@given(messages)
@settings(max_examples=200, deadline=None)
def test_any_valid_message_survives_encode_and_decode(message):
    assert decode(encode(message)) == as_decoded(message)


@given(messages)
@settings(max_examples=200, deadline=None)
def test_any_frame_of_the_encoder_re_encodes_byte_for_byte(message):
    frame = encode(message)
    assert encode(decode(frame)) == frame


def test_a_handshake_carries_what_each_control_drives():
    described = ObjectDescription(controls=["shoulder_servo", "thruster"],
                                  control_types=[ValueType.ANGLE, ValueType.FORCE_1D],
                                  control_targets=["shoulder", ""])
    decoded = decode(encode(HandshakeMessage(objects={"arm": described}, time_step=0.01)))
    assert decoded.objects["arm"].control_targets == ["shoulder", ""]


def test_control_targets_of_another_count_than_the_controls_are_refused():
    described = ObjectDescription(controls=["a", "b"], control_types=[ValueType.ANGLE] * 2, control_targets=["a"])
    with pytest.raises(ProtocolError, match="handshake object 'arm' has 2 controls but 1 controlTargets"):
        decode(encode(HandshakeMessage(objects={"arm": described}, time_step=0.01)))


def test_a_decoded_handshake_lists_objects_events_and_sensors_in_name_order():
    names = ["zeta", "alpha", "mid", "beta", "left_base", "right_base", "door"]
    described = ObjectDescription(control_events={n: ValueType.ACTIVATED for n in names},
                                  sensors={n: [ValueType.POSITION] for n in names})
    decoded = decode(encode(HandshakeMessage(objects={n: described for n in names}, time_step=0.01)))
    assert list(decoded.objects) == sorted(names)
    for o in decoded.objects.values():
        assert list(o.control_events) == sorted(names) and list(o.sensors) == sorted(names)
def test_control_ranges_and_joint_limits_survive_a_round_trip():
    described = ObjectDescription(
        controls=["a", "b"], control_types=[ValueType.ANGLE, ValueType.ANGLE], joint_sensors=["a"],
        control_ranges=[Range(-1.0, 2.0, True), Range()], joint_limits=[Range(0.0, 0.5, True)],
    )
    decoded = decode(encode(HandshakeMessage(objects={"bot": described})))
    assert decoded.objects["bot"].control_ranges == [Range(-1.0, 2.0, True), Range()]
    assert decoded.objects["bot"].joint_limits == [Range(0.0, 0.5, True)]


def test_a_reset_state_survives_a_round_trip():
    message = ResetMessage(qpos=[0.5, -1.0], qvel=[2.0])
    assert decode(encode(message)) == message
