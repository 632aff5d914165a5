"""EnvPool as a perf.gym subject: its own venv's python running envpool_peer.py, asked for timed blocks.

EnvPool pins its own dependencies, so scripts/setup gives it a venv of its own, .venv-envpool (like the
Click peer's .venv-pclick); perf.gym never imports it. The pool runs on as many threads as this process
may use CPUs, as coupler's subjects do.
"""

from __future__ import annotations

import json
import logging
import os
import selectors
import subprocess
from pathlib import Path
from typing import Any

from perf.common.errors import BenchmarkError

log = logging.getLogger("perf.gym")

ENVPOOL_SUBJECTS = ("envpool", "envpool-async")
# The EnvPool task of each model perf.gym measures it for: Gymnasium's ids, the same models and frame skip.
ENVPOOL_IDS = {"ant": "Ant-v5", "humanoid": "Humanoid-v5"}
DEFAULT_ENVPOOL_PYTHON = Path(__file__).resolve().parents[2] / ".venv-envpool" / "bin" / "python"
PEER = Path(__file__).resolve().with_name("envpool_peer.py")
READY_TIMEOUT_S = 120.0  # importing EnvPool and building 256 environments on a loaded machine
BLOCK_TIMEOUT_S = 300.0
CLOSE_TIMEOUT_S = 10.0


def missing_reason(python: Path) -> str | None:
    """Why EnvPool cannot be measured with this python, or None when it can."""
    if not python.exists():
        return f"{python} does not exist (scripts/setup creates .venv-envpool)"
    return None


class EnvPoolStepper:
    """An EnvPool of `envs` environments of `task` returning `batch` per step (sync when batch = envs), in a
    child process of `python`."""

    def __init__(self, task: str, envs: int, batch: int, python: Path) -> None:
        reason = missing_reason(python)
        if reason is not None:
            raise BenchmarkError(f"EnvPool: {reason}")
        threads = len(os.sched_getaffinity(0))
        # -I: neither this checkout's directories nor the user's site-packages on the child's path.
        command = [str(python), "-I", str(PEER), "--task", task, "--envs", str(envs), "--batch", str(batch),
                   "--threads", str(threads), "--seed", str(envs)]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.num_envs = envs
        try:
            self.ready = self._read(READY_TIMEOUT_S)
        except BaseException:
            self.close()
            raise
        self.action_size = int(self.ready["action_size"])

    def _read(self, timeout_s: float) -> dict[str, Any]:
        assert self.process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            if not selector.select(timeout_s):
                raise BenchmarkError(f"EnvPool peer gave no answer within {timeout_s:.0f} s")
        line = self.process.stdout.readline()
        if not line:
            raise BenchmarkError(f"EnvPool peer ended (exit status {self.process.wait(CLOSE_TIMEOUT_S)}); "
                                 "its error is above")
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            raise BenchmarkError(f"EnvPool peer answered {line[:200]!r}, not a JSON line") from None

    def timed_block(self, env_steps: int) -> tuple[float, float]:
        """Wall and CPU seconds of the child stepping `env_steps` environment steps (scaled from the whole
        batches it stepped)."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"env_steps": env_steps}) + "\n")
        self.process.stdin.flush()
        answer = self._read(BLOCK_TIMEOUT_S)
        scale = env_steps / answer["env_steps"]
        return answer["wall_s"] * scale, answer["cpu_s"] * scale

    def step(self, actions: Any) -> None:
        """One step of every environment (warm-up; EnvPool draws its own actions)."""
        self.timed_block(self.num_envs)

    def close(self) -> None:
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            self.process.wait(CLOSE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            log.warning("EnvPool peer did not end within %.0f s of EOF; killing it", CLOSE_TIMEOUT_S)
            self.process.kill()
            self.process.wait(CLOSE_TIMEOUT_S)
        if self.process.stdout is not None:
            self.process.stdout.close()
