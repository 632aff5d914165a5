"""A `coupler view` subprocess: started, awaited until it says where it shows the run, stopped with SIGINT."""

from __future__ import annotations

import queue
import signal
import subprocess
import sys
import threading
import time

START_TIMEOUT = 30.0  # seconds to load viser or MuJoCo's viewer and the scene
STOP_TIMEOUT = 10.0


class ViewProcess:
    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "coupler.cli", "view", *args], env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self._lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def line_with(self, text: str, timeout: float = START_TIMEOUT) -> str:
        """The first line of the view's output holding `text`, waiting up to `timeout` seconds for it."""
        for line in self.lines:
            if text in line:
                return line
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no line with {text!r} within {timeout:g} s: {self.lines}") from None
            if line is None:
                raise AssertionError(f"the view exited ({self.process.wait()}) without {text!r}: {self.lines}")
            self.lines.append(line)
            if text in line:
                return line

    def url(self) -> str:
        return self.line_with(" at http://").rsplit(" at ", 1)[1].split()[0]

    def stop_when_exited(self, timeout: float = START_TIMEOUT) -> str:
        """The whole output of a view that exits by itself within `timeout` seconds."""
        self.process.wait(timeout=timeout)
        return self.stop()

    def interrupt(self) -> None:
        """SIGINT, without waiting: views stopped together close at once."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)

    def stop(self) -> str:
        """SIGINT, then the whole output."""
        self.interrupt()
        try:
            self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=STOP_TIMEOUT)
        while True:
            try:
                line = self._lines.get(timeout=2.0)
            except queue.Empty:
                break
            if line is None:
                break
            self.lines.append(line)
        return "\n".join(self.lines)
