"""A `coupler serve` subprocess: started, awaited until it serves, and stopped however its owner ends.

    with ServeProcess(["--scene", "arm"]) as server:    # a private ipc:// address
        session = Session(server.endpoint)

The server is ready once it prints its serving line (`app.serve` prints it
after binding its address): unlike a probe, that needs no client keys, holds
no controller session, and names the endpoint actually bound (the port of a
`tcp://host:0` address). A server of another kind, which prints no such line
(Click's, coupler's C++ programs), is ready once a probe request is answered.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from coupler.transport.client import Client
from coupler.wire.errors import Error
from coupler.wire.messages import Message

log = logging.getLogger("coupler.serve")

DEFAULT_START_TIMEOUT = 30.0  # seconds to load a scene and bind; a large model on a loaded machine takes a while
DEFAULT_STOP_TIMEOUT = 5.0  # seconds from SIGTERM to SIGKILL
SERVING = "serving scene"  # how the line `app.serve` prints once bound begins: "serving scene 'S' (...) on ENDPOINT, mode"
_KEPT_LINES = 1000  # of the server's output, kept for `output()` and error messages
_TAIL_CHARS = 2000  # of that output, quoted in an error
_POLL = 0.05  # seconds between looks at a server that is starting
_PROBE_TIMEOUT = 0.3  # seconds a probe waits for its answer before the server is looked at again
_READER_JOIN = 2.0  # seconds to wait for the rest of the output once the server has exited
# The flag of `coupler serve` that ties it to its owner: it stops when its standard input closes, which
# the kernel does when the owner ends, however it ends (a signal to the owner's thread that started it,
# as prctl's PR_SET_PDEATHSIG sends, would also end a server started from a short-lived thread).
STOP_WITH_OWNER = "--stop-on-stdin-eof"
# The flag that makes `coupler serve` remove a folder when it stops: the private folder of its socket, which
# its owner cannot remove when it is killed.
REMOVE_ON_EXIT = "--remove-on-exit"


def serve_command(*args: str) -> list[str]:
    """`coupler serve ARGS` run by this interpreter."""
    return [sys.executable, "-m", "coupler.cli", "serve", *args]


def serving_endpoint(line: str) -> str | None:
    """The endpoint named by the serving line of `coupler serve`, or None for any other line."""
    if not line.startswith(SERVING) or " on " not in line:
        return None
    bound = line.rsplit(" on ", 1)[1]
    return bound.split(",", 1)[0].strip() or None


class ServeProcess:
    """A server process, from its start until it serves, to its end (also when its owner dies).

    `args` are the flags of `coupler serve`; it binds `address`, by default
    an ipc:// socket in a temporary folder of its own, removed on `close()`.
    `command` runs another program instead (a server of another kind:
    `address` is then only what it binds) and, when that program prints no
    serving line, `probe`: the server serves once a Client sending it to
    `address` is answered (`client_options` go to that Client: CURVE keys).
    A SensorRequest leaves a coupler server free for the next controller;
    Click's answers only a HandshakeInit or a Control. A server that speaks
    no protocol is probed by a function instead: it serves once
    `probe(address)` returns True.
    The process's standard input is a pipe this object holds: `coupler serve`
    given STOP_WITH_OWNER (as the default command is) stops when it closes,
    so it never outlives its owner, and removes its private folder as it
    stops (REMOVE_ON_EXIT), so an owner killed with SIGKILL leaves nothing
    behind.
    Its standard output and error are read as they come and kept (the last
    lines, and all of it in `log_path` when given), so it never blocks on
    them. `start()` (or entering the context) returns once it serves;
    coupler.Error, naming the exit status and the end of its output, when it
    exits first or does not serve within `start_timeout` seconds. `close()`
    (or leaving the context) sends SIGTERM, then SIGKILL after `stop_timeout`
    seconds.
    """

    def __init__(self, args: Sequence[str] = (), *, address: str | None = None,
                 command: Sequence[str] | None = None, start_timeout: float = DEFAULT_START_TIMEOUT,
                 stop_timeout: float = DEFAULT_STOP_TIMEOUT, log_path: Path | None = None,
                 env: dict[str, str] | None = None, cwd: str | os.PathLike[str] | None = None,
                 probe: Message | Callable[[str], bool] | None = None,
                 client_options: dict[str, Any] | None = None) -> None:
        if command is None and "--addr" in args:
            raise Error("give ServeProcess the server's address as address=, not as --addr among its flags")
        if probe is not None and (command is None or address is None):
            raise Error("a probe is for a server of another kind: give ServeProcess its command= and address=")
        self._folder: Path | None = None
        owned: list[str] = []
        if address is None and command is None:
            self._folder = Path(tempfile.mkdtemp(prefix="coupler-serve-"))
            address = f"ipc://{self._folder / 'server.sock'}"
            owned = [REMOVE_ON_EXIT, str(self._folder)]
        self.address = address
        self.folder = self._folder  # the private folder of the socket, removed by the server or by close()
        self.command = list(command) if command is not None else serve_command("--addr", str(address), STOP_WITH_OWNER,
                                                                                *owned, *args)
        self.name = "coupler serve" if command is None else " ".join([Path(self.command[0]).name, *self.command[1:3]])
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.log_path = log_path
        self.endpoint: str | None = None  # the endpoint bound, from the serving line
        self.probe = probe
        self.client_options = client_options or {}
        self._env = env
        self._cwd = cwd
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: deque[str] = deque(maxlen=_KEPT_LINES)
        self._lines_lock = threading.Lock()
        self._serving_seen = threading.Event()
        self._reader: threading.Thread | None = None

    # Starting

    def launch(self) -> ServeProcess:
        """Start the process without waiting for it to serve."""
        if self._process is not None:
            raise Error(f"{self.name} was started already")
        log_file: IO[bytes] | None = open(self.log_path, "wb") if self.log_path is not None else None
        try:
            self._process = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                env=self._env, cwd=self._cwd)
        except BaseException:
            if log_file is not None:
                log_file.close()
            self._remove_folder()
            raise
        self._reader = threading.Thread(target=self._read_output, args=(self._process.stdout, log_file),
                                        name=f"{self.name} output", daemon=True)
        self._reader.start()
        return self

    def start(self) -> ServeProcess:
        """Start the process (unless `launch` did) and return once it serves; coupler.Error (the process
        stopped) otherwise."""
        if self._process is None:
            self.launch()
        try:
            self.wait_until_serving()
        except BaseException:
            self.close()
            raise
        return self

    def wait_until_serving(self, timeout: float | None = None) -> None:
        """Return once the server serves; coupler.Error when it exits first or `timeout` (default:
        `start_timeout`) seconds pass, naming its exit status and the end of its output."""
        limit = self.start_timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        while not self._serving():
            code = self.poll()
            if code is not None:
                self._finish_reading()
                raise Error(f"{self.name} exited with status {code} before serving: {self.output_tail()}")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Error(f"{self.name} did not serve within {limit:g} s: {self.output_tail()}")
            self._serving_seen.wait(min(remaining, _POLL))

    def _serving(self) -> bool:
        """Whether the server serves: it printed its serving line, or answered the probe."""
        if self.probe is None:
            return self._serving_seen.is_set()
        assert self.address is not None
        answered = self.probe(self.address) if callable(self.probe) else self._answers(self.probe)
        if answered:
            self.endpoint = self.address
        return answered

    def _answers(self, probe: Message) -> bool:
        """Whether a Client sending `probe` to the address gets an answer."""
        assert self.address is not None
        try:
            with Client(self.address, timeout=_PROBE_TIMEOUT, **self.client_options) as client:
                client.request(probe)
        except Error:
            return False
        return True

    def _read_output(self, stream: IO[bytes], log_file: IO[bytes] | None) -> None:
        try:
            for raw in stream:  # drained to the end, so the server never blocks on a full pipe
                if log_file is not None:
                    log_file.write(raw)
                    log_file.flush()
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                with self._lines_lock:
                    self._lines.append(line)
                if not self._serving_seen.is_set():
                    endpoint = serving_endpoint(line)
                    if endpoint is not None:
                        self.endpoint = endpoint
                        self._serving_seen.set()
        finally:
            stream.close()
            if log_file is not None:
                log_file.close()

    # What a Popen offers, for owners that watch or signal the process

    @property
    def pid(self) -> int:
        return self._started().pid

    @property
    def returncode(self) -> int | None:
        return self._started().returncode

    def poll(self) -> int | None:
        return self._started().poll()

    def wait(self, timeout: float | None = None) -> int:
        """The exit status, once the process has exited; subprocess.TimeoutExpired after `timeout` seconds."""
        return self._started().wait(timeout)

    def send_signal(self, signum: int) -> None:
        self._started().send_signal(signum)

    def kill(self) -> None:
        self._started().kill()

    def _started(self) -> subprocess.Popen[bytes]:
        if self._process is None:
            raise Error(f"{self.name} has not been started")
        return self._process

    # Output

    def output(self) -> str:
        """What the process printed (its last lines), everything once it has exited and been read to the end."""
        if self._process is not None and self._process.poll() is not None:
            self._finish_reading()
        with self._lines_lock:
            return "\n".join(self._lines)

    def output_tail(self) -> str:
        """The end of the output on one line, escaped, for an error message."""
        with self._lines_lock:
            text = " | ".join(line.strip() for line in self._lines if line.strip())
        text = text.encode("unicode_escape").decode("ascii")[-_TAIL_CHARS:]
        return text or "(no output)"

    def _finish_reading(self) -> None:
        # A child of the server (the writer of --record) may hold the pipe open after the server ends.
        if self._reader is not None:
            self._reader.join(_READER_JOIN)

    # Stopping

    def close(self) -> int | None:
        """Stop the process (SIGTERM, then SIGKILL after `stop_timeout` s) and remove its folder; its exit status.
        Safe to call twice."""
        code = None
        if self._process is not None:
            if self._process.poll() is None:
                self._process.terminate()
                try:
                    self._process.wait(self.stop_timeout)
                except subprocess.TimeoutExpired:
                    log.warning("%s did not stop within %g s of SIGTERM; killing it", self.name, self.stop_timeout)
                    self._process.kill()
                    self._process.wait(self.stop_timeout)
            code = self._process.returncode
            if self._process.stdin is not None:
                self._process.stdin.close()
            self._finish_reading()
        self._remove_folder()
        return code

    def _remove_folder(self) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    def __enter__(self) -> ServeProcess:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()
