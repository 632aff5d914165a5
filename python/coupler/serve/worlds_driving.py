"""A request to drive every world of a batched server: admitted, refused and counted as a Control is."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from coupler.serve.controller_admission import ControllerAdmission
from coupler.serve.request_guard import RequestGuard
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import ErrorCode, ErrorMessage

T = TypeVar("T")


class WorldsDriving:
    """Runs requests to drive every world for the peers `admission` lets drive, through `guard`.

    With several controllers (`shared`) they are refused: a request for every
    world drives the whole scene.
    """

    def __init__(self, admission: ControllerAdmission, guard: RequestGuard, shared: bool) -> None:
        self.admission = admission
        self.guard = guard
        self.shared = shared

    def answer(self, peer: bytes, steps: int, drive: Callable[[], T]) -> T | ErrorMessage:
        """Run `drive` for `peer`, which steps `steps` times by itself; the ErrorMessage to send when refused or failed.

        `drive` raises ProtocolError before it changes anything for a request it refuses.
        """
        admission = self.admission

        def control() -> T:
            admission.run.refuse_while_stepping(peer)  # a long Control is stepped in chunks: one at a time
            controller = admission.sessions.admit(peer)
            with admission.refusal_frees_place(controller):
                if self.shared:
                    raise ProtocolError("server busy: a request for every world drives the whole scene, which "
                                        "several controllers share", ErrorCode.SERVER_BUSY)
                result = drive()
            admission.accept(controller)
            admission.stats.controls += 1
            admission.stats.steps += steps
            admission.run.start()
            return result

        return self.guard.answer("ControlMessage", control)
