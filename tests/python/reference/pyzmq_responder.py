"""Serving through pyzmq and the Python codec: every request goes through
`SimulationServer.handle` as a message."""

from __future__ import annotations

from typing import Any

from coupler.wire.errors import TimeoutError
from coupler.wire.messages import ErrorMessage
from coupler.serve.responder import Answer, message_answer
from reference.pyzmq_server import Request, Server
from coupler.serve.simulation_server import SimulationServer


class PyzmqResponder:
    """A `coupler.serve.responder.Responder` over a `coupler.Server` bound to `address`.

    `trace_sizes` logs the frame sizes received and sent whenever they change.
    `server_options` go to `coupler.Server`.
    """

    def __init__(self, address: str, sim: SimulationServer, trace_sizes: bool = False, **server_options: Any) -> None:
        self.sim = sim
        self.server = Server(address, **server_options)
        self.server.trace_sizes = trace_sizes
        self.endpoint = self.server.endpoint

    def take_closed_peers(self) -> list[bytes]:
        return self.server.take_closed_peers()

    def receive(self, timeout: float) -> Request | None:
        try:
            return self.server.receive(timeout=timeout)
        except TimeoutError:
            return None

    def try_receive(self) -> Request | None:
        return self.server.try_receive()

    def respond(self, request: Request) -> Answer:
        answer = self.sim.handle(request.message, request.peer)
        return message_answer(self.sim, request.message, answer, answer)

    def round_answer(self, steps: int) -> Answer:
        state = self.sim.simulation.sensors()
        return Answer(state, state.simulated_time, steps)

    def error_answer(self, error: ErrorMessage) -> Answer:
        return Answer(error)

    def send(self, request: Request, answer: Answer) -> None:
        if answer.reply is not None:
            self.server.reply(request, answer.reply)

    def close(self) -> None:
        self.server.close()

    def __enter__(self) -> PyzmqResponder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
