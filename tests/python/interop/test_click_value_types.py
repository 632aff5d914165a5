"""A Click peer (pclick 0.5.15) served a scene with coupler value types (the "value-types"
extension): it parses every frame, keeps a new type as its number and a reading of one as
a Sensor with no value, and reads every value of a Click type as a coupler client does."""

from __future__ import annotations

import json
from pathlib import Path

from coupler.controller.session import Session
from coupler.wire.messages import EXTENSION_VALUE_TYPES, ValueType
from peers import coupler_server, free_tcp_address, pclick_python, run

MODELS = Path(__file__).resolve().parents[1] / "mujoco" / "models"

# Handshake, one SensorRequest and one Control through pclick's own client;
# prints what pclick made of them.
_CLICK_CLIENT = """
import json, sys
from pclick.client import Client
from pclick.message_proto_helpers import MessageFactory

client = Client()
client.connect(sys.argv[1])
client.send(MessageFactory.create_handshake_init())
handshake = client.recv()
client.send(MessageFactory.create_sensorrequestmessage())
sensors = client.recv()
control = MessageFactory.create_controlmessage()
control.objects["cart"].values.extend([0.25])
client.send(control)
answer = client.recv()

def reading(sensor):
    field = sensor.WhichOneof("value")
    if field is None:
        return None
    value = getattr(sensor, field)
    return [field, list(value.arr) if hasattr(value, "arr") else [float(value)]]

print(json.dumps({
    "control_types": {n: list(o.controlTypesInOrder) for n, o in handshake.objects.items()},
    "sensor_types": {n: {s: list(t.types) for s, t in o.sensors.items()} for n, o in handshake.objects.items()},
    "angles": {n: list(o.angleSensors) for n, o in sensors.objects.items()},
    "sensors": {n: {s: [reading(r) for r in rs.sensor] for s, rs in o.sensors.items()}
                for n, o in sensors.objects.items()},
    "answer": type(answer).__name__,
}))
client.stop()
"""


def _click_view(address: str, tmp_path: Path) -> dict:
    script = tmp_path / "click_client.py"
    script.write_text(_CLICK_CLIENT)
    result = run([str(pclick_python()), str(script), address])
    assert result.returncode == 0, result.stdout
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_click_client_reads_the_handshake_with_the_new_types_as_their_numbers(tmp_path):
    address = free_tcp_address()
    with coupler_server(address, "--scene", str(MODELS / "slide_cart.xml")):
        with Session(address) as session:
            assert session.handshake.supports(EXTENSION_VALUE_TYPES)
        seen = _click_view(address, tmp_path)
    assert seen["control_types"]["cart"] == [int(ValueType.LINEAR_POSITION)]
    assert seen["sensor_types"]["cart"]["rail_position"] == [int(ValueType.LINEAR_POSITION)]
    assert seen["answer"] == "SensorMessage"  # its Control for the LinearPosition servo was taken


def test_a_click_client_gets_every_click_typed_reading_and_an_empty_one_for_each_new_type(tmp_path):
    address = free_tcp_address()
    with coupler_server(address, "--scene", str(MODELS / "slide_cart.xml")):
        with Session(address) as session:
            expected = session.sensors()
        seen = _click_view(address, tmp_path)
    assert seen["angles"]["cart"] == expected.message.objects["cart"].angles
    cart = seen["sensors"]["cart"]
    assert cart["pole_angle"] == [["angle", [expected.sensor("cart", "pole_angle", ValueType.ANGLE)[0]]]]
    assert cart["rail_position"] == [None]
    assert cart["rail_speed"] == [None]
