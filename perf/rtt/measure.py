"""One perf.rtt measurement: a client's Control -> Sensor round trips
against a fresh server, or a transport floor of the same frame sizes, with
the CPU time both processes spent on them."""

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
from perf.common.latency import read_timings
from perf.common.processes import ServerProcess, run_client
from perf.common.program_output import figure, frame_sizes
from perf.rtt.recording import Recording

CLIENTS = ("cpp", "python")
RECEIVE_MODES = ("blocking", "non-blocking")
COUPLER = "coupler"
PCLICK = "pclick"
# The minimal C++ ROUTER server answering frames recorded from coupler's server (perf/floor/recorded_server.cpp).
RECORDED = "recorded"
# Click's demo server serves one fixed scene of its own; the recorded server the frames of coupler's static scene.
PCLICK_SCENE = "click demo"
RECORDED_SCENE = "static"
# A server's idle CPU use is measured between its readiness probe and the client: after letting it settle
# from answering the probe (the first request finishes loading code paths), over this much wall time.
IDLE_SETTLE_SECONDS = 0.3
IDLE_SECONDS = 0.5


def client_budget(count: int) -> float:
    """Seconds a client may take: start-up and an arm's pick approach, then a generous 20 ms a round trip."""
    return 60.0 + 0.02 * count


@dataclass(frozen=True)
class RowSpec:
    peer: str  # COUPLER, RECORDED or PCLICK
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
class Run:
    """One measurement: a fresh server and one client process.

    `samples` are the timed round trips in microseconds, the warm-up left
    out. CPU figures are user + system time of all a process's threads:
    the client's over its whole loop (warm-up included) per round trip,
    the server's from before the client started to after it finished, per
    request it answered. None where a figure says nothing (Click's server
    spins, so its CPU time is wall time).
    """

    samples: np.ndarray = field(repr=False)
    round_trips_per_second: float
    request_bytes: int
    reply_bytes: int
    client_cpu_us: float
    server_cpu_us: float | None
    server_round_trips: int | None
    server_idle_cpu_percent: float | None

    @property
    def p50(self) -> float:
        return float(np.quantile(self.samples, 0.5, method="nearest"))


def server_command(spec: RowSpec, address: str, server_args: list[str],
                   recording: Recording | None) -> tuple[list[str], dict[str, str] | None]:
    """The server program and its environment. coupler's and Click's servers trace frame sizes: the byte
    counts come from there; the recorded server's are those of its recording."""
    if spec.peer == COUPLER:
        command = [programs.python(), "-m", "demo.server", "--addr", address, "--scene", spec.scene, "--trace-sizes"]
        return command + server_args, None
    if spec.peer == PCLICK:
        command = [str(programs.pclick_python()), "-m", "pclick.demo.server", "--addr", address, "--trace-sizes"]
        # Click's server prints its traces and leaves by os._exit on SIGINT: unbuffered, or they are lost.
        return command, {**os.environ, "PYTHONUNBUFFERED": "1"}
    if spec.peer == RECORDED:
        if recording is None:
            raise ValueError("the recorded server needs a recording")
        return [str(programs.recorded_server()), "--addr", address, *recording.flags()], None
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


def _timed(path: Path, warm_up: int, count: int) -> np.ndarray:
    return read_timings(path, warm_up + count)[warm_up:]


def measure_row(spec: RowSpec, count: int, warm_up: int, workdir: Path, server_args: list[str],
                recording: Recording | None = None) -> Run:
    """Start a server, run the client for `warm_up` + `count` round trips, stop the server, read the figures."""
    # A directory of its own, so nothing a previous measurement left can be read as this one's.
    workdir = Path(tempfile.mkdtemp(prefix="row-", dir=workdir))
    address = address_for(spec.transport, workdir)
    timings_file = workdir / "timings.txt"
    keys = CurveKeys.create(workdir / "keys") if spec.transport == CURVE_TRANSPORT else None
    if keys is not None and spec.peer != COUPLER:
        raise ValueError(f"{spec.peer} has no {CURVE_TRANSPORT} transport")
    command, env = server_command(spec, address, server_args + (keys.server_flags() if keys else []), recording)
    client = client_command(spec, address, warm_up + count, timings_file) + (keys.client_flags() if keys else [])
    click = spec.peer == PCLICK
    probe = HandshakeInitMessage() if click else None  # Click's server answers nothing else
    with ServerProcess(command, workdir / "server.log", handshake_address=address, env=env, probe=probe,
                       client_options=keys.client_options() if keys else None) as server:
        time.sleep(IDLE_SETTLE_SECONDS)
        idle_cpu = server.idle_cpu_percent(IDLE_SECONDS)
        cpu_before = server.cpu_seconds()
        output = run_client(client, timeout=client_budget(warm_up + count))
        # Click's server polls without sleeping, so its CPU time is wall time, not work, and it prints
        # no summary to stop for. The client's success is its health check.
        cpu_after = None if click else server.cpu_seconds()
        log = server.end() if click else server.stop()
    if spec.peer == RECORDED:
        request_bytes, reply_bytes = recording.control_bytes, recording.sensor_bytes
        round_trips = int(figure(log, "requests answered")) - 1  # the readiness probe's is not the client's
    else:
        request_bytes, reply_bytes = frame_sizes(log)
        # The Controls the server answered, the pick approach's included.
        round_trips = None if click else int(figure(log, "controls received"))
    cpu_us = None if cpu_after is None else (cpu_after - cpu_before) / round_trips * 1e6
    return Run(
        samples=_timed(timings_file, warm_up, count),
        round_trips_per_second=figure(output, "round trips per second"),
        request_bytes=request_bytes,
        reply_bytes=reply_bytes,
        client_cpu_us=figure(output, "client CPU per round trip"),
        server_cpu_us=cpu_us,
        server_round_trips=round_trips,
        server_idle_cpu_percent=idle_cpu,
    )


# How long a floor program waits for a request or a reply: the server waits through the client's start, which
# on a loaded machine can take seconds.
FLOOR_TIMEOUT_SECONDS = 60


def _floor_command(spec: FloorSpec, role: str, address: str, count: int) -> list[str]:
    if spec.language == "cpp":
        command = [str(programs.zmq_pingpong()), "--timeout", str(FLOOR_TIMEOUT_SECONDS * 1000)]
    elif spec.language == "python":
        command = [programs.python(), "-m", "perf.floor.pingpong", "--timeout", str(FLOOR_TIMEOUT_SECONDS)]
    else:
        raise ValueError(f"no floor program in '{spec.language}'")
    return command + [
        "--role", role, "--addr", address, "--count", str(count),
        "--request-bytes", str(spec.request_bytes), "--reply-bytes", str(spec.reply_bytes),
    ]


def measure_floor(spec: FloorSpec, count: int, warm_up: int, workdir: Path) -> Run:
    """Ping-pong `warm_up` + `count` round trips of the spec's sizes between two processes of the same language."""
    workdir = Path(tempfile.mkdtemp(prefix="floor-", dir=workdir))
    address = address_for(spec.transport, workdir)
    timings_file = workdir / "timings.txt"
    exchanges = warm_up + count
    # The server is told to answer one request more than the probe's and the client's, so it is still there
    # to have its CPU time read when the client is done; it is killed then.
    server_command = _floor_command(spec, "server", address, exchanges + 2)
    probe = bytes(spec.request_bytes)
    with ServerProcess(server_command, workdir / "server.log", handshake_address=address,
                       raw_probe=(probe, spec.reply_bytes)) as server:
        cpu_before = server.cpu_seconds()
        client = _floor_command(spec, "client", address, exchanges) + ["--timings-file", str(timings_file)]
        output = run_client(client, timeout=client_budget(exchanges))
        # The client's untimed first exchange is answered too.
        server_cpu_us = (server.cpu_seconds() - cpu_before) / (exchanges + 1) * 1e6
        server.end()
    return Run(
        samples=_timed(timings_file, warm_up, count),
        round_trips_per_second=figure(output, "round trips per second"),
        request_bytes=spec.request_bytes,
        reply_bytes=spec.reply_bytes,
        client_cpu_us=figure(output, "client CPU per round trip"),
        server_cpu_us=server_cpu_us,
        server_round_trips=exchanges + 1,
        server_idle_cpu_percent=None,
    )


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
