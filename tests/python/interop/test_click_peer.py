"""coupler's Client and codec against the Click reference peer (pclick 0.5.15):
its demo server answers our Client, and every frame its demo server and demo
client write decodes and re-encodes as protobuf itself would write it."""

import subprocess
import time

import pytest
import zmq

from coupler._proto import coupler_pb2 as pb
from coupler.transport.client import Client
from coupler.wire.codec import decode, encode
from coupler.wire.messages import (
    ControlField,
    ControlMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    ObjectControl,
    ObjectDescription,
    ObjectSensors,
    ResetMessage,
    Sensor,
    SensorMessage,
    SensorRequestMessage,
    ValueType,
)
from peers import pclick_python

# What pclick.demo.server answers, whatever it is sent.
CLICK_HANDSHAKE = HandshakeMessage(
    objects={
        "robot": ObjectDescription(
            controls=["joint1", "joint2"],
            control_types=[ValueType.ANGLE, ValueType.ANGLE],
            joint_sensors=["joint1", "joint2"],
            joint_sensor_types=[ValueType.ANGLE, ValueType.ANGULAR_VELOCITY_1D, ValueType.TORQUE_1D],
            control_events={"gripper": ValueType.ACTIVATED},
            sensors={"external_1": [ValueType.FORCE_3D, ValueType.ANGULAR_ACCELERATION_3D]},
            object_sensors=[ValueType.POSITION],
        )
    },
    control_type=ValueType.FORCE_3D,
)
CLICK_SENSORS = SensorMessage(
    objects={
        "robot1": ObjectSensors(
            angles=[1.0, 1.0],
            angular_velocities=[2.0, 2.0],
            torques=[3.0, 3.0],
            sensors={
                "external_1": [
                    Sensor(ValueType.FORCE_3D, (4.0, 4.1, 4.2)),
                    Sensor(ValueType.ANGULAR_ACCELERATION_3D, (5.0, 5.1, 5.2)),
                ]
            },
        ),
        "box": ObjectSensors(
            object_sensors=[Sensor(ValueType.POSITION, (1.0, 2.0, 3.0)), Sensor(ValueType.RPY, (4.0, 5.0, 6.0))]
        ),
    }
)

# pclick.demo.client flags, and the message each makes it send.
CLICK_CLIENT_MESSAGES = {
    "handshake init": ([], HandshakeInitMessage()),
    "control values": (
        ["--controlmessage", "robot1:0.5,-0.25;panda2:1,1"],
        ControlMessage(objects={"robot1": ObjectControl([0.5, -0.25]), "panda2": ObjectControl([1.0, 1.0])}),
    ),
    "control angles": (
        ["--controlmessage", "zeta:0.5;alpha:1;mid:2", "--controltype", "Angle"],
        ControlMessage(
            objects={
                "zeta": ObjectControl([0.5], field=ControlField.ANGLES),
                "alpha": ObjectControl([1.0], field=ControlField.ANGLES),
                "mid": ObjectControl([2.0], field=ControlField.ANGLES),
            }
        ),
    ),
    "control torques": (
        ["--controlmessage", "robot1:1,2", "--controltype", "Torque1D"],
        ControlMessage(objects={"robot1": ObjectControl([1.0, 2.0], field=ControlField.TORQUES)}),
    ),
    "sensor request": (["--sensorrequest"], SensorRequestMessage()),
    "reset": (["--resetmessage"], ResetMessage()),
}

_PROTO_CLASSES = {
    0: pb.HandshakeInitMessage,
    1: pb.HandshakeMessage,
    2: pb.ControlMessage,
    3: pb.SensorMessage,
    4: pb.ResetMessage,
    5: pb.ErrorMessage,
    6: pb.SensorRequestMessage,
}


def canonical(frame: bytes) -> bytes:
    """The frame as protobuf itself writes it deterministically: Click writes
    map entries in hash order, coupler in key order; nothing else differs."""
    kind = _PROTO_CLASSES[pb.Message.FromString(frame).messageType]
    return kind.FromString(frame).SerializeToString(deterministic=True)


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_client_gets_the_handshake_and_sensors_of_a_click_server(transport, pclick_server):
    with Client(pclick_server(transport), timeout=5.0) as client:
        assert client.request(HandshakeInitMessage()) == CLICK_HANDSHAKE
        controls = ControlMessage(objects={"robot": ObjectControl([0.5, -0.5], events={"gripper": True})})
        assert client.request(controls) == CLICK_SENSORS
        assert client.request(controls) == CLICK_SENSORS


def test_click_server_frames_re_encode_as_protobuf_writes_them(pclick_server):
    context = zmq.Context()
    try:
        peer = context.socket(zmq.REQ)
        peer.linger = 0
        peer.rcvtimeo = 5000
        peer.connect(pclick_server("ipc"))
        frames = []
        for request in [HandshakeInitMessage(), ControlMessage(objects={"robot": ObjectControl([0.0, 0.0])})]:
            peer.send(encode(request))
            frames.append(peer.recv())
    finally:
        context.destroy(linger=0)
    assert [decode(f) for f in frames] == [CLICK_HANDSHAKE, CLICK_SENSORS]
    assert [encode(decode(f)) for f in frames] == [canonical(f) for f in frames]
    assert encode(decode(frames[0])) == frames[0]  # one entry per map: already in key order


def test_click_client_frames_re_encode_as_protobuf_writes_them(make_address):
    python = str(pclick_python())
    context = zmq.Context()
    router = context.socket(zmq.ROUTER)
    router.linger = 0
    address = make_address("ipc")
    router.bind(address)
    clients = {
        case: subprocess.Popen(
            [python, "-m", "pclick.demo.client", "--addr", address, *flags],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for case, (flags, _) in CLICK_CLIENT_MESSAGES.items()
    }
    try:
        frames = []
        deadline = time.monotonic() + 30.0
        while len(frames) < len(clients):
            assert router.poll(max(0, int((deadline - time.monotonic()) * 1000))), "a pclick client sent nothing"
            *envelope, frame = router.recv_multipart()
            frames.append(frame)
            router.send_multipart([*envelope, encode(ResetMessage())])
        for client in clients.values():
            client.wait(timeout=10)
    finally:
        for client in clients.values():
            client.kill()
        context.destroy(linger=0)

    decoded = [decode(f) for f in frames]
    for case, (_, message) in CLICK_CLIENT_MESSAGES.items():
        assert decoded.count(message) == 1, case
    assert [encode(m) for m in decoded] == [canonical(f) for f in frames]
