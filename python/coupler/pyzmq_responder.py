"""Serving through pyzmq and the Python codec: every request goes through
`SimulationServer.handle` as a message."""

from __future__ import annotations

from coupler.errors import TimeoutError
from coupler.messages import ErrorMessage
from coupler.responder import Answer, message_answer
from coupler.server import Request, Server
from coupler.simulation_server import SimulationServer


class PyzmqResponder:
    """A `coupler.responder.Responder` over a `coupler.Server` bound to `address`.

    `trace_sizes` logs the frame sizes received and sent whenever they change.
    """

    def __init__(self, address: str, sim: SimulationServer, trace_sizes: bool = False) -> None:
        self.sim = sim
        self.server = Server(address)
        self.server.trace_sizes = trace_sizes
        self.endpoint = self.server.endpoint

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
