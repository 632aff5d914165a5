"""A Control from a peer that may not drive is refused before its body is read,
so its shape (tens of thousands of object names, say) costs the server nothing."""

from __future__ import annotations

from typing import Any

from coupler.serve.native_responder import NativeResponder
from coupler.serve.simulation_server import SimulationServer
from coupler.scenes.static import StaticScene
from coupler.transport.client import Client
from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    ObjectControl,
)

# A Control whose top level is well formed and whose one object entry is not a protobuf message: only a full
# decode finds that out (field 1: messageType CONTROL; field 2: an objects entry, key "arm", value 0xff bytes).
BROKEN_INSIDE = b"\x08\x02" + b"\x12\x0b" + b"\x0a\x03arm" + b"\x12\x04\xff\xff\xff\xff"

# About 700 kB: under the 1 MiB frame limit, as in the attack this guards against.
PATHOLOGICAL = ControlMessage(objects={f"r{k}": ObjectControl([]) for k in range(60_000)})


class CountingReads:
    """The control layout with its reads counted."""

    def __init__(self, layout: Any) -> None:
        self.layout = layout
        self.reads = 0

    def read(self, request: Any) -> int:
        self.reads += 1
        return self.layout.read(request)


def answer(responder: NativeResponder, client: Client, message) -> Any:
    client.send(message)
    request = responder.receive(5.0)
    responder.send(request, responder.respond(request))
    return client.receive()


def test_a_control_of_a_peer_that_may_not_drive_is_refused_as_busy_without_being_read(make_address):
    sim = SimulationServer(StaticScene(), session_timeout=0)  # the holder's lease never lapses, however slow the test
    with NativeResponder(make_address("ipc"), sim) as responder, \
            Client(responder.endpoint, timeout=5.0) as holder, Client(responder.endpoint, timeout=5.0) as other:
        assert isinstance(answer(responder, holder, HandshakeInitMessage()), HandshakeMessage)
        reads = responder._controls = CountingReads(responder._controls)
        refused = answer(responder, other, PATHOLOGICAL)
        assert isinstance(refused, ErrorMessage) and refused.code == ErrorCode.SERVER_BUSY
        assert reads.reads == 0
    assert sim.stats.refused_busy == 1


def test_a_control_of_the_holder_is_still_read_and_checked(make_address):
    sim = SimulationServer(StaticScene())
    with NativeResponder(make_address("ipc"), sim) as responder, Client(responder.endpoint, timeout=5.0) as holder:
        answer(responder, holder, HandshakeInitMessage())
        refused = answer(responder, holder, ControlMessage(objects={"robot0": ObjectControl([0.0])}))
        assert refused.code == ErrorCode.CONTROL_MISMATCH and "unknown object 'robot0'" in refused.text


def answer_frame(responder: NativeResponder, client: Client, frame: bytes) -> Any:
    client.send_frame(frame)
    request = responder.receive(5.0)
    if request is not None:
        responder.send(request, responder.respond(request))
    return client.receive()


def test_a_control_of_a_peer_that_may_not_drive_is_refused_as_busy_without_the_server_decoding_it(make_address):
    sim = SimulationServer(StaticScene(), session_timeout=0)
    with NativeResponder(make_address("ipc"), sim) as responder, \
            Client(responder.endpoint, timeout=5.0) as holder, Client(responder.endpoint, timeout=5.0) as other:
        answer(responder, holder, HandshakeInitMessage())
        refused = answer_frame(responder, other, BROKEN_INSIDE)
        assert isinstance(refused, ErrorMessage) and refused.code == ErrorCode.SERVER_BUSY
        assert responder.server.bad_frames == 0


def test_a_control_that_does_not_decode_from_a_peer_that_may_drive_is_refused_as_a_bad_frame(make_address):
    sim = SimulationServer(StaticScene())
    with NativeResponder(make_address("ipc"), sim) as responder, Client(responder.endpoint, timeout=5.0) as holder:
        answer(responder, holder, HandshakeInitMessage())
        requests = sim.stats.requests
        refused = answer_frame(responder, holder, BROKEN_INSIDE)
        assert refused.code == ErrorCode.MALFORMED_FRAME
        assert refused.text.startswith("malformed frame: frame of 15 bytes is not a valid Control message")
        assert (responder.server.bad_frames, sim.stats.requests) == (1, requests)
