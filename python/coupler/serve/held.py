"""The answer to a Control that is not answered yet: it waits for a step the loop takes later, or for the hot path
to serve it."""

from __future__ import annotations


class Held:
    """The answer to a Control that waits for the other controllers' Controls of the same step."""

    def __repr__(self) -> str:
        return "HELD"


HELD = Held()


class Admitted:
    """The answer to a Control that admitted its controller (or claimed its robots) and is left unapplied: the loop's
    hot path serves it (`coupler.serve.hot_path`), as every other Control of that controller."""

    def __repr__(self) -> str:
        return "ADMITTED"


ADMITTED = Admitted()
