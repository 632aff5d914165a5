"""One perf.rtt measurement: a client's Control -> Sensor round trips
against a fresh server, or a transport floor of the same frame sizes."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from coupler.wire.messages import HandshakeInitMessage
from perf.common import programs
from coupler.transport.curve_keys import create_key_pair, load_key_pair, load_public_key

from perf.common.endpoints import CURVE_TRANSPORT, address_for, floor_transport
from perf.common.errors import BenchmarkError
from perf.common.latency import Latency, read_timings
from perf.common.processes import ServerProcess, run_client
from perf.common.program_output import figure, frame_sizes

CLIENTS = ("cpp", "python")
RECEIVE_MODES = ("blocking", "non-blocking")
COUPLER = "coupler"
PCLICK = "pclick"
# Click's demo server serves one fixed scene of its own.
PCLICK_SCENE = "click demo"
# A server's idle CPU use is measured between its readiness probe and the client: after letting it settle
# from answering the probe (the first request finishes loading code paths), over this much wall time.
IDLE_SETTLE_SECONDS = 0.3
IDLE_SECONDS = 0.5


def client_budget(count: int) -> float:
    """Seconds a client may take: start-up and an arm's pick approach, then a generous 20 ms a round trip."""
    return 60.0 + 0.02 * count


@dataclass(frozen=True)
class RowSpec:
    peer: str  # COUPLER or PCLICK
    scene: str
    client: str  # one of CLIENTS
    transport: str
    receive: str  # one of RECEIVE_MODES

    def label(self) -> str:
        return f"{self.peer} {self.scene} {self.client} {self.transport} {self.receive}"


@dataclass(frozen=True)
class FloorSpec:
    language: str  # "cpp" (zmq_pingpong) or "python" (pyzmq), matching the client it is the floor of
    transport: str
    request_bytes: int
    reply_bytes: int

    def label(self) -> str:
        return f"{self.language} floor {self.transport} {self.request_bytes}/{self.reply_bytes} bytes"


@dataclass
class Row:
    spec: RowSpec
    latency: Latency
    round_trips_per_second: float
    request_bytes: int
    reply_bytes: int
    # Server user + system CPU over the client's run per Control it answered (the pick approach's
    # included); None for a server whose CPU time says nothing (Click's spins).
    server_cpu_us_per_round_trip: float | None
    server_round_trips: int | None
    server_idle_cpu_percent: float  # of one core, while connected and waiting for the client's first request
    samples: np.ndarray = field(repr=False)

    def floor_spec(self) -> FloorSpec:
        return FloorSpec(self.spec.client, floor_transport(self.spec.transport), self.request_bytes, self.reply_bytes)


@dataclass
class Floor:
    spec: FloorSpec
    latency: Latency
    round_trips_per_second: float
    samples: np.ndarray = field(repr=False)


def server_command(spec: RowSpec, address: str, server_args: list[str]) -> tuple[list[str], dict[str, str] | None]:
    """The server program and its environment. Both servers trace frame sizes: the byte counts come from there."""
    if spec.peer == COUPLER:
        command = [programs.python(), "-m", "demo.server", "--addr", address, "--scene", spec.scene, "--trace-sizes"]
        return command + server_args, None
    if spec.peer == PCLICK:
        command = [str(programs.pclick_python()), "-m", "pclick.demo.server", "--addr", address, "--trace-sizes"]
        # Click's server prints its traces and leaves by os._exit on SIGINT: unbuffered, or they are lost.
        return command, {**os.environ, "PYTHONUNBUFFERED": "1"}
    raise ValueError(f"unknown peer '{spec.peer}'")


def client_command(spec: RowSpec, address: str, count: int, timings_file: Path) -> list[str]:
    if spec.client == "cpp":
        command = [str(programs.democlient()), "--timings"]
    elif spec.client == "python":
        command = [programs.python(), "-m", "demo.client", "--timings"]
    else:
        raise ValueError(f"unknown client '{spec.client}'")
    command += ["--addr", address, "--range", str(count - 1), "--timings-file", str(timings_file)]
    if spec.receive == "blocking":
        command.append("--blocking-receive")
    return command


@dataclass(frozen=True)
class CurveKeys:
    """Key files for a tcp-curve row, made as `coupler keygen` makes them."""

    server_secret: Path
    server_public: Path
    allow_dir: Path
    client_secret: Path

    @classmethod
    def create(cls, directory: Path) -> CurveKeys:
        server_public, server_secret = create_key_pair(directory, "server")
        _, client_secret = create_key_pair(directory / "allowed", "client")
        return cls(server_secret, server_public, directory / "allowed", client_secret)

    def server_flags(self) -> list[str]:
        return ["--curve-secret", str(self.server_secret), "--curve-allow", str(self.allow_dir)]

    def client_flags(self) -> list[str]:
        return ["--curve-server-key", str(self.server_public), "--curve-key", str(self.client_secret)]

    def client_options(self) -> dict:
        return {"curve_server_key": load_public_key(self.server_public),
                "curve_key_pair": load_key_pair(self.client_secret)}


def measure_row(spec: RowSpec, count: int, workdir: Path, server_args: list[str]) -> Row:
    """Start a server, run the client for `count` timed round trips, stop the server, read the figures."""
    # A directory of its own, so nothing a previous measurement left can be read as this one's.
    workdir = Path(tempfile.mkdtemp(prefix="row-", dir=workdir))
    address = address_for(spec.transport, workdir)
    timings_file = workdir / "timings.txt"
    keys = CurveKeys.create(workdir / "keys") if spec.transport == CURVE_TRANSPORT else None
    if keys is not None and spec.peer != COUPLER:
        raise ValueError(f"{spec.peer} has no {CURVE_TRANSPORT} transport")
    command, env = server_command(spec, address, server_args + (keys.server_flags() if keys else []))
    client = client_command(spec, address, count, timings_file) + (keys.client_flags() if keys else [])
    click = spec.peer == PCLICK
    probe = HandshakeInitMessage() if click else None  # Click's server answers nothing else
    with ServerProcess(command, workdir / "server.log", handshake_address=address, env=env, probe=probe,
                       client_options=keys.client_options() if keys else None) as server:
        time.sleep(IDLE_SETTLE_SECONDS)
        idle_cpu = server.idle_cpu_percent(IDLE_SECONDS)
        cpu_before = server.cpu_seconds()
        output = run_client(client, timeout=client_budget(count))
        # Click's server polls without sleeping, so its CPU time is wall time, not work, and it prints
        # no summary to stop for. The client's success is its health check.
        cpu_after = None if click else server.cpu_seconds()
        log = server.end() if click else server.stop()
    samples = read_timings(timings_file, count)
    request_bytes, reply_bytes = frame_sizes(log)
    if click:
        round_trips, cpu_per_round_trip = None, None
    else:
        # The Controls the server answered, the pick approach's included.
        round_trips = int(figure(log, "controls received"))
        cpu_per_round_trip = (cpu_after - cpu_before) / round_trips * 1e6
    return Row(
        spec=spec,
        latency=Latency.of(samples),
        round_trips_per_second=figure(output, "round trips per second"),
        request_bytes=request_bytes,
        reply_bytes=reply_bytes,
        server_cpu_us_per_round_trip=cpu_per_round_trip,
        server_round_trips=round_trips,
        server_idle_cpu_percent=idle_cpu,
        samples=samples,
    )


def _floor_command(spec: FloorSpec, role: str, address: str, count: int) -> list[str]:
    if spec.language == "cpp":
        command = [str(programs.zmq_pingpong())]
    elif spec.language == "python":
        command = [programs.python(), "-m", "perf.floor.pingpong"]
    else:
        raise ValueError(f"no floor program in '{spec.language}'")
    return command + [
        "--role", role, "--addr", address, "--count", str(count),
        "--request-bytes", str(spec.request_bytes), "--reply-bytes", str(spec.reply_bytes),
    ]


def measure_floor(spec: FloorSpec, count: int, workdir: Path) -> Floor:
    """Ping-pong `count` timed round trips of the spec's sizes between two processes of the same language."""
    workdir = Path(tempfile.mkdtemp(prefix="floor-", dir=workdir))
    address = address_for(spec.transport, workdir)
    timings_file = workdir / "timings.txt"
    # The client's REQ socket connects before or after the server binds alike, so no readiness wait is needed.
    with ServerProcess(_floor_command(spec, "server", address, count), workdir / "server.log") as server:
        client = _floor_command(spec, "client", address, count) + ["--timings-file", str(timings_file)]
        output = run_client(client, timeout=client_budget(count))
        server.finish(timeout=10.0)
    samples = read_timings(timings_file, count)
    return Floor(spec, Latency.of(samples), figure(output, "round trips per second"), samples)


def pclick_version() -> str:
    """The version of Click's reference package in its environment."""
    query = "import importlib.metadata as m; print(m.version('pclick'))"
    try:
        result = subprocess.run(
            [str(programs.pclick_python()), "-c", query], capture_output=True, text=True, timeout=30, check=True
        )
    except (subprocess.SubprocessError, OSError) as error:
        raise BenchmarkError(f"cannot ask the pclick environment for its version: {error}") from None
    return result.stdout.strip()
