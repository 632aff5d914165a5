"""A `coupler record` process in a test: its output collected as it comes, and a wait until it receives."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from typing import Any

from coupler.transport.client import Client
from coupler.wire.messages import SensorRequestMessage
from peers import REPO


class RecorderProcess:
    """`coupler record ARGS...`, its stdout and stderr read into `lines` by a thread as they arrive."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "coupler.cli", "record", *args], cwd=REPO,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=lambda: self.lines.extend(iter(self.process.stdout.readline, "")),
                                        daemon=True)
        self._reader.start()

    def until_receiving(self, server_address: str, **client_keys: Any) -> None:
        """Ask the server for sensors until the recorder says it receives (a subscription takes a moment)."""
        with Client(server_address, timeout=5.0, **client_keys) as client:
            for _ in range(200):
                client.request(SensorRequestMessage())
                if any("receiving from" in line for line in self.lines):
                    return
                time.sleep(0.05)
        raise AssertionError(f"the recorder never received: {self.lines}")

    def output(self, timeout: float = 30.0) -> str:
        """Everything it printed, once it has exited (the server's end stops it)."""
        try:
            self.process.wait(timeout)
        finally:
            self.process.kill()
            self._reader.join(10)
        return "".join(self.lines)
