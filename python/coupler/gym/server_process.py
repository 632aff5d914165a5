"""A `coupler serve` subprocess of an environment's own, on an ipc address in a temp dir."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from coupler.controller.session import Session
from coupler.wire.errors import Error

log = logging.getLogger("coupler.gym")

DEFAULT_START_TIMEOUT = 30.0
_STOP_TIMEOUT = 5.0
# How often to look for the server's socket while it starts.
_POLL = 0.02


class ServerProcess:
    """Starts `coupler serve --scene SCENE` and stops it (and removes its temp dir) on `close()`.

    `connect()` returns a Session once the server answers the handshake;
    coupler.Error when the process exits first or does not answer within
    `start_timeout` seconds, with the end of its output.
    """

    def __init__(self, scene: str, extra_args: list[str] | None = None,
                 start_timeout: float = DEFAULT_START_TIMEOUT) -> None:
        self.scene = scene
        self.start_timeout = start_timeout
        self._dir = Path(tempfile.mkdtemp(prefix="coupler-gym-"))
        self._socket = self._dir / "server.sock"
        self.address = f"ipc://{self._socket}"
        self._log = open(self._dir / "server.log", "w+b")
        command = [sys.executable, "-m", "coupler.cli", "serve", "--scene", scene, "--addr", self.address,
                   *(extra_args or [])]
        self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
            command, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def _output_tail(self) -> str:
        self._log.flush()
        self._log.seek(0)
        text = self._log.read()[-2000:].decode("utf-8", "replace").strip()
        return text.encode("unicode_escape").decode("ascii") if text else "(no output)"

    def connect(self, timeout: float = 5.0) -> Session:
        """A Session with the server once it has bound its address; each of its calls waits `timeout` s."""
        deadline = time.monotonic() + self.start_timeout
        while not self._socket.exists():
            assert self.process is not None
            code = self.process.poll()
            if code is not None:
                raise Error(f"coupler serve --scene {self.scene} exited with status {code}: {self._output_tail()}")
            if time.monotonic() > deadline:
                raise Error(f"coupler serve --scene {self.scene} did not bind {self.address} within "
                            f"{self.start_timeout} s: {self._output_tail()}")
            time.sleep(_POLL)
        return Session(self.address, timeout=timeout)

    def close(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(_STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                log.warning("coupler serve did not stop within %s s of SIGTERM; killing it", _STOP_TIMEOUT)
                self.process.kill()
                self.process.wait(_STOP_TIMEOUT)
            self.process = None
        self._log.close()
        shutil.rmtree(self._dir, ignore_errors=True)
