"""The measurements of perf.record."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from mcap.reader import make_reader

from coupler.record.publisher import FramePublisher
from coupler.record.recording_process import RecordingProcess
from coupler.wire.errors import Error
from coupler.wire.codec import encode
from coupler.wire.messages import ErrorCode, ErrorMessage

from perf.common.endpoints import address_for
from perf.common.errors import BenchmarkError
from perf.common.latency import Latency, read_timings
from perf.common.process_stats import cpu_seconds_with_children
from perf.common.processes import ServerProcess, read_until, run_client
from perf.common.programs import REPO, democlient, python

# (name, demo.server flags, subscribers); {recording} and {publish} are replaced by fresh names per round.
VARIANTS: list[tuple[str, list[str], int]] = [
    ("none", [], 0),
    ("record", ["--record", "{recording}"], 0),
    ("publish, 0 subscribers", ["--publish", "{publish}"], 0),
    ("publish, 1 subscriber", ["--publish", "{publish}"], 1),
    ("publish, 10 subscribers", ["--publish", "{publish}"], 10),
]
PAYLOADS = [100, 1_000, 10_000, 100_000, 1_000_000]
READY_TIMEOUT = 60.0  # seconds for subscribers to start and receive
def _start_subscribers(folder: Path, address: str, count: int, tag: str) -> list[tuple[subprocess.Popen, Path]]:
    subscribers = []
    for i in range(count):
        ready, out = folder / f"{tag}-sub{i}.ready", folder / f"{tag}-sub{i}.json"
        process = subprocess.Popen([python(), "-m", "perf.record.subscriber", address, "--ready", str(ready),
                                    "--out", str(out)], cwd=REPO, stdout=subprocess.DEVNULL)
        subscribers.append((process, ready))
    return subscribers


def _until_subscribed(server_address: str, subscribers: list[tuple[subprocess.Popen, Path]]) -> None:
    """Ask the server for sensors until every subscriber has received something."""
    read_until(server_address, lambda: all(ready.exists() for _, ready in subscribers), READY_TIMEOUT,
               "subscribers not receiving")


def _serve_and_drive(folder: Path, flags: list[str], subscribers: int, count: int, tag: str) -> dict[str, Any]:
    address = address_for("ipc", folder)
    timings = folder / f"{tag}.txt"
    recording = folder / f"{tag}.mcap"
    command = [python(), "-m", "demo.server", "--scene", "arm", "--addr", address,
               *(f.format(recording=recording, publish=address_for("ipc", folder)) for f in flags)]
    publish = command[command.index("--publish") + 1] if "--publish" in command else None
    with ServerProcess(command, folder / f"{tag}.log", address) as server:
        started = _start_subscribers(folder, publish, subscribers, tag) if publish else []
        try:
            _until_subscribed(address, started)
            cpu = {"server": cpu_seconds_with_children(server.pid), "subscribers": sum(cpu_seconds_with_children(p.pid) for p, _ in started)}
            run_client([str(democlient()), "--addr", address, "--range", str(count - 1), "--blocking-receive",
                        "--timings-file", str(timings)], timeout=600)
            cpu = {"server": cpu_seconds_with_children(server.pid) - cpu["server"],
                   "subscribers": sum(cpu_seconds_with_children(p.pid) for p, _ in started) - cpu["subscribers"]}
            steps = _steps(server.stop(timeout=120))
            lost = 0
            for process, ready in started:
                process.wait(60)
                lost += json.loads(ready.with_suffix(".json").read_text())["lost"]
        finally:
            for process, _ in started:
                process.kill()
                process.wait(10)
    recording.unlink(missing_ok=True)
    return {"samples": read_timings(timings, count), "cpu": {k: v / steps for k, v in cpu.items()}, "lost": lost}


def _steps(summary: str) -> int:
    """The steps a server took, from its summary: the demo controller's pick approach and the timed range."""
    found = re.search(r"^steps:\s+(\d+)", summary, re.MULTILINE)
    if found is None or int(found.group(1)) == 0:
        raise BenchmarkError(f"the server's summary has no steps:\n{summary[-2000:]}")
    return int(found.group(1))


def round_trips(folder: Path, rounds: int, count: int) -> dict[str, Any]:
    """Per variant: p50/p99 of all its round trips, the median and spread over rounds of its p50 ratio to none
    in the same round, CPU µs per step (each step one round trip, the demo controller's pick approach included)
    of the server (with its writer process) and of the subscribers, and messages subscribers lost."""
    samples: dict[str, list[np.ndarray]] = {name: [] for name, _, _ in VARIANTS}
    ratios: dict[str, list[float]] = {name: [] for name, _, _ in VARIANTS}
    cpu: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in VARIANTS}
    lost: dict[str, int] = {name: 0 for name, _, _ in VARIANTS}
    for r in range(rounds):
        base = None
        for name, flags, subscribers in VARIANTS:
            print(f"round {r + 1}/{rounds}: {name}", file=sys.stderr, flush=True)
            result = _serve_and_drive(folder, flags, subscribers, count, f"r{r}-{len(samples[name])}-{subscribers}"
                                      f"-{name.split(',')[0]}")
            p50 = float(np.median(result["samples"]))
            base = p50 if base is None else base
            ratios[name].append(p50 / base)
            samples[name].append(result["samples"])
            cpu[name].append(result["cpu"])
            lost[name] += result["lost"]
    out = {}
    for name, s in samples.items():
        latency = Latency.of(np.concatenate(s))
        out[name] = {
            "p50": latency.p50, "p99": latency.p99, "count": latency.count,
            "ratio": float(np.median(ratios[name])), "ratio_min": min(ratios[name]), "ratio_max": max(ratios[name]),
            "server_cpu_us": 1e6 * float(np.median([c["server"] for c in cpu[name]])),
            "subscriber_cpu_us": 1e6 * float(np.median([c["subscribers"] for c in cpu[name]])),
            "lost": lost[name],
        }
    return out


def _answer(size: int) -> bytes:
    """A frame of about `size` bytes, as the recorder takes any answer."""
    return encode(ErrorMessage(ErrorCode.UNEXPECTED_MESSAGE, "x" * size))


def recorder_throughput(folder: Path, size: int, megabytes: float) -> dict[str, Any]:
    """Messages/s and MB/s `--record` writes for answers of `size` bytes handed over as fast as possible, from
    the first hand-over to the finished file (the writer process's pace), and what the serving thread paid."""
    frame = _answer(size)
    count = max(20, int(megabytes * 1e6 / len(frame)))
    path = folder / f"throughput-{size}.mcap"
    publisher = FramePublisher()
    recording = RecordingProcess(path, publisher)
    recording.started()
    started = time.perf_counter()
    for _ in range(count):
        publisher.on_answer(frame, b"", time.time(), None)
    handed_over = time.perf_counter() - started
    recording.close(timeout=600)
    seconds = time.perf_counter() - started
    publisher.close()
    with open(path, "rb") as stream:
        statistics = make_reader(stream).get_summary().statistics  # type: ignore[union-attr]
    written = statistics.message_count if statistics is not None else 0
    path.unlink(missing_ok=True)
    return {"payload": size, "messages": count, "seconds": seconds, "messages_per_s": written / seconds,
            "mb_per_s": written * len(frame) / seconds / 1e6, "hand_over_us": 1e6 * handed_over / count,
            "dropped": count - written}


def publisher_throughput(folder: Path, size: int, megabytes: float) -> dict[str, Any]:
    """Messages/s and MB/s one subscriber receives of answers of `size` bytes published as fast as possible
    (queue of 1000 messages, as --publish-hwm's default), and what it lost."""
    frame = _answer(size)
    count = max(20, int(megabytes * 1e6 / len(frame)))
    publisher = FramePublisher()
    address = publisher.bind(address_for("ipc", folder))
    try:
        [(process, ready)] = _start_subscribers(folder, address, 1, f"throughput-{size}")
        deadline = time.monotonic() + READY_TIMEOUT
        warm_up = 0
        while not ready.exists():
            if time.monotonic() > deadline or process.poll() is not None:
                raise BenchmarkError("the subscriber did not start receiving")
            publisher.on_answer(frame, b"", time.time(), None)  # before timing: until it receives
            warm_up += 1
            time.sleep(0.01)
        started = time.perf_counter()
        for _ in range(count):
            publisher.on_answer(frame, b"", time.time(), None)
        handed_over = time.perf_counter() - started
        while process.poll() is None and time.perf_counter() - started < 600:
            publisher.send_end()
            try:
                process.wait(0.2)
            except subprocess.TimeoutExpired:
                pass
        counts = json.loads(ready.with_suffix(".json").read_text())
    except Error as error:
        raise BenchmarkError(str(error)) from None
    finally:
        publisher.close()
    seconds = max(counts["last"] - started, 1e-9)  # perf_counter is the system's monotonic clock in both
    received = counts["received"] - (warm_up - counts["first_sequence"])  # the timed ones: sequence >= warm_up
    return {"payload": size, "messages": count, "seconds": seconds, "messages_per_s": received / seconds,
            "mb_per_s": received * len(frame) / seconds / 1e6, "hand_over_us": 1e6 * handed_over / count,
            "dropped": counts["lost"]}
