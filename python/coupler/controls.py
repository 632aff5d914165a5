"""A ControlMessage shaped by a handshake, filled by object and control name."""

from __future__ import annotations

import numpy as np

from coupler.errors import Error
from coupler.messages import ControlMessage, HandshakeMessage, ObjectControl


class Controls:
    """Every control of every object starts at 0 and every event off.

    `controls["arm"]` is the object's value array (NumPy, handshake order),
    writable in place; `set` and `event` address single controls by name.
    Unknown names raise coupler.Error naming them.
    """

    def __init__(self, handshake: HandshakeMessage) -> None:
        self._values: dict[str, np.ndarray] = {}
        self._events: dict[str, dict[str, bool]] = {}
        self._index: dict[str, dict[str, int]] = {}
        for name, described in handshake.objects.items():
            if not described.controls and not described.control_events:
                continue  # nothing to control
            self._values[name] = np.zeros(len(described.controls))
            self._events[name] = dict.fromkeys(described.control_events, False)
            self._index[name] = {control: i for i, control in enumerate(described.controls)}
        self.steps = 0  # coupler extension: hold the controls this many steps; 0 means one

    def __getitem__(self, obj: str) -> np.ndarray:
        try:
            return self._values[obj]
        except KeyError:
            raise Error(f"no controllable object named '{obj}'") from None

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
            raise Error(f"object '{obj}' has no control named '{control}'") from None

    def set(self, obj: str, control: str, value: float) -> None:
        self[obj][self._position(obj, control)] = value

    def get(self, obj: str, control: str) -> float:
        return float(self[obj][self._position(obj, control)])

    def event(self, obj: str, name: str, activated: bool) -> None:
        self[obj]
        events = self._events[obj]
        if name not in events:
            raise Error(f"object '{obj}' has no control event named '{name}'")
        events[name] = bool(activated)

    def message(self) -> ControlMessage:
        return ControlMessage(
            objects={
                name: ObjectControl(values=values.tolist(), events=dict(self._events[name]))
                for name, values in self._values.items()
            },
            steps=self.steps,
        )
