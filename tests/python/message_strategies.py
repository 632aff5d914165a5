"""Hypothesis strategies for valid coupler messages of every kind.

`valid_messages(numbers)` draws any message the codec must carry unchanged:
every kind, every value type as a sensor reading, the deprecated control
lists, events, the `steps` and "worlds" extensions, reset states, unknown
error codes and versions, and names in any script. The numbers strategy decides which doubles appear, so a
test that compares messages (NaN is unequal to itself) and one that compares
frames can share the rest.
"""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st

from coupler.wire.messages import (
    ControlField,
    ControlMessage,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    Message,
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

__all__ = ["all_numbers", "as_decoded", "comparable_numbers", "handshakes", "valid_messages"]

# Infinities and -0.0 included: both must cross the wire unchanged.
comparable_numbers = st.floats(allow_nan=False)
# NaNs too, with whatever payload Hypothesis gives them: frames compare them, messages cannot.
all_numbers = st.floats()

names = st.text(max_size=8)
int32 = st.integers(-(2**31), 2**31 - 1)
uint32 = st.integers(0, 2**32 - 1)
value_types = st.sampled_from(list(ValueType))
_vector_types = [t for t in ValueType if t.width == 3]
# ACTUATOR_INPUT and the mocap types are control types only: no Sensor carries them.
_CONTROL_ONLY = (ValueType.ACTUATOR_INPUT, ValueType.MOCAP_POSITION, ValueType.MOCAP_QUATERNION)
_scalar_types = [t for t in ValueType if t.width == 1
                 and t not in (ValueType.MULTIPLE, ValueType.ACTIVATED, *_CONTROL_ONLY)]
_legacy_fields = [f for f in ControlField if f != ControlField.VALUES]


def _sensors(numbers: st.SearchStrategy[float]) -> st.SearchStrategy[Sensor]:
    return st.one_of(
        st.builds(Sensor, st.sampled_from(_vector_types), st.tuples(numbers, numbers, numbers)),
        st.builds(Sensor, st.sampled_from(_scalar_types), st.tuples(numbers)),
        st.builds(Sensor, st.just(ValueType.ACTIVATED), st.sampled_from([(0.0,), (1.0,)])),
    )


def _sensor_messages(numbers: st.SearchStrategy[float]) -> st.SearchStrategy[SensorMessage]:
    readings = st.lists(_sensors(numbers), max_size=3)
    joint_values = st.lists(numbers, max_size=7)
    return st.builds(
        SensorMessage,
        objects=st.dictionaries(
            names,
            st.builds(
                ObjectSensors,
                angles=joint_values,
                angular_velocities=joint_values,
                torques=joint_values,
                forces=st.lists(st.tuples(numbers, numbers, numbers), max_size=3),
                object_sensors=readings,
                sensors=st.dictionaries(names, readings, max_size=3),
            ),
            max_size=3,
        ),
        simulated_time=numbers,
        world_sensors=st.lists(numbers, max_size=8),
        world_times=st.lists(numbers, max_size=3),
        world_data=st.lists(numbers, max_size=3),
    )


def _control_messages(numbers: st.SearchStrategy[float]) -> st.SearchStrategy[ControlMessage]:
    events = st.dictionaries(names, st.booleans(), max_size=2)
    # An empty deprecated list is not written, so it reads back as `values`:
    # only a non-empty one names its field on the wire.
    current = st.builds(ObjectControl, values=st.lists(numbers, max_size=8), events=events)
    legacy = st.builds(
        ObjectControl,
        values=st.lists(numbers, min_size=1, max_size=8),
        events=events,
        field=st.sampled_from(_legacy_fields),
    )
    return st.builds(
        ControlMessage,
        objects=st.dictionaries(names, st.one_of(current, legacy), max_size=3),
        steps=st.integers(0, 2**32 - 1),
        worlds=uint32,
        world_controls=st.lists(numbers, max_size=8),
        reset_worlds=st.lists(uint32, max_size=3),
        reset_qpos=st.lists(numbers, max_size=4),
        reset_qvel=st.lists(numbers, max_size=4),
    )


def _handshake_messages(numbers: st.SearchStrategy[float]) -> st.SearchStrategy[HandshakeMessage]:
    type_lists = st.lists(value_types, max_size=4)
    ranges = st.builds(Range, min=numbers, max=numbers, limited=st.booleans())
    return st.builds(
        HandshakeMessage,
        objects=st.dictionaries(
            names,
            st.builds(
                ObjectDescription,
                controls=st.lists(names, max_size=4),
                control_types=type_lists,
                joint_sensors=st.lists(names, max_size=4),
                joint_sensor_types=type_lists,
                control_events=st.dictionaries(names, value_types, max_size=2),
                sensors=st.dictionaries(names, type_lists, max_size=3),
                object_sensors=type_lists,
                control_ranges=st.lists(ranges, max_size=4),
                joint_limits=st.lists(ranges, max_size=4),
                sensor_units=st.dictionaries(names, names, max_size=2),
                joint_types=type_lists,
                control_meanings=st.lists(names, max_size=4),
            ),
            max_size=3,
        ),
        time_step=numbers,
        version=int32,
        # None is derived on encoding and reads back set.
        control_type=st.one_of(st.none(), value_types),
        # None is a Click server's handshake; an empty ServerInfo is still a coupler server's.
        server=st.one_of(st.none(), st.builds(ServerInfo, name=names, version=names,
                                              extensions=st.lists(names, max_size=3))),
        worlds=uint32,
        keyframes=st.lists(st.one_of(st.just(""), names), max_size=3),
    )


# Handshakes alone, for what is built from one (a scene's Controls and layouts).
handshakes = _handshake_messages(comparable_numbers)


def valid_messages(numbers: st.SearchStrategy[float] = comparable_numbers) -> st.SearchStrategy[Message]:
    return st.one_of(
        st.builds(HandshakeInitMessage, version=int32),
        _handshake_messages(numbers),
        _control_messages(numbers),
        _sensor_messages(numbers),
        st.builds(SensorRequestMessage),
        st.builds(ResetMessage, qpos=st.lists(numbers, max_size=4), qvel=st.lists(numbers, max_size=4),
                  keyframe=st.one_of(st.just(""), names), keyframe_index=st.one_of(st.none(), uint32)),
        st.builds(ErrorMessage, code=int32, text=st.text()),
    )


def as_decoded(message: Message) -> Message:
    """The message a decoder gives back: a handshake's unset control type is derived as encoding derives it."""
    if not isinstance(message, HandshakeMessage) or message.control_type is not None:
        return message
    types = {t for described in message.objects.values() for t in described.control_types}
    return dataclasses.replace(message, control_type=types.pop() if len(types) == 1 else ValueType.MULTIPLE)
