"""atheris target for the Python server's request handling.

Any bytes are one request frame to a `SimulationServer` over demo's static
scene, served as `coupler.serve.native_responder` serves it, without sockets: a
Control goes through the C++ `ControlLayout` into the arrays when it matches
the handshake and is refused by `SimulationServer.refuse_control` when not,
everything else through `coupler.wire.codec.decode` and
`SimulationServer.handle`. What must hold for every frame:

- decoding (the C++ codec, which tests/fuzz/decode_fuzzer.cpp fuzzes under
  the sanitizers) raises nothing but coupler's ProtocolError;
- the server answers every request it must answer, never with
  INTERNAL_ERROR, and its answer encodes;
- a refused request changes nothing: simulation state, counters, session;
- a Control given to `SimulationServer.handle` as a message gets the answer
  its frame gets;
- a frame the codec takes re-encodes into a frame that decodes to the same message.

    python tests/fuzz/server_fuzzer.py [libFuzzer flags] [corpus dirs]   (scripts/fuzz runs it)
"""

from __future__ import annotations

import dataclasses
import logging
import sys

import atheris
import numpy as np

with atheris.instrument_imports(include=["coupler"]):
    from coupler.wire.codec import decode, encode
    from coupler.wire.errors import ProtocolError
    from coupler.wire.messages import ControlMessage, ErrorCode, ErrorMessage, Message
    from coupler.serve.simulation_server import SimulationServer

from coupler.scenes.static import StaticScene


class InvariantBroken(AssertionError):
    """A property of the server that a request broke: the fuzzer reports it as a crash."""


def require(holds: bool, invariant: str) -> None:
    if not holds:
        raise InvariantBroken(invariant)


server = SimulationServer(StaticScene())
simulation = server.simulation
controls = simulation.flat.controls
sensors_out = simulation.flat.sensors.values


def state() -> tuple:
    """Everything a refused request must leave as it was."""
    readings = np.empty_like(sensors_out)
    simulated_time = simulation.sensor_values(readings)
    stats = dataclasses.replace(server.stats, requests=0, errors_sent=0)
    return readings.tobytes(), simulated_time, stats, server.session_active, server.running, server.fresh_control


def serve(frame: bytes, message: Message) -> Message | None:
    """The answer to a frame the decoder takes, as coupler.serve.native_responder.NativeResponder.respond() gives it."""
    if isinstance(message, ControlMessage):
        try:
            steps = controls.decode(frame)
        except ProtocolError as refusal:
            answer = server.refuse_control(refusal)
            require(server.handle(message) == answer, "a Control as a message is refused as its frame is")
            return answer
        answer = server.handle_control_values(controls, steps, sensors_out)
        return answer if isinstance(answer, ErrorMessage) else None
    answer = server.handle(message)
    require(answer is not None or isinstance(message, ErrorMessage), "every request but Error is answered")
    return answer


def TestOneInput(frame: bytes) -> None:
    try:
        message = decode(frame)
    except ProtocolError:
        return  # refused by the decoder, so by the server, before it reaches the simulation
    reencoded = encode(message)
    require(encode(decode(reencoded)) == reencoded, "a frame the codec takes re-encodes into one that reads back alike")
    before = state()
    answer = serve(frame, message)
    if answer is not None:
        encode(answer)
    if isinstance(answer, ErrorMessage):
        require(answer.code != ErrorCode.INTERNAL_ERROR, f"no request makes the server fail: {answer.text}")
        require(state() == before, "a refused request changes nothing")


def main() -> None:
    # Every refusal is logged as a warning; at fuzzing speed that is noise.
    logging.disable(logging.CRITICAL)
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
