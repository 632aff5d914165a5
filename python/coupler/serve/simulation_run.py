"""The run of a served simulation: whether it runs, the steps Controls take, and a long Control stepped in chunks.

Controls are stepped in C++ (`coupler.serve.native_control_step`), which
tells this run what it took (`stepped`); so are a free run's timed steps
(`coupler.serve.free_run_loop`), which its loop counts.
"""

from __future__ import annotations

from coupler.serve.long_control import LONG_CONTROL_STEPS, LongControl
from coupler.serve.server_stats import ServerStats
from coupler.serve.simulation import Simulation
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import ErrorCode


class SimulationRun:
    """Steps `simulation` for the Controls applied to it, counting in `stats`.

    With `lockstep` (Click semantics) a Control takes its steps (one unless
    the coupler `steps` extension asks for more); without, none: the caller
    steps the simulation on its own clock. The simulation waits (`running`
    False) for the first Control after a handshake, a reset or a change of
    who drives; `starts` counts the Controls that started it.
    """

    def __init__(self, simulation: Simulation, lockstep: bool, stats: ServerStats) -> None:
        self.simulation = simulation
        self.lockstep = lockstep
        self.stats = stats
        self.running = False
        # How many times a Control started the simulation: a paced loop restarts its clock then.
        self.starts = 0
        self.fresh_control = False
        # Set by a loop that steps long Controls in chunks (coupler.serve.long_control): a Control asking for more
        # than LONG_CONTROL_STEPS steps is then answered HELD, its steps left to take in `long_control`.
        self.chunk_long_controls = False
        self.long_control: LongControl | None = None

    def start(self) -> None:
        """A Control is carried out: the simulation runs, from now if it waited."""
        if not self.running:
            self.starts += 1
            self.running = True

    def begin(self, steps: int) -> int:
        """Start, for a Control with this `steps` field, applied and yet to take its steps; the steps it takes."""
        if not self.running:
            self.start()
        self.fresh_control = True
        return self.steps_per_control(steps)

    def leaves_to_loop(self, taken: int) -> bool:
        """True when a Control taking `taken` steps is left to a loop that takes them in chunks (`long_control`)."""
        return self.chunk_long_controls and taken > LONG_CONTROL_STEPS

    def stepped(self, steps: int) -> None:
        """A Control's `steps` were taken in C++ (`coupler.serve.native_control_step`): steps of that Control (none:
        a free run's, whose controls the next step takes)."""
        self.stats.steps += steps
        if steps:
            self.fresh_control = False

    def steps_per_control(self, steps: int) -> int:
        """How many steps a Control with this `steps` field takes: none unless in lockstep."""
        return max(steps, 1) if self.lockstep else 0

    def refuse_while_stepping(self, peer: bytes) -> None:
        """While a long Control is stepped, only reads are served: refuse `peer`'s request to drive."""
        long = self.long_control
        if long is None:
            return
        progress = f"{long.taken} of {long.steps} steps taken"
        if peer in long.peers:
            raise ProtocolError(
                f"unexpected message: this controller's previous Control is still being stepped ({progress}); "
                "wait for its answer",
                ErrorCode.UNEXPECTED_MESSAGE,
            )
        raise ProtocolError(
            f"server busy: a Control of many steps is being stepped ({progress}); retry once it is answered",
            ErrorCode.SERVER_BUSY,
        )
