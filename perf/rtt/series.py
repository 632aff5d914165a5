"""A perf.rtt row or floor measured slice after slice against one server kept
running: each slice is a fresh client process, so every slice of a row and
of its floor starts alike, against a server that has long finished
starting. Between its slices a row's server is stopped (SIGSTOP): Click's
server spins while idle and would otherwise take a core from whatever is
measured beside it."""

from __future__ import annotations

import os
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from coupler.wire.messages import HandshakeInitMessage

from perf.common.endpoints import CURVE_TRANSPORT, address_for
from perf.common.errors import BenchmarkError
from perf.common.latency import read_timings
from perf.common import placement
from perf.common.placement import CLIENT, SERVER, pinned
from perf.common.process_stats import exact_cpu_seconds
from perf.common.processes import ServerProcess, run_client
from perf.common.program_output import figure, frame_sizes, wait_for_frame_sizes
from perf.rtt.measure import (COUPLER, IDLE_SECONDS, IDLE_SETTLE_SECONDS, PCLICK, RECORDED,
                              CurveKeys, FloorSpec, RowSpec, Run, client_budget, client_command, floor_command,
                              server_command)
from perf.rtt.recording import Recording


# How long a row server's log may take to show the frame sizes of a slice's Controls once its client has
# finished: the log lags the server's output by however long the reader copying it waits for a CPU.
FRAME_SIZES_TIMEOUT_SECONDS = 10.0


@dataclass
class _Slice:
    """A slice's figures before the server's totals say how many requests it answered per slice."""

    samples: np.ndarray = field(repr=False)
    round_trips_per_second: float
    client_cpu_us: float
    server_cpu_seconds: float | None


def _timed(path: Path, warm_up: int, count: int) -> np.ndarray:
    return read_timings(path, warm_up + count)[warm_up:]


class _Series:
    """The server and the slices measured so far; a context manager that starts and finally kills the server."""

    server: ServerProcess
    workdir: Path

    def __init__(self) -> None:
        self.slices: list[_Slice] = []
        self.suspended = False

    def __enter__(self) -> _Series:
        self.server.__enter__()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.resume()
        self.server.__exit__(*exc_info)

    def suspend(self) -> None:
        if not self.suspended and self.server.poll() is None:
            os.kill(self.server.pid, signal.SIGSTOP)
            self.suspended = True

    def resume(self) -> None:
        if self.suspended:
            os.kill(self.server.pid, signal.SIGCONT)
            self.suspended = False

    def server_cpu_seconds_now(self) -> float:
        """The server's CPU time so far, to the nanosecond."""
        self.server.check_running()
        return exact_cpu_seconds(self.server.pid)

    def _run_slice(self, client: list[str], timings_file: Path, warm_up: int, count: int,
                   server_cpu: bool = True) -> _Slice:
        self.resume()
        before = self.server_cpu_seconds_now() if server_cpu else None
        output = run_client(client, timeout=client_budget(warm_up + count))
        after = self.server_cpu_seconds_now() if server_cpu else None
        measured = _Slice(
            samples=_timed(timings_file, warm_up, count),
            round_trips_per_second=figure(output, "round trips per second"),
            client_cpu_us=figure(output, "client CPU per round trip"),
            server_cpu_seconds=None if before is None or after is None else after - before,
        )
        self.slices.append(measured)
        return measured

    def _runs(self, request_bytes: int, reply_bytes: int, requests_per_slice: float | None,
              idle_cpu: float | None) -> list[Run]:
        return [
            Run(samples=s.samples, round_trips_per_second=s.round_trips_per_second, request_bytes=request_bytes,
                reply_bytes=reply_bytes, client_cpu_us=s.client_cpu_us,
                server_cpu_us=None if s.server_cpu_seconds is None or not requests_per_slice
                else s.server_cpu_seconds / requests_per_slice * 1e6,
                server_round_trips=None if requests_per_slice is None else round(requests_per_slice),
                server_idle_cpu_percent=idle_cpu)
            for s in self.slices
        ]


class RowSeries(_Series):
    """A row: its server (coupler's, the recorded one or Click's) and a fresh client each slice."""

    def __init__(self, spec: RowSpec, workdir: Path, server_args: list[str], recording: Recording | None,
                 pin: bool = True) -> None:
        super().__init__()
        self.spec = spec
        self.pin = pin
        # A directory of its own, so nothing another measurement left can be read as this one's.
        self.workdir = Path(tempfile.mkdtemp(prefix="row-", dir=workdir))
        self.address = address_for(spec.transport, self.workdir)
        self.keys = CurveKeys.create(self.workdir / "keys") if spec.transport == CURVE_TRANSPORT else None
        if self.keys is not None and spec.peer != COUPLER:
            raise ValueError(f"{spec.peer} has no {CURVE_TRANSPORT} transport")
        self.recording = recording
        command, env = server_command(spec, self.address, server_args + (self.keys.server_flags() if self.keys else []),
                                      recording)
        self.click = spec.peer == PCLICK
        probe = HandshakeInitMessage() if self.click else None  # Click's server answers nothing else
        # Started on any CPU, side by side with the run's other row servers, and moved to the measured CPU
        # once it answers (start_rows): a run pays for its servers' start-ups on both CPUs at once.
        self.server = ServerProcess(command, self.workdir / "server.log", handshake_address=self.address, env=env,
                                    probe=probe, client_options=self.keys.client_options() if self.keys else None)
        self.idle_cpu: float | None = None

    def __enter__(self) -> RowSeries:
        """Launch the server without waiting for it (start_rows waits for every row's together)."""
        self.server.launch()
        return self

    def measure_slice(self, count: int, warm_up: int) -> _Slice:
        timings_file = self.workdir / f"timings-{len(self.slices)}.txt"
        client = client_command(self.spec, self.address, warm_up + count, timings_file)
        client = pinned(client + (self.keys.client_flags() if self.keys else []), CLIENT, self.pin)
        # Click's server polls without sleeping, so its CPU time is wall time, not work: not read.
        measured = self._run_slice(client, timings_file, warm_up, count, server_cpu=not self.click)
        self.suspend()
        return measured

    def frame_bytes(self) -> tuple[int, int]:
        """(request, reply) bytes of the Controls measured so far, while the server runs: the recording's, or
        those the server traced. Its log is copied from its output as it comes, so the line of a slice's
        Controls can still be on its way when the slice's client has finished: waited for
        (wait_for_frame_sizes), the server running meanwhile in case suspend() stopped it before it logged."""
        if self.spec.peer == RECORDED:
            return self._recorded_frames()
        log_path = self.server.log_path
        assert log_path is not None

        def read_log() -> str:
            self.server.check_running()
            return log_path.read_text(errors="replace")

        suspended = self.suspended
        self.resume()
        try:
            return wait_for_frame_sizes(read_log, FRAME_SIZES_TIMEOUT_SECONDS)
        finally:
            if suspended:
                self.suspend()

    def _recorded_frames(self) -> tuple[int, int]:
        assert self.recording is not None
        return self.recording.control_bytes, self.recording.sensor_bytes

    def finish(self) -> list[Run]:
        """Stop the server and return a Run per slice, its CPU time per request the server answered."""
        self.resume()
        # The frames from the whole output of the stopped server: the sizes the last slice's Controls traced.
        if self.click:
            log = self.server.end()
            return self._runs(*frame_sizes(log), None, self.idle_cpu)
        log = self.server.stop()
        if self.spec.peer == RECORDED:
            request_bytes, reply_bytes = self._recorded_frames()
            answered = int(figure(log, "requests answered")) - 1  # the readiness probe's is not a client's
        else:
            request_bytes, reply_bytes = frame_sizes(log)
            answered = int(figure(log, "controls received"))  # the pick approach's Controls included
        # Every slice's client sends the same requests, so each slice answered an equal share.
        return self._runs(request_bytes, reply_bytes, answered / len(self.slices), self.idle_cpu)


def start_rows(rows: list[RowSeries]) -> None:
    """Wait until every launched row server answers, move each to the measured CPU, then measure their idle
    CPU over one shared window and stop them (SIGSTOP) until their slices: servers starting side by side,
    and idle side by side, cost a run one start-up and one idle wait."""
    for row in rows:
        row.server.ready()
    for row in rows:
        placement.move(row.server.pid, row.pin)
    time.sleep(IDLE_SETTLE_SECONDS)
    before = [row.server_cpu_seconds_now() for row in rows]
    started = time.monotonic()
    time.sleep(IDLE_SECONDS)
    wall = time.monotonic() - started
    for row, cpu in zip(rows, before):
        row.idle_cpu = 100.0 * (row.server_cpu_seconds_now() - cpu) / wall
    for row in rows:
        row.suspend()


class FloorSeries(_Series):
    """A floor: a ping-pong server of the floor's language answering every slice's fresh client."""

    # The most slices a floor server answers before it exits by itself; it is killed when its row is done.
    MOST_SLICES = 1000

    def __init__(self, spec: FloorSpec, workdir: Path, count: int, warm_up: int, pin: bool = True) -> None:
        super().__init__()
        self.spec = spec
        self.pin = pin
        self.workdir = Path(tempfile.mkdtemp(prefix="floor-", dir=workdir))
        self.address = address_for(spec.transport, self.workdir)
        self.exchanges = warm_up + count
        # Each client makes one untimed exchange before its timed ones; the probe makes one more.
        command = floor_command(spec, "server", self.address, self.MOST_SLICES * (self.exchanges + 1))
        self.server = ServerProcess(pinned(command, SERVER, pin), self.workdir / "server.log",
                                    handshake_address=self.address, raw_probe=(bytes(spec.request_bytes),
                                                                               spec.reply_bytes))
        self.count, self.warm_up = count, warm_up

    def measure_slice(self) -> _Slice:
        if len(self.slices) >= self.MOST_SLICES:
            raise BenchmarkError(f"{self.spec.label()}: at most {self.MOST_SLICES} slices")
        timings_file = self.workdir / f"timings-{len(self.slices)}.txt"
        client = pinned(floor_command(self.spec, "client", self.address, self.exchanges)
                        + ["--timings-file", str(timings_file)], CLIENT, self.pin)
        return self._run_slice(client, timings_file, self.warm_up, self.count)

    def finish(self) -> list[Run]:
        self.server.end()
        # The client's untimed first exchange is answered too.
        return self._runs(self.spec.request_bytes, self.spec.reply_bytes, self.exchanges + 1, None)

