"""Gymnasium spaces of a handshake: actions from its controls and ranges, observations from its readings.

An action is one flat float vector: first every control value, object by
object in the order of `coupler::ControlLayout` (each object's controls in
handshake order), in [-1, 1] mapped linearly onto the handshake's control
range (-1 the range's min, 1 its max; the scale learning libraries expect),
or unbounded in the control's own units where the server gives no range;
then one dimension per control event, in [0, 1], that turns the event on
when it is 0.5 or more. An observation is the flat sensor
array of `coupler::SensorLayout`: every reading the handshake declares.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from coupler import _native
from coupler.controller.controls import Controls
from coupler.wire.codec import encode
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import HandshakeMessage

# An event dimension at or above this turns its event on.
EVENT_THRESHOLD = 0.5
# Readings declare no bounds. Infinite ones would make Gymnasium warn; this
# one admits every reading a simulation gives while the space can still be
# sampled (its width stays below the largest float64).
OBSERVATION_BOUND = 1e300


@dataclass(frozen=True)
class _ObjectActions:
    name: str
    values: slice
    events: tuple[tuple[str, int], ...]  # (event name, index in the action)


class ActionLayout:
    """The action space of a handshake, and writing an action into Controls."""

    def __init__(self, handshake: HandshakeMessage) -> None:
        layout = _native.ControlLayout(encode(handshake))
        lows: list[float] = []
        highs: list[float] = []
        centres: list[float] = []
        half_widths: list[float] = []
        event_names: list[tuple[str, str]] = []
        self.value_names: list[str] = []
        for o in layout.objects:
            described = handshake.objects[o.name]
            self.value_names.extend(f"{o.name}/{control}" for control in described.controls[: o.size])
            ranges = described.control_ranges if len(described.control_ranges) == o.size else []
            for i in range(o.size):
                limited = bool(ranges) and ranges[i].limited
                lows.append(-1.0 if limited else -np.inf)
                highs.append(1.0 if limited else np.inf)
                centres.append((ranges[i].min + ranges[i].max) / 2 if limited else 0.0)
                half_widths.append((ranges[i].max - ranges[i].min) / 2 if limited else 1.0)
            event_names.extend((o.name, event) for event in o.events)
        self.value_count = len(lows)
        self._centres = np.array(centres)
        self._half_widths = np.array(half_widths)
        self.event_names = event_names
        self._objects = tuple(
            _ObjectActions(
                name=o.name,
                values=slice(o.offset, o.offset + o.size),
                events=tuple((event, self.value_count + o.event_offset + k) for k, event in enumerate(o.events)),
            )
            for o in layout.objects
            if o.size or o.events
        )
        low = np.array(lows + [0.0] * len(event_names))
        high = np.array(highs + [1.0] * len(event_names))
        self.space = spaces.Box(low=low, high=high, dtype=np.float64)

    def control_values(self, action: np.ndarray) -> np.ndarray:
        """The control values, in their own units, of an action's value dimensions (of each row, for a batch)."""
        return self._centres + self._half_widths * action[..., : self.value_count]

    def apply_values(self, values: np.ndarray, controls: Controls) -> None:
        """Write control values, in their own units, into `controls` (no events)."""
        for o in self._objects:
            if o.values.stop > o.values.start:
                controls[o.name] = values[o.values]

    def apply(self, action: np.ndarray, controls: Controls) -> None:
        """Write one action into `controls` (values mapped onto their ranges, events thresholded)."""
        values = self.control_values(action)
        for o in self._objects:
            if o.values.stop > o.values.start:
                controls[o.name] = values[o.values]
            for event, index in o.events:
                controls.event(o.name, event, bool(action[index] >= EVENT_THRESHOLD))


def observation_space(flat: FlatLayout) -> spaces.Box:
    """A Box of every reading in the SensorLayout's order, each any finite number (see OBSERVATION_BOUND)."""
    size = len(flat.sensors.values)
    return spaces.Box(low=-OBSERVATION_BOUND, high=OBSERVATION_BOUND, shape=(size,), dtype=np.float64)
