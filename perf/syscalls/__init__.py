"""System calls per round trip of each client against the minimal ROUTER
server: counts, which a loaded machine does not change, where timings move
with every other process on it.

    python -m perf.syscalls            # 20,000 round trips a client
    python -m perf.syscalls --quick    # 1,000

Each client runs under `strace -f -c` (all its threads, ZeroMQ's I/O thread
included) against a fresh recorded_server answering frames recorded from the
static scene, in blocking receive: the plain ZeroMQ REQ clients of the
floors (C++ and pyzmq), the C++ democlient and the Python demo.client. A
client's calls are divided by the requests the server answered, so the
handshake and the warm-up are spread over many thousands of round trips and
vanish. A client that makes more calls per round trip than the floor of its
language pays for them in every round trip: two wake-ups' worth of calls is
tens of microseconds on a virtual machine.
"""

from __future__ import annotations

import argparse
import logging
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from perf.common import programs
from perf.common.arguments import add_output_flags
from perf.common.endpoints import address_for
from perf.common.errors import BenchmarkError
from perf.common.markdown import number, table
from perf.common.processes import ServerProcess, run_client
from perf.common.program_output import figure
from perf.common.results import measured_now, write
from perf.rtt.recording import Recording, record

log = logging.getLogger("perf.syscalls")

CLIENTS = ("C++ REQ floor", "C++ democlient", "pyzmq REQ floor", "Python demo.client")
# The calls a ZeroMQ round trip is made of, shown one by one; the rest are summed as "other".
SHOWN = ("poll", "epoll_wait", "read", "write", "sendto", "recvfrom", "epoll_ctl", "getpid")
CLIENT_TIMEOUT = 600.0  # s: strace slows a client several times over

# A row of strace -c's summary: "% time, seconds, usecs/call, calls, [errors,] syscall".
_SUMMARY_ROW = re.compile(r"^\s*[0-9.]+\s+[0-9.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?([a-z_0-9]+)\s*$")


@dataclass(frozen=True)
class Counted:
    client: str
    requests: int  # answered by the server, the readiness probe's left out
    calls: dict[str, int]  # syscall -> calls, all the client's threads

    def per_request(self, name: str) -> float:
        return self.calls.get(name, 0) / self.requests

    def other_per_request(self) -> float:
        return sum(calls for name, calls in self.calls.items() if name not in SHOWN) / self.requests

    def total_per_request(self) -> float:
        return sum(self.calls.values()) / self.requests


def parse_summary(text: str) -> dict[str, int]:
    """syscall -> calls, from the table `strace -c` writes."""
    calls = {}
    for line in text.splitlines():
        row = _SUMMARY_ROW.match(line)
        if row and row.group(2) != "total":
            calls[row.group(2)] = int(row.group(1))
    if not calls:
        raise BenchmarkError(f"no system calls in strace's summary:\n{text[-2000:]}")
    return calls


def _client_command(client: str, address: str, count: int, recording: Recording) -> list[str]:
    # A floor client's frames are no Control, so the recorded server answers them with its Handshake.
    floor_sizes = ["--request-bytes", str(recording.control_bytes),
                   "--reply-bytes", str(recording.handshake.stat().st_size)]
    if client == "C++ REQ floor":
        return [str(programs.zmq_pingpong()), "--role", "client", "--addr", address, "--count", str(count),
                *floor_sizes]
    if client == "pyzmq REQ floor":
        return [programs.python(), "-m", "perf.floor.pingpong", "--role", "client", "--addr", address,
                "--count", str(count), *floor_sizes]
    if client == "C++ democlient":
        return [str(programs.democlient()), "--addr", address, "--range", str(count - 1), "--blocking-receive"]
    if client == "Python demo.client":
        return [programs.python(), "-m", "demo.client", "--addr", address, "--range", str(count - 1),
                "--blocking-receive"]
    raise BenchmarkError(f"unknown client {client!r}")


def count_client(client: str, count: int, recording: Recording, workdir: Path, strace: str) -> Counted:
    """One client's system calls over `count` round trips (and its handshake) against a fresh recorded server."""
    address = address_for("ipc", workdir)
    server = [str(programs.recorded_server()), "--addr", address, *recording.flags()]
    summary = workdir / f"strace-{CLIENTS.index(client)}.txt"
    with ServerProcess(server, workdir / "recorded.log", handshake_address=address) as process:
        run_client([strace, "-f", "-c", "-o", str(summary), *_client_command(client, address, count, recording)],
                   CLIENT_TIMEOUT)
        requests = int(figure(process.stop(), "requests answered")) - 1  # the readiness probe's is not the client's
    if requests < count:
        raise BenchmarkError(f"{client}: the server answered {requests} requests, fewer than {count} round trips")
    return Counted(client, requests, parse_summary(summary.read_text()))


def measure(count: int, clients: tuple[str, ...], workdir: Path) -> list[Counted]:
    strace = shutil.which("strace")
    if strace is None:
        raise BenchmarkError("perf.syscalls needs strace (apt-get install strace)")
    recording = record("static", workdir, [])
    counted = []
    for index, client in enumerate(clients, 1):
        counted.append(count_client(client, count, recording, workdir, strace))
        log.info("[%d/%d] %-20s %.2f system calls per round trip", index, len(clients), client,
                 counted[-1].total_per_request())
    return counted


def render(counted: list[Counted], count: int) -> str:
    headers = ["client", "requests", *SHOWN, "other", "all"]
    rows = [[c.client, f"{c.requests:,}", *(number(c.per_request(name), 2) for name in SHOWN),
             number(c.other_per_request(), 2), number(c.total_per_request(), 2)] for c in counted]
    return "\n".join([
        "## System calls per round trip",
        "",
        f"{measured_now()}, {count:,} round trips a client against the minimal ROUTER server (recorded "
        "static-scene frames), ipc, blocking receive; `strace -f -c` of the client, all its threads, "
        "divided by the requests the server answered.",
        "",
        table(headers, rows, [False] + [True] * (len(headers) - 1)),
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m perf.syscalls",
        description="Count each client's system calls per round trip with strace against the minimal ROUTER "
        "server (perf/floor/recorded_server, frames recorded from the static scene): the ZeroMQ REQ floors "
        "in C++ and pyzmq, the C++ democlient and Python's demo.client. Writes syscalls.json and syscalls.md; "
        "exits 1 when a process fails, never because of a figure.")
    parser.add_argument("--count", type=int, default=None,
                        help="round trips a client (default 20000, or 1000 with --quick)")
    parser.add_argument("--clients", default=",".join(CLIENTS),
                        help="comma-separated clients to count, from: %(default)s (default: all)")
    parser.add_argument("--quick", action="store_true", help="CI run: 1000 round trips a client")
    add_output_flags(parser, "syscalls", plot=False)
    args = parser.parse_args(argv)
    count = args.count or (1000 if args.quick else 20000)
    if count < 1:
        parser.error("--count must be at least 1")
    clients = tuple(name.strip() for name in args.clients.split(",") if name.strip())
    unknown = [name for name in clients if name not in CLIENTS]
    if unknown or not clients:
        parser.error(f"--clients: unknown {', '.join(unknown) or '(none given)'}; choose from {', '.join(CLIENTS)}")
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    try:
        with tempfile.TemporaryDirectory(prefix="coupler-perf-") as workdir:
            counted = measure(count, clients, Path(workdir))
    except BenchmarkError as error:
        log.error("perf.syscalls: %s", error)
        return 1
    markdown = render(counted, count)
    result = {"benchmark": "syscalls", "measured": measured_now(), "count": count,
              "clients": [{"client": c.client, "requests": c.requests, "calls": c.calls} for c in counted]}
    paths = write(args.out, "syscalls", result, markdown)
    print(markdown)
    log.info("perf.syscalls: wrote %s", ", ".join(str(path) for path in paths))
    return 0
