"""perf.stress's batched-worlds phase: a long Control for every world while readers and newcomers wait.

A server of `--worlds N` arm worlds gets one Control for every world of
many steps (100,000: tens of seconds of stepping; fewer with --quick);
meanwhile readers read and newcomers ask to drive, each timing its answer.
Then SIGTERM during another such Control. Checked: every world took every
step (a guarantee); readers and newcomers answered within 0.5 s and the
Control answered SessionEnded within 0.5 s of SIGTERM (targets).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from coupler.controller.session import Session
from coupler.controller.world_session import WorldSession
from coupler.wire.errors import RemoteError
from coupler.wire.messages import ErrorCode, HandshakeInitMessage, SensorRequestMessage
from perf.common import programs
from perf.common.endpoints import free_tcp_address
from perf.common.processes import ServerProcess
from perf.stress.phases import ANSWER_TIMEOUT, ASK_PAUSE, is_busy, merged
from perf.stress.readers import Answers, ask_until, is_state

WORLDS = 16
THREADS = 2
MAX_STOP_SECONDS = 0.5  # from SIGTERM to the long Control's answer


@dataclass
class WorldsRun:
    worlds: int
    steps: int
    time_step: float
    seconds: float  # from sending the Control to its answer
    times: list[float]  # every world's simulated time after it
    readers: Answers
    newcomers: Answers
    stop_seconds: float  # from SIGTERM to the answer of the second long Control
    stopped_with_session_ended: bool


def server_command(address: str, worlds: int) -> list[str]:
    return [programs.python(), "-m", "coupler.cli", "serve", "--addr", address, "--scene", "arm", "--worlds",
            str(worlds), "--threads", str(THREADS), "--max-frame-bytes", "0"]


def _with_readers_and_newcomers(address: str, work: Any, readers: int = 3, newcomers: int = 2) -> tuple[Any, Answers,
                                                                                                          Answers]:
    """Run `work()` while `readers` read and `newcomers` ask to drive; its result and how they fared."""
    done = threading.Event()
    reader_answers = [Answers() for _ in range(readers)]
    newcomer_answers = [Answers() for _ in range(newcomers)]
    threads = [threading.Thread(target=ask_until, daemon=True, args=(
        address, SensorRequestMessage(), is_state, done.is_set, ANSWER_TIMEOUT, answers, ASK_PAUSE))
        for answers in reader_answers]
    threads += [threading.Thread(target=ask_until, daemon=True, args=(
        address, HandshakeInitMessage(), is_busy, done.is_set, ANSWER_TIMEOUT, answers, ASK_PAUSE))
        for answers in newcomer_answers]
    for thread in threads:
        thread.start()
    try:
        result = work()
    finally:
        done.set()
        for thread in threads:
            thread.join(timeout=5.0)
    return result, merged(reader_answers), merged(newcomer_answers)


def run(steps: int, workdir: Path, worlds: int = WORLDS) -> dict[str, Any]:
    """The phase's figures: one long Control for every world with readers and newcomers, then SIGTERM in another."""
    address = free_tcp_address()
    with ServerProcess(server_command(address, worlds), workdir / "worlds-server.log",
                       handshake_address=address) as server:
        with Session(address, timeout=600.0, max_frame_bytes=0) as session:
            batch = WorldSession(session)
            controls = np.zeros((batch.count, batch.control_width))
            batch.send(resets=range(batch.count))
            batch.receive()

            def long_control() -> tuple[float, np.ndarray]:
                sent = time.perf_counter()
                batch.send(controls, steps=steps)
                _, times = batch.receive()
                return time.perf_counter() - sent, times.copy()

            (seconds, times), readers, newcomers = _with_readers_and_newcomers(address, long_control)
            batch.send(controls, steps=steps)
            time.sleep(0.2)
            signalled = time.monotonic()
            os.kill(server.pid, signal.SIGTERM)
            try:
                batch.receive()
                ended = False
            except RemoteError as error:
                ended = error.code == ErrorCode.SESSION_ENDED
            stop_seconds = time.monotonic() - signalled
            time_step = session.handshake.time_step
        server.finish(timeout=10.0)
    return asdict(WorldsRun(worlds, steps, time_step, seconds, times.tolist(), readers, newcomers, stop_seconds,
                            ended))


def checks(figures: dict[str, Any], check: Any) -> list[Any]:
    """The phase's checks, as `check` (perf.stress.Check) builds them."""
    worlds, steps = figures["worlds"], figures["steps"]
    taken = [round(t / figures["time_step"]) for t in figures["times"]]
    out = [check(f"every one of {worlds} worlds took the {steps:,} steps of a Control for every world",
                 f"{min(taken):,} to {max(taken):,} steps in {figures['seconds']:.1f} s", f"{steps:,}",
                 all(t == steps for t in taken), guarantee=True)]
    for who in ("readers", "newcomers"):
        waits = figures[who]
        out.append(check(f"{who} during a {steps:,}-step Control for {worlds} worlds",
                         f"{waits['answered']} answered, {waits['timeouts']} timeouts, longest {waits['longest']:.3f} s",
                         f"< {ANSWER_TIMEOUT} s", waits["timeouts"] == 0 and waits["wrong_answers"] == 0
                         and waits["answered"] > 0 and waits["longest"] < ANSWER_TIMEOUT))
    out.append(check(f"SIGTERM during a Control for {worlds} worlds",
                     f"answered {figures['stop_seconds']:.2f} s after it (SessionEnded: "
                     f"{figures['stopped_with_session_ended']})", f"< {MAX_STOP_SECONDS} s",
                     figures["stop_seconds"] < MAX_STOP_SECONDS and figures["stopped_with_session_ended"]))
    return out
