"""A Control shaped by a handshake, filled by object and control name: the C++ `coupler::Controls`, bound."""

from __future__ import annotations

import numpy as np

from coupler import _native
from coupler.wire.codec import encode
from coupler.wire.messages import ControlMessage, HandshakeMessage

_MAX_STEPS = 2**64 - 1  # the wire field is a uint64: other steps are left to the codec to refuse


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
        self._use(_native.Controls(encode(handshake)))

    @classmethod
    def of(cls, native: _native.Controls) -> Controls:
        """The Controls around a `coupler._native.Controls` (as `coupler._native.Session.controls()` gives one)."""
        controls = cls.__new__(cls)
        controls._use(native)
        return controls

    def _use(self, native: _native.Controls) -> None:
        self._native = native
        self._views = {name: native.values(name) for name in native.objects}
        self.steps = 0  # coupler extension: hold the controls this many steps; 0 means one

    def __getitem__(self, obj: str) -> np.ndarray:
        view = self._views.get(obj)
        return self._native.values(obj) if view is None else view  # the native lookup names an unknown object

    def __setitem__(self, obj: str, values: np.ndarray | list[float]) -> None:
        self._native.assign(obj, values)

    def set(self, obj: str, control: str, value: float) -> None:
        self._native.set(obj, control, value)

    def get(self, obj: str, control: str) -> float:
        return self._native.get(obj, control)

    def event(self, obj: str, name: str, activated: bool) -> None:
        self._native.event(obj, name, activated)

    def message(self) -> ControlMessage:
        message = self._native.message()
        message.steps = self.steps
        return message

    def frame(self) -> bytes:
        """encode(self.message()), byte for byte, written straight from the arrays.

        Raises coupler.Error for steps that cannot be sent, as encode does.
        """
        steps = self.steps
        if type(steps) is int and 0 <= steps <= _MAX_STEPS:
            return self._native.frame(steps)
        return encode(self.message())
