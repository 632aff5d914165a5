"""A ControlMessage shaped by a handshake, filled by object and control name."""

from __future__ import annotations

import numpy as np

from coupler import _native
from coupler.wire.codec import encode
from coupler.wire.errors import Error
from coupler.wire.messages import ControlMessage, HandshakeMessage, ObjectControl
from coupler.wire.name_list import valid_names

# The steps the native frame encodes (uint32); anything else is left to the codec (uint64 on the wire) to send or refuse.
_MAX_STEPS = 2**64 - 1  # the wire field is a uint64


class Controls:
    """Every control of every object starts at 0 and every event off.

    `controls["arm"]` is the object's value array (NumPy, handshake order),
    writable in place; `set` and `event` address single controls by name.
    Unknown names raise coupler.Error naming them.

    The values of all objects live in one float64 array and the events in
    one flag array, in the order of `coupler::ControlLayout`, so `frame()`
    is encoded from them without building a message.
    """

    def __init__(self, handshake: HandshakeMessage) -> None:
        self._layout = _native.ControlLayout(encode(handshake))
        placed = {o.name: o for o in self._layout.objects}
        self._events_on: np.ndarray = self._layout.events_on
        self._values: dict[str, np.ndarray] = {}
        # Each event's place in _events_on, in the handshake's event order.
        self._events: dict[str, dict[str, int]] = {}
        self._index: dict[str, dict[str, int]] = {}
        for name, described in handshake.objects.items():
            if not described.controls and not described.control_events:
                continue  # nothing to control
            o = placed[name]
            self._values[name] = self._layout.values[o.offset : o.offset + o.size]
            self._events[name] = {event: o.event_offset + o.events.index(event) for event in described.control_events}
            self._index[name] = {control: i for i, control in enumerate(described.controls)}
        self.steps = 0  # coupler extension: hold the controls this many steps; 0 means one

    def __getitem__(self, obj: str) -> np.ndarray:
        try:
            return self._values[obj]
        except KeyError:
            raise Error(f"no controllable object named '{obj}'; {valid_names(list(self._values))}") from None

    def __setitem__(self, obj: str, values: np.ndarray | list[float]) -> None:
        target = self[obj]
        if len(values) != len(target):
            raise Error(f"object '{obj}' has {len(target)} controls, got {len(values)} values")
        target[:] = values

    def _position(self, obj: str, control: str) -> int:
        self[obj]
        try:
            return self._index[obj][control]
        except KeyError:
            raise Error(f"object '{obj}' has no control named '{control}'; "
                        f"{valid_names(list(self._index[obj]))}") from None

    def set(self, obj: str, control: str, value: float) -> None:
        self[obj][self._position(obj, control)] = value

    def get(self, obj: str, control: str) -> float:
        return float(self[obj][self._position(obj, control)])

    def event(self, obj: str, name: str, activated: bool) -> None:
        self[obj]
        events = self._events[obj]
        if name not in events:
            raise Error(f"object '{obj}' has no control event named '{name}'; {valid_names(list(events))}")
        self._events_on[events[name]] = bool(activated)

    def message(self) -> ControlMessage:
        return ControlMessage(
            objects={
                name: ObjectControl(
                    values=values.tolist(),
                    events={event: bool(self._events_on[i]) for event, i in self._events[name].items()},
                )
                for name, values in self._values.items()
            },
            steps=self.steps,
        )

    def frame(self) -> bytes:
        """encode(self.message()), byte for byte, written straight from the arrays.

        Raises coupler.Error for steps that cannot be sent, as encode does.
        """
        steps = self.steps
        if type(steps) is int and 0 <= steps <= _MAX_STEPS:
            return self._layout.encode(steps)
        return encode(self.message())
