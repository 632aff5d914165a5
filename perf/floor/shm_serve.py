"""`coupler serve --scene static`'s lone round trip through its shared channel, for perf.floor.shm.

Slice after slice in turn: the ZeroMQ ipc floor (zmq_pingpong, frames of the scene's Control and Sensor
sizes), the democlient through the server's socket (blocking receive, the socket's best), and the democlient
through the shared channel it leases (--shared-channel). Each slice's p50 is taken from the client's own
timings; the server's CPU per round trip from /proc over the client's run. The server's idle CPU is read while
a controller holds the channel, leased and served once, and sends nothing: the hot path then sleeps in the
channel's futex and looks at the socket every few milliseconds.
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path

from coupler.controller.controls import Controls
from coupler.transport.client import Client
from coupler.wire.messages import ErrorCode, ErrorMessage, HandshakeInitMessage, HandshakeMessage
from perf.common import programs
from perf.common.endpoints import address_for
from perf.common.errors import BenchmarkError
from perf.common.processes import ServerProcess, run_client

CLIENT_TIMEOUT = 120.0  # s, one slice's client at most
WAYS = ("floor", "socket", "channel")


def _p50(path: Path) -> float:
    return statistics.median(float(line) for line in path.read_text().split())


def _client_cpu(output: str) -> float:
    found = re.search(r"client CPU per round trip: ([0-9.]+) us", output)
    if found is None:
        raise BenchmarkError("the democlient printed no CPU per round trip")
    return float(found.group(1))


def _idle_while_leased(server: ServerProcess, address: str, seconds: float) -> float:
    """The server's CPU, in percent of a core, while a controller holds its channel and sends nothing."""
    with Client(address, timeout=10.0) as client:
        handshake = client.request(HandshakeInitMessage(shared_channel=True))
        if not isinstance(handshake, HandshakeMessage) or not handshake.shared_channel:
            raise BenchmarkError(f"coupler serve leased no shared channel: {handshake!r}")
        client.send_frame(Controls(handshake).frame())  # the first step, through the socket, starts the hot path
        client.receive_frame()
        idle = server.idle_cpu_percent(seconds)
        client.send(ErrorMessage(code=ErrorCode.SESSION_ENDED, text="measured"))
    return idle


def measure(workdir: Path, slices: int, count: int, idle_seconds: float, control_bytes: int,
            sensor_bytes: int) -> dict:
    address = address_for("ipc", workdir)
    server = ServerProcess([programs.python(), "-m", "demo.server", "--addr", address, "--scene", "static"],
                           workdir / "serve.log", handshake_address=address)
    p50 = {way: [] for way in WAYS}
    client_cpu = {way: [] for way in WAYS[1:]}
    server_cpu = {way: [] for way in WAYS[1:]}
    with server:
        idle = _idle_while_leased(server, address, idle_seconds)
        for index in range(slices):
            floor_address = address_for("ipc", workdir)
            sizes = ["--request-bytes", str(control_bytes), "--reply-bytes", str(sensor_bytes)]
            floor_server = ServerProcess([str(programs.zmq_pingpong()), "--role", "server", "--addr", floor_address,
                                          "--count", str(count), *sizes], workdir / f"serve_floor_{index}.log")
            with floor_server:
                timings = workdir / f"serve_floor_{index}.txt"
                run_client([str(programs.zmq_pingpong()), "--role", "client", "--addr", floor_address, "--count",
                            str(count), *sizes, "--timings-file", str(timings)], CLIENT_TIMEOUT)
                floor_server.finish(10.0)
            p50["floor"].append(_p50(timings))
            for way, flags in (("socket", ["--blocking-receive"]), ("channel", ["--shared-channel"])):
                timings = workdir / f"serve_{way}_{index}.txt"
                before = server.cpu_seconds()
                output = run_client([str(programs.democlient()), "--addr", address, "--range", str(count - 1),
                                     "--timings", "--timings-file", str(timings), *flags], CLIENT_TIMEOUT)
                server_cpu[way].append((server.cpu_seconds() - before) / count * 1e6)
                client_cpu[way].append(_client_cpu(output))
                p50[way].append(_p50(timings))
        server.stop()
    return {"p50_us": p50, "client_cpu_us": client_cpu, "server_cpu_us": server_cpu,
            "ratios": [c / f for c, f in zip(p50["channel"], p50["floor"])],
            "server_idle_cpu_percent": idle}
