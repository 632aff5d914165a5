"""What perf.rtt measures: its rows and floors, the programs each runs, and
the figures of one slice of round trips."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from perf.common import programs
from coupler.transport.curve_keys import create_key_pair, load_key_pair, load_public_key

from perf.common.errors import BenchmarkError
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
    """One slice: one client process against a server kept running.

    `samples` are the timed round trips in microseconds, the warm-up left
    out. CPU figures are user + system time of all a process's threads:
    the client's over its whole loop (warm-up included) per round trip,
    the server's from before the client started to after it finished, per
    request it answered in the slice. None where a figure says nothing (Click's server
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


# How long a floor program waits for a request or a reply: the server waits through the client's start, which
# on a loaded machine can take seconds.
FLOOR_TIMEOUT_SECONDS = 60


def floor_command(spec: FloorSpec, role: str, address: str, count: int) -> list[str]:
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
