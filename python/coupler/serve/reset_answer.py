"""The answer to a Reset: the simulation back to its start, or to a given state, for a controller that may drive."""

from __future__ import annotations

from coupler.serve.controller_admission import ControllerAdmission
from coupler.serve.simulation import StateSimulation
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import ErrorCode, ResetMessage


def asked_keyframe(message: ResetMessage) -> str | int | None:
    """The keyframe a Reset asks for, by name or index; None for none. ProtocolError when it names both."""
    if message.keyframe and message.keyframe_index is not None:
        raise ProtocolError("a Reset asks for a keyframe by name or by index, not both",
                            ErrorCode.CONTROL_MISMATCH)
    if message.keyframe:
        return message.keyframe
    return message.keyframe_index


class ResetAnswer:
    """Resets the simulation of `admission.run` for a peer `admission` lets drive.

    With several controllers (`shared`), a Reset would move the others'
    robots too: it is refused while others drive.
    """

    def __init__(self, admission: ControllerAdmission, shared: bool) -> None:
        self.admission = admission
        self.shared = shared

    def answer(self, message: ResetMessage, peer: bytes) -> ResetMessage:
        admission = self.admission
        run = admission.run
        controller = admission.sessions.admit(peer)
        if self.shared and len(admission.sessions.active) > 1:
            with admission.refusal_frees_place(controller):
                raise ProtocolError(
                    "server busy: other controllers drive robots of this scene, and a Reset would move them too; "
                    "reset when this controller is the only one left",
                    ErrorCode.SERVER_BUSY,
                )
        try:
            keyframe = asked_keyframe(message)
        except ProtocolError:
            with admission.refusal_frees_place(controller):
                raise
        given_state = bool(message.qpos or message.qvel) or keyframe is not None
        if given_state and not isinstance(run.simulation, StateSimulation):
            with admission.refusal_frees_place(controller):
                raise ProtocolError("this scene cannot start a reset from a given qpos/qvel or keyframe",
                                    ErrorCode.UNEXPECTED_MESSAGE)
        admission.accept(controller)
        if given_state:
            run.simulation.reset_to(message.qpos, message.qvel, keyframe)
        else:
            run.simulation.reset()
        run.running = False
        admission.stats.resets += 1
        return ResetMessage()
