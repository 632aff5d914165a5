"""The answer to a Control: checked and read by the C++ `ControlLayout`, applied, stepped, and the new state read.

However a Control arrives (a native request, or a message given to
`SimulationServer.handle`), it is served by `values`; one the layout refuses
is answered by `refusal`. A lone controller's Control is applied, stepped and
read in C++ (`coupler.serve.native_control_step`), through the loop's hot path
where there is one; under a loop, one of many steps is applied there and
left to the loop (HELD), whose hot path takes its chunks as its own
(`coupler.serve.long_control`). With several controllers, a Control claims
its robots, is applied in C++ without a step and waits (HELD) for the
others' Controls of the same step; their round is stepped and read in C++
too (`take_round`), under a loop one of many steps in chunks C++ takes.

Under a loop whose hot path can serve it (`hands_over`), the Control that
admits a controller, or claims robots for it, is only admitted here (who
drives is decided in Python, its refusals as ever) and answered ADMITTED:
the hot path applies, steps and answers it as any other Control of that
controller (`coupler.serve.hot_path`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

import numpy as np

from coupler import _native
from coupler.serve.controller_admission import ControllerAdmission
from coupler.serve.controller_sessions import Controller, ControllerSessions
from coupler.serve.held import ADMITTED, HELD, Admitted, Held
from coupler.serve.native_control_step import NativeControlStep
from coupler.serve.request_guard import RequestGuard
from coupler.serve.simulation import ArraySimulation
from coupler.wire.codec import encode
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import ControlMessage, ErrorCode, ErrorMessage, SensorMessage


class ControlAnswer:
    """Serves the Controls of the peers `admission` lets drive, through `guard`; `shared` when several drive."""

    def __init__(self, admission: ControllerAdmission, guard: RequestGuard, shared: bool) -> None:
        self.admission = admission
        self.sessions = admission.sessions
        self._active = admission.sessions.active  # the same dict, looked up on every Control
        self.run = admission.run
        self.guard = guard
        self.shared = shared
        simulation = admission.run.simulation
        # Object names in the order of the native control arrays (array simulations only).
        self._control_objects: list[str] = (
            [o.name for o in simulation.flat.controls.objects] if isinstance(simulation, ArraySimulation) else []
        )
        # Set by a loop whose hot path serves the Control that admits a controller: while it returns True, that
        # Control is admitted and left unapplied (ADMITTED), for the hot path to serve.
        self.hands_over: Callable[[], bool] | None = None
        self._step: NativeControlStep | None = None  # the C++ step of a lone controller's Controls, made when needed
        self._step_made = False

    def step_with(self, step: NativeControlStep) -> None:
        """Step the Controls served here through `step`, over the `_native.HotPath` of a loop: one C++ object steps
        the simulation."""
        self._step = step
        self._step_made = True

    def _native_step(self) -> NativeControlStep | None:
        if not self._step_made:
            self._step = NativeControlStep.for_simulation(self.run.simulation)
            self._step_made = True
        return self._step

    def message(self, control: ControlMessage, peer: bytes) -> SensorMessage | ErrorMessage | Held:
        """A Control given as a message, served as a native request is: read by the control layout, then applied."""
        simulation = self.run.simulation
        if not isinstance(simulation, ArraySimulation):
            return self.refusal(
                ProtocolError("unexpected message: this scene takes no Controls", ErrorCode.UNEXPECTED_MESSAGE), peer)
        flat = simulation.flat
        try:
            steps = flat.controls.decode(encode(control))
        except ProtocolError as error:
            return self.refusal(error, peer)
        # A message has no request the hot path could answer: it is served here.
        answer = self.values(flat.controls, steps, flat.sensors.values, peer, hand_over=False)
        assert not isinstance(answer, Admitted)
        if isinstance(answer, float):
            return flat.sensor_message(answer)
        return answer

    def values(self, controls: _native.ControlLayout, steps: int, sensors_out: np.ndarray,
               peer: bytes = b"", hand_over: bool = True) -> float | ErrorMessage | Held | Admitted:
        """Apply a Control read into `controls`, step, and write the new state to `sensors_out`; its simulated time.

        The ErrorMessage to send when `peer` may not drive or the simulation
        failed; HELD when the step waits for other controllers or is left to
        the loop; ADMITTED when it admitted its controller (or claimed its
        robots) and is left unapplied for the hot path (`hands_over`, unless
        not `hand_over`).
        """
        run = self.run
        stats = run.stats
        clock = self.sessions.clock

        def control() -> float | Held | Admitted:
            if run.long_control is not None:
                run.refuse_while_stepping(peer)
            controller = self._active.get(peer)
            if controller is None or self.shared:
                admitted = self._admitted(controls, steps, peer, hand_over)
                if admitted is not None:
                    return admitted
            else:
                # The path of every Control of a lone controller: one lookup, and its lease renewed.
                controller.seen = clock()
            taken = run.steps_per_control(steps)
            step = self._native_step()
            if step is None:
                raise ProtocolError("unexpected message: this scene takes no Controls", ErrorCode.UNEXPECTED_MESSAGE)
            if step.chunks and run.leaves_to_loop(taken):
                return self._start_chunks(step, steps, peer)
            step.refuse()
            stats.controls += 1
            run.begin(steps)
            outcome = step.take(taken, sensors_out)
            if outcome.failure:
                raise RuntimeError(outcome.failure)  # answered as any failure while handling a Control
            run.stepped(outcome.steps)
            return cast(float, outcome.simulated_time)

        return self.guard.answer("ControlMessage", control)

    def _start_chunks(self, step: NativeControlStep, steps: int, peer: bytes) -> Held:
        """A lone controller's Control of many steps under a loop: applied in C++, left to the loop (HELD) in
        `long_control`, its chunks taken by the hot path."""
        run = self.run
        step.refuse()
        outcome, long = step.start_chunks(run.steps_per_control(steps), [peer])
        if long is None and not outcome.failure:
            raise RuntimeError(f"a Control of {steps} steps was not applied for stepping in chunks")
        run.stats.controls += 1
        run.begin(steps)
        if outcome.failure:
            raise RuntimeError(outcome.failure)  # answered as any failure while handling a Control
        run.long_control = long
        return HELD

    def take_round(self, steps: int, peers: Sequence[bytes]) -> int:
        """Start, and take in C++ the steps of the round of `peers`' Controls (applied and held here) with this `steps`
        field; the steps it takes. Under a loop (`chunk_long_controls`) more than LONG_CONTROL_STEPS are left to it in
        `long_control`, its chunks taken by the hot path."""
        run = self.run
        step = self._native_step()
        assert step is not None  # a Control of several controllers is applied in C++ (`_admitted`)
        taken = run.begin(steps)
        if step.chunks and run.leaves_to_loop(taken):
            outcome, long = step.start_applied_chunks(taken, list(peers))
            if outcome.failure:
                raise RuntimeError(outcome.failure)  # answered as any failure while stepping a round
            if long is None:
                raise RuntimeError(f"a round of {taken} steps was not left for stepping in chunks")
            run.long_control = long
        elif taken:
            outcome = step.step_applied(taken)
            if outcome.failure:
                raise RuntimeError(outcome.failure)  # answered as any failure while stepping a round
            run.stepped(outcome.steps)
        return taken

    def refusal(self, error: ProtocolError, peer: bytes = b"") -> ErrorMessage:
        """The answer to a Control of `peer` that the control layout refused with `error`, as a request to drive.

        A peer that may not drive is told so first (SERVER_BUSY, or that its
        long Control is still being stepped); a newcomer refused takes no place.
        """

        def refuse() -> None:
            self.run.refuse_while_stepping(peer)
            controller = self.sessions.admit(peer)
            with self.admission.refusal_frees_place(controller):
                raise error

        return cast(ErrorMessage, self.guard.answer("ControlMessage", refuse))

    def busy_refusal(self, peer: bytes) -> ErrorMessage | None:
        """The SERVER_BUSY answer for a request to drive from `peer` when no place is free for it, else None.

        Asked before a Control's body is read: a peer that may not drive must
        cost the server almost nothing, whatever shape its Control has.
        """
        long = self.run.long_control
        stepping = long is not None and peer not in long.peers
        if self.sessions.may_admit(peer) and not stepping:
            return None

        def refuse() -> None:
            self.run.refuse_while_stepping(peer)
            raise ProtocolError(self.sessions.busy_text(), ErrorCode.SERVER_BUSY)

        return cast(ErrorMessage, self.guard.answer("ControlMessage", refuse))

    def _admitted(self, controls: _native.ControlLayout, steps: int, peer: bytes,
                  hand_over: bool) -> Held | Admitted | None:
        """Admit a newcomer, or one of several controllers, claim its robots and apply its Control (several
        controllers'; a lone controller's is served as any other).

        HELD when the Control, one of several controllers', waits for the
        others' Controls of the same step; ADMITTED when it admitted its
        controller or claimed robots, and the hot path serves it.
        """
        controller = self.sessions.admit(peer)
        # Only a Control that changes who drives what goes to the hot path: one that changes nothing here is one the
        # hot path handed back (an encoding it does not read, say), which it would hand back again.
        changed = not controller.accepted
        if self.shared:
            objects = self._control_objects
            with self.admission.refusal_frees_place(controller):
                _check_not_waiting(self.sessions, controller)
                changed |= self.sessions.claim(controller, (objects[k] for k in np.flatnonzero(controls.values_set)))
        self.admission.accept(controller)
        if changed and hand_over and self.hands_over is not None and self.hands_over():
            # Who drives is decided; its Control is served by the hot path, as every other of this controller.
            return ADMITTED
        if self.shared:
            step = self._native_step()
            if step is None:
                raise ProtocolError("unexpected message: this scene takes no Controls", ErrorCode.UNEXPECTED_MESSAGE)
            step.refuse()
            outcome = step.apply()
            if outcome.failure:
                raise RuntimeError(outcome.failure)  # answered as any failure while handling a Control
            self.sessions.hold(controller, steps)
            self.admission.stats.controls += 1
            return HELD
        return None


def _check_not_waiting(sessions: ControllerSessions, controller: Controller) -> None:
    if sessions.holds(controller.peer):
        raise ProtocolError(
            "unexpected message: this controller's previous Control still waits for the other controllers' "
            "Controls of the same step",
            ErrorCode.UNEXPECTED_MESSAGE,
        )
