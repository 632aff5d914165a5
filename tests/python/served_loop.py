"""A lockstep server run in a thread of the test's own process, and a bare REQ socket to talk to it byte for byte:
for tests that look at the serving loop's objects (its hot path, its counts) while a client drives it."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import zmq

from coupler.serve.batched_worlds import BatchedResponder, WorldsSimulation
from coupler.serve.lockstep_loop import LockstepLoop
from coupler.serve.native_responder import NativeResponder
from coupler.serve.run_clock import RunClock
from coupler.serve.simulation import Simulation
from coupler.serve.simulation_server import SimulationServer


class Served:
    """A lockstep server of `simulation` on `address`, traced or paced as asked;
    `options` go to SimulationServer. Stopped, and its thread joined, on leaving the `with`."""

    def __init__(self, simulation: Simulation, address: str, trace_sizes: bool = False, trace: bool = False,
                 clock: RunClock | None = None, stop_after: float | None = None, **options) -> None:
        self.address = address
        self.sim = SimulationServer(simulation, **options)
        self.sim.trace = trace
        self.responder = self._responder(address, trace_sizes)
        self.loop = LockstepLoop(self.responder, clock, stop_after)
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

    def _responder(self, address: str, trace_sizes: bool) -> NativeResponder:
        return NativeResponder(address, self.sim, trace_sizes=trace_sizes)


class ServedBatch(Served):
    """A lockstep server of `count` copies of `first` (a MuJoCo scene) stepped together (`--worlds`), with every
    world's qpos and qvel in its answers; the rest as `Served`. Its worlds are closed with it."""

    def __init__(self, first: Simulation, address: str, count: int, threads: int = 1, **options) -> None:
        from coupler.mujoco.world_batch import WorldBatch  # MuJoCo's: only batched servers need it

        self.worlds = WorldBatch(first, count, threads=threads, data_names=("qpos", "qvel"))
        super().__init__(WorldsSimulation(self.worlds), address, **options)

    def __exit__(self, *exc_info: object) -> None:
        super().__exit__(*exc_info)
        self.worlds.close()

    def _responder(self, address: str, trace_sizes: bool) -> NativeResponder:
        return BatchedResponder(address, self.sim, trace_sizes=trace_sizes)


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
