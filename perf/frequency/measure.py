"""One perf.frequency point: a demo controller driving the demo server at one
step size, paced to real time or not, and the control frequency it held."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from coupler.scenes.pick_approach import GRIP_SECONDS, MOVE_SECONDS, SETTLE_SECONDS

from perf.common import programs
from perf.common.endpoints import address_for
from perf.common.processes import ServerProcess, run_client
from perf.common.program_output import figure

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


def budget(round_trips: int, step: float) -> float:
    """Seconds a client may take: start-up, the pick approach and the loop at real time, five times over,
    plus 5 ms a step for a client slower than real time."""
    simulated = PICK_APPROACH_SECONDS + round_trips * step
    return 60.0 + 5.0 * simulated + 0.005 * simulated / step


def _client_command(spec: PointSpec, conditions: Conditions, address: str, round_trips: int) -> list[str]:
    if spec.client == "cpp":
        command = [str(programs.democlient())]
    elif spec.client == "python":
        command = [programs.python(), "-m", "demo.client"]
    else:
        raise ValueError(f"unknown client '{spec.client}'")
    command += ["--addr", address, "--range", str(round_trips - 1), "--timings"]
    if conditions.receive == "blocking":
        command.append("--blocking-receive")
    return command


def measure_point(spec: PointSpec, conditions: Conditions, round_trips: int, workdir: Path) -> Point:
    """Start the server at the spec's step size and pacing, run the client's `round_trips` timed Controls, stop."""
    workdir = Path(tempfile.mkdtemp(prefix="point-", dir=workdir))
    address = address_for(conditions.transport, workdir)
    step = spec.step_ms / 1000.0
    server = [programs.python(), "-m", "demo.server", "--addr", address, "--scene", conditions.scene,
              "--step", repr(step), *conditions.server_args]
    if spec.pacing == "realtime":
        server.append("--realtime")
    with ServerProcess(server, workdir / "server.log", handshake_address=address) as process:
        output = run_client(_client_command(spec, conditions, address, round_trips), timeout=budget(round_trips, step))
        summary = process.stop()
    control_hz = figure(output, "round trips per second")
    return Point(
        spec=spec,
        target_hz=1.0 / step,
        control_hz=control_hz,
        real_time_factor=control_hz * step,
        loop_round_trips=int(figure(output, "round trips")),
        loop_seconds=figure(output, "total"),
        server_steps=int(figure(summary, "steps")),
        deadlines_missed=int(figure(summary, "deadlines missed")) if spec.pacing == "realtime" else None,
    )
