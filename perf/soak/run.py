"""One perf.soak run: a demo server and the soak controller in processes of
their own; the memory of both read whenever the controller reports progress."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from perf.common import programs
from perf.common.endpoints import address_for
from perf.common.errors import BenchmarkError
from perf.common.processes import ServerProcess
from perf.soak.client import LINE_PREFIX
from perf.common.process_stats import rss_kib
from perf.soak.memory import Sample

# Start-up: imports, the handshake and, on an arm scene, the pick approach's 1500 round trips.
FIRST_LINE_SECONDS = 120.0
# The controller reports at least every 2 s and gives up on a silent server after its own timeout.
STALL_SECONDS = 30.0


@dataclass(frozen=True)
class Conditions:
    scene: str
    transport: str
    round_trips: int
    sample_every: int
    tolerance: float
    timeout: float  # s the controller waits for each answer
    server_args: tuple[str, ...] = ()


@dataclass
class SoakRun:
    samples: list[Sample]
    steps: dict[str, Any]  # the controller's last report: perf.soak.steps.StepCheck.to_dict()
    loop_seconds: float
    server_summary: str = field(repr=False)


Progress = Callable[[Sample, dict[str, Any]], None]


class LineReader:
    """Lines from a pipe, each wait bounded: a controller that hangs fails the run instead of stalling it."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._fd = stream.fileno()
        self._buffer = b""

    def next_line(self, timeout: float) -> str | None:
        """The next line without its newline; None at the end of the stream."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([self._fd], [], [], max(0.0, remaining))
            if not ready:
                raise BenchmarkError(f"the controller reported nothing for {timeout:.0f} s")
            chunk = os.read(self._fd, 65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode(errors="replace")


def parse_report(line: str) -> dict[str, Any] | None:
    """The figures of a controller progress line; None for any other line."""
    if not line.startswith(LINE_PREFIX):
        return None
    try:
        return json.loads(line[len(LINE_PREFIX):])
    except json.JSONDecodeError as error:
        raise BenchmarkError(f"the controller printed a malformed progress line ({error}): {line[:200]}") from None


def client_command(conditions: Conditions, address: str) -> list[str]:
    return [
        programs.python(), "-m", "perf.soak.client", "--addr", address,
        "--round-trips", str(conditions.round_trips), "--sample-every", str(conditions.sample_every),
        "--tolerance", repr(conditions.tolerance), "--timeout", repr(conditions.timeout),
    ]


def server_command(conditions: Conditions, address: str) -> list[str]:
    return [programs.python(), "-m", "demo.server", "--addr", address, "--scene", conditions.scene,
            *conditions.server_args]


def _tail(path: Path, lines: int = 20) -> str:
    return "\n".join(path.read_text(errors="replace").rstrip().splitlines()[-lines:])


def _follow(client: subprocess.Popen[bytes], server: ServerProcess, conditions: Conditions,
            client_log: Path, progress: Progress) -> tuple[list[Sample], dict[str, Any], float]:
    assert client.stdout is not None
    reader = LineReader(client.stdout)
    samples: list[Sample] = []
    steps: dict[str, Any] | None = None
    started: float | None = None
    while True:
        line = reader.next_line(FIRST_LINE_SECONDS if started is None else STALL_SECONDS)
        if line is None:
            break
        report = parse_report(line)
        if report is None:
            continue
        now = time.monotonic()
        started = now if started is None else started
        server.check_running()
        # The server's read right after the controller reported its own, while both run on:
        # a few round trips' skew at most.
        sample = Sample(report["round_trips"], now - started, rss_kib(server.pid), report["rss_kib"])
        samples.append(sample)
        steps = report
        progress(sample, report)
    try:
        code = client.wait(timeout=STALL_SECONDS)
    except subprocess.TimeoutExpired:
        raise BenchmarkError(
            f"the controller did not exit within {STALL_SECONDS:.0f} s of closing its output") from None
    if code != 0:
        raise BenchmarkError(f"the controller exited with {code}:\n{_tail(client_log)}")
    if steps is None or steps["round_trips"] != conditions.round_trips:
        done = 0 if steps is None else steps["round_trips"]
        raise BenchmarkError(f"the controller ended after {done} of {conditions.round_trips} round trips:\n"
                             f"{_tail(client_log)}")
    return samples, steps, samples[-1].seconds


def run(conditions: Conditions, workdir: Path, progress: Progress) -> SoakRun:
    """Start the server, run the controller to the end while sampling, stop the server cleanly."""
    address = address_for(conditions.transport, workdir)
    client_log = workdir / "client.log"
    with ServerProcess(server_command(conditions, address), workdir / "server.log",
                       handshake_address=address) as server:
        with open(client_log, "wb") as log:
            client = subprocess.Popen(client_command(conditions, address), cwd=programs.REPO,
                                      stdout=subprocess.PIPE, stderr=log)
        try:
            samples, steps, loop_seconds = _follow(client, server, conditions, client_log, progress)
        finally:
            if client.poll() is None:
                client.kill()
                client.wait(timeout=10)
            assert client.stdout is not None
            client.stdout.close()
        summary = server.stop()
    return SoakRun(samples, steps, loop_seconds, summary)
