"""A lockstep server run in a thread of the test's own process, and a bare REQ socket to talk to it byte for byte:
for tests that look at the serving loop's objects (its hot path, its counts) while a client drives it."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import zmq

from coupler.serve.lockstep_loop import LockstepLoop
from coupler.serve.native_responder import NativeResponder
from coupler.serve.run_clock import RunClock
from coupler.serve.simulation import Simulation
from coupler.serve.simulation_server import SimulationServer


class Served:
    """A lockstep server of `simulation` on `address`, traced or paced as asked;
    `options` go to SimulationServer. Stopped, and its thread joined, on leaving the `with`."""

    def __init__(self, simulation: Simulation, address: str, trace_sizes: bool = False, trace: bool = False,
                 clock: RunClock | None = None, **options) -> None:
        self.address = address
        self.sim = SimulationServer(simulation, **options)
        self.sim.trace = trace
        self.responder = NativeResponder(address, self.sim, trace_sizes=trace_sizes)
        self.loop = LockstepLoop(self.responder, clock)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.loop.run, args=(self.stop, 0.05))

    def __enter__(self) -> Served:
        self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop.set()
        self.thread.join(timeout=10)
        self.responder.close()
        assert not self.thread.is_alive()


@contextlib.contextmanager
def req_socket(address: str) -> Iterator[zmq.Socket]:
    """A REQ socket connected to `address`, waiting 5 s at most for an answer."""
    socket = zmq.Context.instance().socket(zmq.REQ)
    socket.linger = 0
    socket.rcvtimeo = 5000
    socket.connect(address)
    try:
        yield socket
    finally:
        socket.close()


def ask(socket: zmq.Socket, frame: bytes) -> bytes:
    """The answer to `frame`, as it came."""
    socket.send(frame)
    return socket.recv()
