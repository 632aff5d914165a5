"""An environment's server lives no longer than the Python process that started it, however that process
ends, and leaves no folder behind; without Gymnasium, importing coupler.gym names the extra to install."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("mujoco")

GONE_WITHIN = 2.0  # seconds from the owner's death to the server's

OWNER = """
import sys, time
from coupler.gym import CouplerEnv
env = CouplerEnv(scene="arm")
server = env._server
print(server.pid, server.folder, flush=True)
time.sleep(600)
"""


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")  # a zombie no one reaps has stopped all the same


def test_an_environments_server_and_its_folder_go_when_the_process_that_started_it_is_killed_with_sigkill():
    owner = subprocess.Popen([sys.executable, "-c", OWNER], stdout=subprocess.PIPE, text=True)
    try:
        pid_text, folder = owner.stdout.readline().split()
        server = int(pid_text)
        assert _running(server) and Path(folder).is_dir()
        owner.send_signal(signal.SIGKILL)  # nothing of the owner's runs: no close(), no finalizer
        owner.wait(timeout=10)
        deadline = time.monotonic() + GONE_WITHIN
        while (_running(server) or Path(folder).exists()) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not _running(server), f"the server outlived its owner by {GONE_WITHIN} s"
        assert not Path(folder).exists()
    finally:
        owner.kill()
        owner.wait(timeout=10)


def test_importing_coupler_gym_without_gymnasium_names_the_extra():
    code = "import sys; sys.modules['gymnasium'] = None; import coupler.gym"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "coupler.gym needs the gym extra: pip install 'coupler[gym]'" in done.stderr.splitlines()[-1]
