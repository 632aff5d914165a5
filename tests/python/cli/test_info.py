"""`coupler info --addr ADDRESS`: the server, its extensions, and per control its range and per joint its limits."""

from __future__ import annotations

import json
import sys
import threading

import zmq

from coupler.cli import main as cli_main
from coupler.cli.info import describe
from coupler.transport.client import Client
from coupler.wire.codec import encode
from coupler.wire.messages import (
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    ObjectDescription,
    Range,
    ServerInfo,
    ValueType,
)
from peers import click_server, coupler_server, free_tcp_address, run


def info(address: str) -> str:
    result = run([sys.executable, "-m", "coupler.cli", "info", "--addr", address, "--timeout", "5"])
    assert result.returncode == 0, result.stdout
    return result.stdout


def _row(text: str, *cells: str) -> bool:
    """Whether some line of the table holds these cells in this order, separated by spaces."""
    wanted = " ".join(cells).split()
    return any(line.split()[: len(wanted)] == wanted for line in text.splitlines())


def _one_control(ranges: list[Range], server: ServerInfo | None = None) -> HandshakeMessage:
    return HandshakeMessage(
        objects={"r": ObjectDescription(controls=["j"], control_types=[ValueType.TORQUE_1D], joint_sensors=["j"],
                                        joint_sensor_types=[ValueType.ANGLE], control_ranges=ranges,
                                        joint_limits=ranges)},
        server=server,
    )


def test_a_limited_range_is_shown_with_the_controls_unit():
    assert _row(describe(_one_control([Range(-87.0, 87.0, True)])), "r", "j", "-", "TORQUE_1D", "N", "m", "-87", "..", "87")


def test_a_number_sensor_is_shown_with_the_unit_the_handshake_gives_it():
    handshake = HandshakeMessage(objects={"world": ObjectDescription(
        sensors={"range": [ValueType.NUMBER], "clock\n": [ValueType.NUMBER]},
        sensor_units={"range": "m", "clock\n": "s\n"})})
    text = describe(handshake)
    assert _row(text, "world", "range", "NUMBER", "m")
    assert "s\\n" in text  # the server's text, escaped


def test_an_unlimited_range_is_shown_as_unlimited():
    assert "unlimited" in describe(_one_control([Range()]))


def test_a_control_without_a_range_is_shown_as_not_told():
    assert _row(describe(_one_control([])), "r", "j", "-", "TORQUE_1D", "N", "m", "not", "told")


def test_a_handshake_without_server_info_is_shown_as_a_click_peer_with_no_extensions():
    assert "extensions: none (Click peer" in describe(_one_control([]))


def test_the_server_its_version_and_its_extensions_are_shown():
    text = describe(_one_control([], ServerInfo("coupler", "1.2.3", ["steps", "goodbye"])))
    assert "server: coupler 1.2.3" in text
    assert "extensions: steps, goodbye" in text


def test_server_text_is_shown_escaped_and_cut():
    text = describe(_one_control([], ServerInfo("evil\n\x1b[2J" + "x" * 500, "1", [])))
    line = next(line for line in text.splitlines() if line.startswith("server:"))
    assert "\x1b" not in text and "\\n" in line
    assert len(line) < 200


def test_info_prints_the_arm_scenes_ranges_and_joint_limits():
    address = free_tcp_address()
    with coupler_server(address, "--scene", "arm"):
        text = info(address)
    assert _row(text, "arm", "joint4", "joint4", "ANGLE", "rad", "-3.0718", "..", "-0.0698", "rad")
    assert _row(text, "arm", "joint6", "ANGLE, ANGULAR_VELOCITY_1D, TORQUE_1D", "rad, rad/s, N m", "-0.0175", "..", "3.7525")
    assert "extensions: steps, goodbye, ranges" in text


def test_info_prints_the_static_scenes_ranges():
    address = free_tcp_address()
    with coupler_server(address, "--scene", "static"):
        text = info(address)
    assert _row(text, "cart", "lift", "-", "FORCE_1D", "N", "-100", "..", "100", "N")
    assert _row(text, "cart", "wheel_left", "ANGLE, ANGULAR_VELOCITY_1D, TORQUE_1D", "rad, rad/s, N m", "unlimited")


def test_info_against_a_click_server_shows_what_click_tells_and_leaves_it_serving():
    address = free_tcp_address()
    with click_server(address) as server:
        text = info(address)
        text_again = info(address)
        assert server.poll() is None
        with Client(address, timeout=5.0) as client:
            assert isinstance(client.request(HandshakeInitMessage()), HandshakeMessage)
    assert "extensions: none (Click peer" in text
    assert _row(text, "robot", "joint1", "-", "ANGLE", "rad", "not", "told")
    assert text_again == text


def test_info_says_goodbye_to_a_coupler_server():
    address = free_tcp_address()
    with coupler_server(address, "--scene", "static", "--exit-on-error") as server:
        info(address)
        assert server.wait(timeout=10) == 0  # the goodbye ended the session, so the server exited


def test_info_while_another_controller_drives_says_in_one_line_that_the_server_is_busy():
    address = free_tcp_address()
    with coupler_server(address, "--scene", "static"), Client(address, timeout=5.0) as controller:
        assert isinstance(controller.request(HandshakeInitMessage()), HandshakeMessage)  # it drives from here on
        result = run([sys.executable, "-m", "coupler.cli", "info", "--addr", address, "--timeout", "5"])
    assert result.returncode == 1
    assert result.stdout.startswith(f"coupler info: {address} refused the handshake (SERVER_BUSY): server busy: "
                                    "another controller drives this simulation")
    assert result.stdout.count("\n") == 1


def test_a_servers_refusal_is_shown_escaped_and_cut_whatever_it_says():
    address = free_tcp_address()
    context = zmq.Context.instance()
    with context.socket(zmq.REP) as hostile:
        hostile.linger = 0
        hostile.bind(address)
        refusing = threading.Thread(target=lambda: (hostile.recv(), hostile.send(encode(ErrorMessage(
            code=999, text="line\n\x1b[2Jforged" + "x" * 100_000)))))
        refusing.start()
        result = run([sys.executable, "-m", "coupler.cli", "info", "--addr", address, "--timeout", "5"])
        refusing.join(timeout=5)
    assert result.returncode == 1
    assert result.stdout.startswith(f"coupler info: {address} refused the handshake (error code 999): line\\n")
    assert result.stdout.count("\n") == 1 and "\x1b" not in result.stdout
    assert len(result.stdout) < 300


# `coupler info --scene FILE`: what a server would announce, without one.

_SLIDER = """
<mujoco>
  <worldbody>
    <body name="cart">
      <joint name="rail" type="slide" axis="1 0 0" range="-0.5 0.5"/>
      <geom size="0.1"/>
    </body>
  </worldbody>
  <actuator>
    <motor name="push" joint="rail" gear="2" ctrlrange="-1 1"/>
  </actuator>
  <sensor>
    <clock name="clock"/>
  </sensor>
</mujoco>
"""


def _info(capsys, *flags: str) -> str:
    assert cli_main(["info", *flags]) == 0
    return capsys.readouterr().out


def test_info_of_a_scene_file_shows_what_each_control_drives_and_each_readings_unit(tmp_path, capsys):
    scene = tmp_path / "slider.xml"
    scene.write_text(_SLIDER)
    text = _info(capsys, "--scene", str(scene))
    assert _row(text, "cart", "push", "rail", "FORCE_1D", "N", "-2", "..", "2", "N")
    assert _row(text, "cart", "POSITION, RPY", "m, rad")
    assert _row(text, "world", "clock", "NUMBER", "s")


def test_info_of_a_scene_lists_the_parts_a_server_would_not_serve(tmp_path, capsys):
    scene = tmp_path / "unnamed_sensor.xml"
    scene.write_text(_SLIDER.replace('<clock name="clock"/>', '<clock/>'))
    text = _info(capsys, "--scene", str(scene))
    assert "not served (1; coupler serve refuses the scene without --serve-partial):" in text
    assert "unnamed sensor #0 is neither named nor on a named site" in text


def test_info_of_a_scene_that_does_not_exist_is_one_line_naming_it(capsys):
    assert cli_main(["info", "--scene", "no_such_scene"]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [
        "coupler info: no scene 'no_such_scene': give one of static, arm, mobile, two_arms or an MJCF file path"]


def test_info_json_of_a_scene_is_the_handshake_a_server_of_that_scene_sends(capsys):
    from_file = json.loads(_info(capsys, "--scene", "arm", "--json"))
    address = free_tcp_address()
    with coupler_server(address, "--scene", "arm"):
        from_server = json.loads(_info(capsys, "--addr", address, "--timeout", "5", "--json"))
    assert from_file == from_server
    arm = from_file["objects"]["arm"]
    assert arm["controlTargets"] == arm["controlsInOrder"]  # the arm's servos are named after their joints
    assert arm["controlTypesInOrder"][0] == "Angle"
    assert from_file["server"]["extensions"][:2] == ["steps", "goodbye"]


def test_info_lists_the_keyframes_a_reset_can_ask_for():
    text = describe(HandshakeMessage(keyframes=["home", "", "open\n"]))
    assert "keyframes: 0 'home', 1 (unnamed), 2 'open\\n'" in text
