"""The measurements of perf.record."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from coupler._proto import coupler_pb2
from coupler.record.recorder import Recorder

from perf.common.endpoints import address_for
from perf.common.latency import Latency, read_timings
from perf.common.processes import ServerProcess, run_client
from perf.common.programs import democlient, python

# (name, demo.server flags); {recording} is replaced by a fresh file per round.
VARIANTS: list[tuple[str, list[str]]] = [("none", []), ("record", ["--record", "{recording}"])]
PAYLOADS = [100, 1_000, 10_000, 100_000, 1_000_000]


def _serve_and_drive(folder: Path, flags: list[str], count: int, tag: str) -> np.ndarray:
    address = address_for("ipc", folder)
    timings = folder / f"{tag}.txt"
    recording = folder / f"{tag}.mcap"
    command = [python(), "-m", "demo.server", "--scene", "arm", "--addr", address,
               *(f.format(recording=recording) for f in flags)]
    with ServerProcess(command, folder / f"{tag}.log", address) as server:
        run_client([str(democlient()), "--addr", address, "--range", str(count - 1), "--blocking-receive",
                    "--timings-file", str(timings)], timeout=600)
        server.stop(timeout=60)
    recording.unlink(missing_ok=True)
    return read_timings(timings, count)


def round_trips(folder: Path, rounds: int, count: int) -> dict[str, Any]:
    """p50/p99 round trip of each variant over `rounds` rounds taking turns, and each one's p50 ratio to none."""
    samples: dict[str, list[np.ndarray]] = {name: [] for name, _ in VARIANTS}
    for r in range(rounds):
        for name, flags in VARIANTS:
            samples[name].append(_serve_and_drive(folder, flags, count, f"{name}-{r}"))
    latencies = {name: Latency.of(np.concatenate(s)) for name, s in samples.items()}
    base = latencies["none"].p50
    return {name: {"p50": lat.p50, "p99": lat.p99, "count": lat.count, "ratio": lat.p50 / base}
            for name, lat in latencies.items()}


def recorder_throughput(folder: Path, size: int, megabytes: float) -> dict[str, Any]:
    """Messages/s and MB/s the recorder writes for answers of `size` bytes, from the first hand-over to the
    finished file; the queue holds them all, so this is the writer's pace."""
    message = coupler_pb2.ErrorMessage(messageType=coupler_pb2.ErrorMessageType, errormessage="x" * size)
    frame = message.SerializeToString()
    count = max(20, int(megabytes * 1e6 / len(frame)))
    path = folder / f"throughput-{size}.mcap"
    recorder = Recorder(path, queue_size=count + 1)
    started = time.perf_counter()
    for _ in range(count):
        recorder.on_answer(frame, b"", time.time(), None)
    handed_over = time.perf_counter() - started
    recorder.close(timeout=600)
    seconds = time.perf_counter() - started
    path.unlink(missing_ok=True)
    return {"payload": size, "messages": count, "seconds": seconds, "messages_per_s": count / seconds,
            "mb_per_s": count * len(frame) / seconds / 1e6, "hand_over_us": 1e6 * handed_over / count,
            "dropped": recorder.dropped}
