"""coupler and Click (pclick 0.5.15) interoperate in both directions, over TCP and IPC."""

import pytest

from coupler.transport.client import Client
from coupler.wire.messages import HandshakeMessage, SensorMessage, SensorRequestMessage
from coupler.controller.session import Session
from coupler.scenes.static import TIME_STEP
from peers import address_for, click_server, coupler_server, democlient, pclick_python, run

TRANSPORTS = ["tcp", "ipc"]
ARM_ZEROS = "arm:" + ",".join(["0"] * 7)


def click_client(address: str, *flags: str):
    return run([str(pclick_python()), "-m", "pclick.demo.client", "--addr", address, *flags])


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_python_session_drives_a_click_server(transport, tmp_path):
    address = address_for(transport, tmp_path)
    with click_server(address):
        with Session(address, timeout=5.0) as session:
            assert "robot" in session.handshake.objects
            controls = session.controls()
            controls.set("robot", "joint1", 0.5)
            readings = session.step(controls)
            assert isinstance(readings.message, SensorMessage)
            assert readings.angles("robot1").tolist() == [1.0, 1.0]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_cpp_democlient_completes_10000_round_trips_against_a_click_server(transport, tmp_path):
    address = address_for(transport, tmp_path)
    with click_server(address):
        result = run([str(democlient()), "--addr", address, "--range", "10000", "--timings"])
    assert result.returncode == 0, result.stdout
    assert "controls sent: 10001" in result.stdout
    assert "round trip p99" in result.stdout


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_click_client_handshakes_with_a_coupler_server(transport, tmp_path):
    address = address_for(transport, tmp_path)
    with coupler_server(address, "--scene", "static"):
        result = click_client(address)
    assert result.returncode == 0, result.stdout
    assert "messageType: HandshakeMessageType" in result.stdout
    assert 'key: "arm"' in result.stdout


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_click_client_sends_100_controls_to_a_coupler_server(transport, tmp_path):
    address = address_for(transport, tmp_path)
    with coupler_server(address, "--scene", "static"):
        result = click_client(address, "--controlmessage", ARM_ZEROS, "--range", "100")
        # Read as anyone may: the Click client left without a goodbye and holds the server until its lease lapses.
        with Client(address, timeout=5.0) as reader:
            simulated = reader.request(SensorRequestMessage()).simulated_time
    assert result.returncode == 0, result.stdout
    assert "messageType: SensorMessageType" in result.stdout
    assert "Sent/received 101 messages" in result.stdout
    assert simulated == pytest.approx(101 * TIME_STEP)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_click_client_sensor_request_is_answered_with_sensors(transport, tmp_path):
    address = address_for(transport, tmp_path)
    with coupler_server(address, "--scene", "static"):
        result = click_client(address, "--sensorrequest", "--range", "100")
    assert result.returncode == 0, result.stdout
    assert "messageType: SensorMessageType" in result.stdout


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_click_client_reset_is_answered_with_reset(transport, tmp_path):
    address = address_for(transport, tmp_path)
    with coupler_server(address, "--scene", "static"):
        result = click_client(address, "--resetmessage", "--range", "100")
    assert result.returncode == 0, result.stdout
    assert "messageType: ResetMessageType" in result.stdout


def test_click_client_with_controls_for_an_unknown_robot_gets_an_error_and_the_server_goes_on(tmp_path):
    address = address_for("ipc", tmp_path)
    with coupler_server(address, "--scene", "static"):
        result = click_client(address, "--controlmessage", "robot9:0,0")
        with Session(address, timeout=5.0) as session:
            assert isinstance(session.handshake, HandshakeMessage)
    assert "messageType: ErrorMessageType" in result.stdout
    assert "unknown object" in result.stdout
