"""What a simulation offers the server loop.

The server loop (`coupler.serve.simulation_server`) speaks the protocol; a
`Simulation` only knows its scene. The static scene and the MuJoCo adapter
both implement this protocol, so the loop never depends on physics.

An `ArraySimulation` also reads and writes the flat arrays of
`coupler.wire.flat_layout`, which lets the native server path answer a Control
without building a message (`coupler.serve.native_responder`). The server
applies, steps and reads a simulation through the C++ parts it gives
(`coupler.serve.hot_path_parts`); `apply`, `apply_values` and `step` are the
same operations in Python, for the scene's own users (tests stepping a scene
as the server should, the step-cost benchmarks).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from coupler.wire.codec import encode
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import ControlMessage, HandshakeMessage, SensorMessage


class Simulation(Protocol):
    def handshake(self) -> HandshakeMessage:
        """The scene description sent in answer to HandshakeInit; constant for a run."""
        ...

    def sensors(self) -> SensorMessage:
        """The current state, without stepping."""
        ...

    def apply(self, control: ControlMessage) -> None:
        """Set the controls a Control carries, as a server reads its frame (ProtocolError, setting nothing, when it
        does not match the handshake).

        Objects and events the message leaves out keep their last values.
        """
        ...

    def step(self, steps: int = 1) -> None:
        """Advance the simulation by `steps` time steps with the current controls."""
        ...

    def reset(self) -> None:
        """Restore the initial state."""
        ...


@runtime_checkable
class ArraySimulation(Simulation, Protocol):
    """A Simulation whose state and controls also move through flat arrays.

    `sensors()` must describe the same numbers `sensor_values` writes, and
    `apply()` must do what `apply_values` does.
    """

    flat: FlatLayout
    """The arrays of this simulation's handshake."""

    def sensor_values(self, out: np.ndarray) -> float:
        """Write the current state to `out` in `flat.sensors.slots` order; return the simulated time."""
        ...

    def apply_values(
        self, values: np.ndarray, values_set: np.ndarray, events_set: np.ndarray, events_on: np.ndarray
    ) -> None:
        """Apply a checked Control read into `flat.controls`' arrays.

        `values` holds every object's controls in layout order, taken only
        for the objects `values_set` marks; `events_on` is taken only where
        `events_set` is true. Everything else keeps its last value.
        """
        ...


@runtime_checkable
class StateSimulation(Protocol):
    """A Simulation that can start from a given state or keyframe after a reset ("reset-state", "keyframes")."""

    def reset_to(self, qpos: list[float], qvel: list[float], keyframe: str | int | None = None) -> None:
        """Reset to `keyframe` (a name or an index of the handshake's keyframes; None: the start), then set the
        generalised positions and velocities (an empty list keeps the keyframe's or initial ones).

        ProtocolError (CONTROL_MISMATCH) naming the sizes, or the valid
        keyframes, with the state untouched, when a list is not empty and not
        the model's size, or the keyframe is not the model's.
        """
        ...


class MessagesFromArrays:
    """`sensors()` and `apply()` for an ArraySimulation, through its arrays.

    A simulation that inherits them moves every number through one place
    (`sensor_values`, `apply_values`), whichever server path asks.
    """

    def sensors(self: ArraySimulation) -> SensorMessage:
        return self.flat.sensor_message(self.sensor_values(self.flat.sensors.values))

    def apply(self: ArraySimulation, control: ControlMessage) -> None:
        c = self.flat.controls
        c.decode(encode(control))
        self.apply_values(c.values, c.values_set, c.events_set, c.events_on)
