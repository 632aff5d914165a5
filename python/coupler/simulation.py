"""What a simulation offers the server loop.

The server loop (`coupler.simulation_server`) speaks the protocol; a
`Simulation` only knows its scene. The static scene and the MuJoCo adapter
both implement this protocol, so the loop never depends on physics.
"""

from __future__ import annotations

from typing import Protocol

from coupler.messages import ControlMessage, HandshakeMessage, SensorMessage


class Simulation(Protocol):
    def handshake(self) -> HandshakeMessage:
        """The scene description sent in answer to HandshakeInit; constant for a run."""
        ...

    def sensors(self) -> SensorMessage:
        """The current state, without stepping."""
        ...

    def apply(self, control: ControlMessage) -> None:
        """Set the controls a Control carries; it was already checked against the handshake.

        Objects and events the message leaves out keep their last values.
        """
        ...

    def step(self, steps: int = 1) -> None:
        """Advance the simulation by `steps` time steps with the current controls."""
        ...

    def reset(self) -> None:
        """Restore the initial state."""
        ...
