"""The long recording: the C++ demo controller drives the arm scene for many steps under `--record`; the
file must open in the `mcap` reader with every message the server counted, and replay identically.

Reports the file's size, the write rate (messages and steps per second while serving), what the reader
finds in it, and how long the replay took.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from mcap.reader import make_reader

from perf.common.endpoints import address_for
from perf.common.errors import BenchmarkError
from perf.common.processes import ServerProcess, run_client
from perf.common.programs import REPO, democlient, python

_RECORDED = re.compile(r"recorded:\s+(\d+) messages to .*, (\d+) dropped")
_STEPS = re.compile(r"^steps:\s+(\d+)", re.MULTILINE)
_IDENTICAL = re.compile(r"identical, (\d+) steps")


def long_recording(folder: Path, steps: int) -> dict[str, Any]:
    address = address_for("ipc", folder)
    path = folder / "long.mcap"
    command = [python(), "-m", "demo.server", "--scene", "arm", "--addr", address, "--record", str(path)]
    with ServerProcess(command, folder / "long.log", address) as server:
        print(f"recording {steps:,} steps ...", file=sys.stderr, flush=True)
        started = time.perf_counter()
        run_client([str(democlient()), "--addr", address, "--range", str(steps - 1), "--blocking-receive"],
                   timeout=max(600.0, steps / 100))
        serving = time.perf_counter() - started
        output = server.stop(timeout=1200)
    recorded, served = _RECORDED.search(output), _STEPS.search(output)
    if recorded is None or served is None:
        raise BenchmarkError(f"the server's summary has no recording or step count:\n{output[-2000:]}")
    print("reading the file ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    with open(path, "rb") as stream:
        summary = make_reader(stream).get_summary()
    statistics = summary.statistics if summary is not None else None
    if statistics is None:
        raise BenchmarkError(f"{path} has no summary: it was not finished")
    opening = time.perf_counter() - started
    print("replaying ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    replay = subprocess.run([python(), "-m", "coupler.cli", "replay", str(path), "--scene", "recorded"], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=max(1200.0, steps / 50))
    replaying = time.perf_counter() - started
    identical = _IDENTICAL.search(replay.stdout)
    size = path.stat().st_size
    path.unlink()
    messages = int(recorded.group(1))
    return {
        "steps": int(served.group(1)), "messages": messages, "dropped": int(recorded.group(2)),
        "messages_in_file": statistics.message_count, "file_bytes": size, "serving_s": serving,
        "messages_per_s": messages / serving, "steps_per_s": int(served.group(1)) / serving, "open_s": opening,
        "replay": replay.stdout.strip().splitlines()[-1] if replay.stdout.strip() else f"exit {replay.returncode}",
        "identical": replay.returncode == 0 and identical is not None, "replay_s": replaying,
    }
