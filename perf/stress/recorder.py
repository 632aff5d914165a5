"""perf.stress's recorder phases: a server recording (`--record`) and publishing (`--publish`) to a
`coupler record` whose file cannot grow past a limit (RLIMIT_FSIZE: a full disk), while one controller
drives it; midway the `--record` writer is killed with SIGKILL.

Guaranteed: the controller's every step is answered, before and after the kill (the server keeps serving);
the kill is said in the server's log within WRITER_DEATH_SECONDS; the server exits 1 and its summary says how
many messages the recording lacks (at least those sent after the kill); the limited recorder exits 1 and its
summary counts exactly the messages its file holds (never what the full disk did not take).
"""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from coupler.controller.session import Session
from coupler.record.recording import Recording
from perf.common import programs
from perf.common.endpoints import free_tcp_address
from perf.common.errors import BenchmarkError
from perf.common.processes import ServerProcess, read_until

WRITER_DEATH_SECONDS = 1.0  # from the writer's SIGKILL to the server's line saying so
SUBSCRIBED_TIMEOUT = 60.0  # seconds for the limited recorder to start and receive its first frame
FILE_LIMIT = 400_000  # bytes the limited recorder may write
_MISSING = re.compile(r"lacks at least the last (\d+) of (\d+) messages")
_IN_FILE = re.compile(r"recorded:\s+(\d+) messages in .* before writing failed")


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))


def _steps(session: Session, count: int) -> int:
    """Step `count` times; how many were answered."""
    controls = session.controls()
    answered = 0
    for i in range(count):
        controls["arm"][:] = 0.001 * (i % 100)
        session.step(controls)
        answered += 1
    return answered


def _until_recording(address: str, recorder: subprocess.Popen, path: Path) -> None:
    """Read the server's state until the recorder has its first frame: `coupler record` puts its file in place
    then. Started before the server, a recorder still slower to start than the server (Python's imports on a loaded
    machine) would otherwise miss the steps driven meanwhile, and never fill its disk."""

    def recording() -> bool:
        if recorder.poll() is not None:
            raise BenchmarkError(f"coupler record exited with {recorder.returncode} before recording: "
                                 f"{recorder.communicate()[0][-2000:]}")
        return path.exists()

    read_until(address, recording, SUBSCRIBED_TIMEOUT, "coupler record received nothing")


def recorder_phases(workdir: Path, steps: int) -> dict[str, Any]:
    """Record while driving `steps` steps, a limited recorder filling its disk and the --record writer killed
    after half of them; the figures the checks judge."""
    address, published = free_tcp_address(), f"ipc://{workdir}/published"
    command = [programs.python(), "-m", "demo.server", "--addr", address, "--scene", "arm",
               "--record", str(workdir / "recorded.mcap"), "--publish", published]
    limited_path = workdir / "limited.mcap"
    figures: dict[str, Any] = {"steps": steps, "file_limit": FILE_LIMIT}
    limited = subprocess.Popen([programs.python(), "-m", "coupler.cli", "record", "--addr", published,
                                str(limited_path), "--quiet"], cwd=programs.REPO, preexec_fn=_limit_file_size,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with ServerProcess(command, workdir / "recorder-server.log", handshake_address=address) as server:
        _until_recording(address, limited, limited_path)
        [writer] = _children(server.pid)  # the --record writer, the server's one child
        with Session(address, timeout=5.0) as session:
            answered = _steps(session, steps // 2)
            killed = time.monotonic()
            os.kill(writer, signal.SIGKILL)
            while "writer process killed by SIGKILL" not in server.output() and time.monotonic() - killed < 5.0:
                time.sleep(0.01)
            figures["writer_death_said_s"] = time.monotonic() - killed
            answered += _steps(session, steps - steps // 2)
        figures["answered"] = answered
        server.send_signal(signal.SIGINT)
        figures["server_status"] = server.wait(30)
        output = server.log()
    missing = _MISSING.search(output)
    figures["missing"] = int(missing.group(1)) if missing else None
    figures["published"] = int(missing.group(2)) if missing else None
    limited_output, _ = limited.communicate(timeout=60)
    figures["limited_status"] = limited.returncode
    in_file = _IN_FILE.search(limited_output)
    figures["limited_summary"] = int(in_file.group(1)) if in_file else None
    figures["limited_in_file"] = len(list(Recording(limited_path))) if limited_path.exists() else 0
    return figures


def recorder_checks(figures: dict[str, Any]) -> list[dict[str, Any]]:
    """The recorder phases' checks, as perf.stress.Check fields."""
    steps = figures["steps"]
    half = steps - steps // 2
    return [
        {"name": "steps answered with the recording's writer killed midway",
         "measured": f"{figures['answered']:,} of {steps:,}", "limit": "all", "passed": figures["answered"] == steps,
         "guarantee": True},
        {"name": "a killed writer is said in the server's log",
         "measured": f"after {figures['writer_death_said_s']:.2f} s", "limit": f"< {WRITER_DEATH_SECONDS:g} s",
         "passed": figures["writer_death_said_s"] < WRITER_DEATH_SECONDS},
        {"name": "the server's summary says what the recording lacks, exit 1",
         "measured": f"status {figures['server_status']}, {figures['missing']} of {figures['published']} missing",
         "limit": f">= {3 * half:,} (the Controls, states and answers after the kill)",
         "passed": figures["server_status"] == 1 and figures["missing"] is not None and figures["missing"] >= 3 * half,
         "guarantee": True},
        {"name": "after a full disk the recorder counts what its file holds",
         "measured": f"status {figures['limited_status']}, summary {figures['limited_summary']}, file "
                     f"{figures['limited_in_file']} messages ({figures['file_limit']:,}-byte limit)",
         "limit": "equal, exit 1",
         "passed": figures["limited_status"] == 1 and figures["limited_summary"] == figures["limited_in_file"] > 0,
         "guarantee": True},
    ]
