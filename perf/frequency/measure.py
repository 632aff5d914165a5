"""One perf.frequency point: a demo controller driving the demo server at one
step size, paced to real time or not, and the control frequency it held."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from coupler.scenes.pick_approach import GRIP_SECONDS, MOVE_SECONDS, SETTLE_SECONDS

from perf.common import programs
from perf.common.endpoints import address_for
from perf.common.latency import read_timings
from perf.common.placement import CLIENT, SERVER, pinned
from perf.common.processes import ServerProcess, run_client
from perf.common.program_output import figure
from perf.frequency.parts import part_frequencies

CLIENTS = ("cpp", "python")
PACINGS = ("realtime", "unpaced")
# Simulated time a demo controller spends on its pick approach before the timed loop, on a scene with an arm.
PICK_APPROACH_SECONDS = MOVE_SECONDS + SETTLE_SECONDS + GRIP_SECONDS


@dataclass(frozen=True)
class PointSpec:
    step_ms: float
    client: str  # one of CLIENTS
    pacing: str  # one of PACINGS

    def label(self) -> str:
        return f"step {self.step_ms:g} ms {self.client} {self.pacing}"


@dataclass(frozen=True)
class Conditions:
    """What every point of a run shares."""

    scene: str
    transport: str
    receive: str  # "blocking" or "non-blocking"
    server_args: tuple[str, ...]
    pin: bool = True  # the controller and its server on one CPU, the harness on another (perf.common.placement)


@dataclass
class Point:
    spec: PointSpec
    target_hz: float  # the control frequency real time asks for: 1 / step
    control_hz: float  # Controls per wall second the client held over its timed loop
    real_time_factor: float  # simulated over wall time in the timed loop
    loop_round_trips: int
    loop_seconds: float
    server_steps: int  # every step of the run, the pick approach's included
    deadlines_missed: int | None  # paced runs only: steps answered later than one step past their slot
    # Controls per second in each equal part of every run's timed loop (perf.frequency.parts).
    part_hz: list[float] = field(default_factory=list)
    repetitions: int = 1  # runs of the point, each a fresh server and controller; the figures are of all

    @classmethod
    def combined(cls, runs: list[Point]) -> Point:
        """The runs of one point as one: Controls over the loops' total time, every count summed, every part
        kept."""
        first = runs[0]
        round_trips = sum(run.loop_round_trips for run in runs)
        seconds = sum(run.loop_seconds for run in runs)
        missed = [run.deadlines_missed for run in runs]
        return cls(
            spec=first.spec,
            target_hz=first.target_hz,
            control_hz=round_trips / seconds,
            real_time_factor=round_trips / seconds / first.target_hz,
            loop_round_trips=round_trips,
            loop_seconds=seconds,
            server_steps=sum(run.server_steps for run in runs),
            deadlines_missed=None if None in missed else sum(missed),
            part_hz=[hz for run in runs for hz in run.part_hz],
            repetitions=sum(run.repetitions for run in runs),
        )


def budget(round_trips: int, step: float) -> float:
    """Seconds a client may take: start-up, the pick approach and the loop at real time, five times over,
    plus 5 ms a step for a client slower than real time."""
    simulated = PICK_APPROACH_SECONDS + round_trips * step
    return 60.0 + 5.0 * simulated + 0.005 * simulated / step


def _client_command(spec: PointSpec, conditions: Conditions, address: str, round_trips: int,
                    timings_file: Path) -> list[str]:
    if spec.client == "cpp":
        command = [str(programs.democlient())]
    elif spec.client == "python":
        command = [programs.python(), "-m", "demo.client"]
    else:
        raise ValueError(f"unknown client '{spec.client}'")
    command += ["--addr", address, "--range", str(round_trips - 1), "--timings", "--timings-file", str(timings_file)]
    if conditions.receive == "blocking":
        command.append("--blocking-receive")
    return pinned(command, CLIENT, conditions.pin)


def measure_point(spec: PointSpec, conditions: Conditions, round_trips: int, workdir: Path) -> Point:
    """Start the server at the spec's step size and pacing, run the client's `round_trips` timed Controls, stop."""
    workdir = Path(tempfile.mkdtemp(prefix="point-", dir=workdir))
    address = address_for(conditions.transport, workdir)
    step = spec.step_ms / 1000.0
    server = [programs.python(), "-m", "demo.server", "--addr", address, "--scene", conditions.scene,
              "--step", repr(step), *conditions.server_args]
    if spec.pacing == "realtime":
        server.append("--realtime")
    timings_file = workdir / "timings.txt"
    with ServerProcess(pinned(server, SERVER, conditions.pin), workdir / "server.log",
                       handshake_address=address) as process:
        output = run_client(_client_command(spec, conditions, address, round_trips, timings_file),
                            timeout=budget(round_trips, step))
        summary = process.stop()
    control_hz = figure(output, "round trips per second")
    loop_seconds = figure(output, "total")
    return Point(
        spec=spec,
        target_hz=1.0 / step,
        control_hz=control_hz,
        real_time_factor=control_hz * step,
        loop_round_trips=int(figure(output, "round trips")),
        loop_seconds=loop_seconds,
        server_steps=int(figure(summary, "steps")),
        deadlines_missed=int(figure(summary, "deadlines missed")) if spec.pacing == "realtime" else None,
        part_hz=part_frequencies(read_timings(timings_file, round_trips), loop_seconds),
    )
