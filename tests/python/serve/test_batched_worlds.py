"""A batched server (`coupler serve --worlds N`): one Control and one Sensor for every world; world 0 for the rest."""

from __future__ import annotations

import time

import numpy as np
import pytest

pytest.importorskip("mujoco")

from coupler.controller.session import Session  # noqa: E402
from coupler.controller.world_session import WorldSession  # noqa: E402
from coupler.wire.codec import encode  # noqa: E402
from coupler.wire.errors import Error, ExtensionNotSupportedError, RemoteError  # noqa: E402
from coupler.wire.messages import EXTENSION_WORLDS, ErrorCode  # noqa: E402
from coupler.wire.world_frames import encode_world_control, read_world_sensors  # noqa: E402
from peers import coupler_server, pclick_python, run  # noqa: E402

WORLDS = 3
ARM_TIME_STEP = 0.002


@pytest.fixture(scope="module")
def batched_address(tmp_path_factory):
    address = f"ipc://{tmp_path_factory.mktemp('worlds') / 'server.sock'}"
    with coupler_server(address, "--scene", "arm", "--worlds", str(WORLDS), "--threads", "2"):
        yield address


@pytest.fixture
def worlds(batched_address):
    with Session(batched_address, reset=True) as session:
        batch = WorldSession(session)
        batch.send(resets=range(WORLDS))  # every world back to the start
        batch.receive()
        yield batch


def test_the_handshake_announces_the_worlds_extension_and_how_many_worlds(worlds):
    handshake = worlds.session.handshake
    assert handshake.supports(EXTENSION_WORLDS)
    assert handshake.worlds == WORLDS


def test_one_control_steps_every_world_with_its_own_controls(worlds):
    controls = np.zeros((WORLDS, worlds.control_width))
    controls[1, 0] = 1.0
    worlds.send(controls, steps=4)
    sensors, times = worlds.receive()
    assert times.tolist() == pytest.approx([4 * ARM_TIME_STEP] * WORLDS)
    np.testing.assert_array_equal(sensors[0], sensors[2])
    assert not np.array_equal(sensors[0], sensors[1])


def test_a_reset_world_restarts_in_the_same_round_trip_as_the_others_step(worlds):
    controls = np.zeros((WORLDS, worlds.control_width))
    worlds.send(controls, steps=2)
    worlds.receive()
    worlds.send(controls, steps=2, resets=[1])
    _, times = worlds.receive()
    assert times.tolist() == pytest.approx([0.008, 0.0, 0.008])


def test_an_ordinary_client_sees_world_0_as_the_single_scene(worlds):
    controls = np.zeros((WORLDS, worlds.control_width))
    controls[0, 0] = 0.5
    worlds.send(controls, steps=3)
    sensors, _ = worlds.receive()
    values, _ = worlds.flat.sensors.read(encode(worlds.session.sensors().message))
    np.testing.assert_array_equal(values, sensors[0])


def test_an_ordinary_control_steps_world_0_alone(worlds):
    worlds.session.step(worlds.session.controls())
    worlds.send()  # no controls: read every world without stepping
    _, times = worlds.receive()
    assert times.tolist() == pytest.approx([ARM_TIME_STEP, 0.0, 0.0])


def test_controls_of_the_wrong_size_are_refused_in_one_line_and_the_server_keeps_serving(worlds):
    client = worlds.session.client
    client.send_frame(encode_world_control(WORLDS, np.zeros(5)))
    with pytest.raises(RemoteError, match="worldControls has 5 numbers; 3 worlds of") as raised:
        read_world_sensors(client.receive_frame())
    assert raised.value.code == ErrorCode.CONTROL_MISMATCH
    worlds.send(np.zeros((WORLDS, worlds.control_width)))
    _, times = worlds.receive()
    assert times.tolist() == pytest.approx([ARM_TIME_STEP] * WORLDS)


def test_a_control_value_that_is_not_finite_is_refused_naming_its_world(worlds):
    controls = np.zeros((WORLDS, worlds.control_width))
    controls[2, 1] = np.nan
    worlds.send(controls)
    with pytest.raises(RemoteError, match="number 1 of world 2 is nan"):
        worlds.receive()


def test_a_control_for_another_number_of_worlds_is_refused(worlds):
    client = worlds.session.client
    client.send_frame(encode_world_control(WORLDS + 1, np.zeros(0)))
    with pytest.raises(RemoteError, match=f"a Control for {WORLDS + 1} worlds; this server has {WORLDS}"):
        read_world_sensors(client.receive_frame())


def test_a_reset_of_a_world_the_server_does_not_have_is_refused(worlds):
    client = worlds.session.client  # past the WorldSession, which refuses it before sending
    client.send_frame(encode_world_control(WORLDS, np.zeros(0), resets=[WORLDS]))
    with pytest.raises(RemoteError, match=f"worlds below {WORLDS}"):
        read_world_sensors(client.receive_frame())


@pytest.mark.parametrize("world", [WORLDS, -1])
def test_a_world_session_names_a_reset_world_the_server_does_not_have_before_sending(worlds, world):
    with pytest.raises(Error, match=f"{world}") as refused:
        worlds.send(resets=[world])
    assert not isinstance(refused.value, RemoteError)
    assert "\n" not in str(refused.value)
    worlds.send()
    _, times = worlds.receive()  # nothing was sent: the session goes on
    assert len(times) == WORLDS


def test_a_click_client_drives_world_0_of_a_batched_server(tmp_path):
    address = f"ipc://{tmp_path / 'click.sock'}"
    with coupler_server(address, "--scene", "arm", "--worlds", "2", "--session-timeout", "0.5"):
        result = run([str(pclick_python()), "-m", "pclick.demo.client", "--addr", address,
                      "--controlmessage", "arm:" + ",".join(["0"] * 7), "--range", "10"])
        assert result.returncode == 0, result.stdout
        time.sleep(1.0)  # the Click client leaves without a goodbye: its lease lapses
        with Session(address) as session:
            worlds = WorldSession(session)
            worlds.send()
            _, times = worlds.receive()
    assert times.tolist() == pytest.approx([11 * ARM_TIME_STEP, 0.0])


def test_a_server_without_worlds_is_not_driven_for_every_world(tmp_path):
    address = f"ipc://{tmp_path / 'one.sock'}"
    with coupler_server(address, "--scene", "arm"), Session(address) as session:
        with pytest.raises(ExtensionNotSupportedError, match="worlds"):
            WorldSession(session)



def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        if not value:
            return bytes(out + bytes([byte]))
        out.append(byte | 0x80)


@pytest.mark.parametrize("field, name", [(103, "resetWorlds"), (101, "worlds")])
@pytest.mark.parametrize("value", [2**32, 2**63, 2**64 - 1])
def test_a_world_field_beyond_32_bits_is_refused_in_one_line_and_the_server_keeps_serving(worlds, field, name, value):
    # protobuf keeps a uint32 field's low 32 bits: resetWorlds 2**32 would otherwise reset world 0.
    client = worlds.session.client
    client.send_frame(encode_world_control(WORLDS, np.zeros(0)) + _varint(field << 3) + _varint(value))
    with pytest.raises(RemoteError, match=f"{name} value {value} is beyond the 32 bits") as raised:
        read_world_sensors(client.receive_frame())
    assert raised.value.code == ErrorCode.MALFORMED_FRAME
    worlds.send(np.zeros((WORLDS, worlds.control_width)))
    _, times = worlds.receive()
    assert times.tolist() == pytest.approx([ARM_TIME_STEP] * WORLDS)


def test_a_packed_reset_world_beyond_32_bits_is_refused(worlds):
    packed = _varint(0) + _varint(2**40)
    frame = encode_world_control(WORLDS, np.zeros(0)) + _varint(103 << 3 | 2) + _varint(len(packed)) + packed
    worlds.session.client.send_frame(frame)
    with pytest.raises(RemoteError, match=f"resetWorlds value {2**40} is beyond"):
        read_world_sensors(worlds.session.client.receive_frame())


def test_a_client_whose_frame_limit_cannot_take_the_answer_is_told_the_limit_and_how_to_raise_it(batched_address):
    from coupler.wire.errors import Error

    # The arm's handshake (under 1 kB) gets through; the answer for 3 worlds (1,600 bytes at most) would not.
    with Session(batched_address, max_frame_bytes=1024) as session:
        with pytest.raises(Error, match=r"beyond this client's frame limit of 1024 bytes: open the Session with "
                                        r"max_frame_bytes=\d+ or more"):
            WorldSession(session)
