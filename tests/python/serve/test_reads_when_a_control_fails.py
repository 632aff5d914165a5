"""Reads that wait in the hot path while the controller's Control fails are answered all the same: the C++ loop
hands back those it could not answer, and the server answers each with the state it can read."""

from __future__ import annotations

import dataclasses
import time

import zmq

from coupler.scenes.static import StaticScene
from coupler.serve.hot_path import HotPathParts
from coupler.wire.codec import decode, encode
from coupler.wire.messages import ControlMessage, ErrorCode, ErrorMessage, ObjectControl, SensorRequestMessage
from failing_stepper import FailingStepper
from served_loop import Served

READERS = 4
CONTROL = ControlMessage(objects={"arm": ObjectControl([0.0] * 7)})


class _SlowThenFailing(FailingStepper):
    """Its first step takes a while (the readers' requests pile up meanwhile); every step after it fails."""

    def step(self, steps: int) -> None:
        if self.after > 0:
            time.sleep(0.3)
        super().step(steps)


class _SlowThenBroken(StaticScene):
    def hot_path_parts(self) -> HotPathParts:
        parts = super().hot_path_parts()
        return dataclasses.replace(parts, stepper=_SlowThenFailing(parts.stepper, "the motor is on fire", after=1))


def _socket(context: zmq.Context, address: str, kind: int = zmq.REQ) -> zmq.Socket:
    socket = context.socket(kind)
    socket.linger = 0
    socket.rcvtimeo = 5000
    socket.connect(address)
    return socket


def test_reads_waiting_while_the_controllers_control_fails_are_each_answered(tmp_path):
    address = f"ipc://{tmp_path}/failing.sock"
    context = zmq.Context.instance()
    with Served(_SlowThenBroken(), address) as served:
        # A controller that sends its next Control without waiting for the answer to the one before.
        controller = _socket(context, address, zmq.DEALER)
        readers = [_socket(context, address) for _ in range(READERS)]
        try:
            controller.send_multipart([b"", encode(CONTROL)])
            time.sleep(0.1)  # its first step has begun, and takes a while: the reads and the next Control wait
            for reader in readers:
                reader.send(encode(SensorRequestMessage()))
            time.sleep(0.05)
            controller.send_multipart([b"", encode(CONTROL)])
            answers = [decode(controller.recv_multipart()[-1]) for _ in range(2)]
            assert answers[0].simulated_time > 0
            assert isinstance(answers[1], ErrorMessage) and answers[1].code == ErrorCode.INTERNAL_ERROR
            assert answers[1].text == "internal error: RuntimeError: the motor is on fire"
            for reader in readers:
                read = decode(reader.recv())
                assert read.simulated_time == answers[0].simulated_time  # the state before the failing step
        finally:
            controller.close()
            for reader in readers:
                reader.close()
        assert served.sim.stats.errors_sent == 1
