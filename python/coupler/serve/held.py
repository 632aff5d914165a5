"""The answer to a Control that is not answered yet: it waits for a step the loop takes later."""

from __future__ import annotations


class Held:
    """The answer to a Control that waits for the other controllers' Controls of the same step."""

    def __repr__(self) -> str:
        return "HELD"


HELD = Held()
