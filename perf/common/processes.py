"""Running the programs a benchmark measures, with a bound on every wait and
no process left behind however a measurement ends."""

from __future__ import annotations

import functools
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import zmq

from coupler.serve.serve_process import ServeProcess
from coupler.transport.client import Client
from coupler.wire.errors import Error
from coupler.wire.messages import Message, SensorRequestMessage

from perf.common.errors import BenchmarkError
from perf.common.process_stats import cpu_seconds
from perf.common.programs import REPO



def _tail(text: str, lines: int = 20) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def _name(command: list[str]) -> str:
    """A command as an error message names it: program and first arguments, e.g. "python -m demo.server"."""
    return " ".join([Path(command[0]).name, *command[1:3]])


class ServerProcess(ServeProcess):
    """A server run for one measurement, as a context manager.

    Entering starts it and, given a `handshake_address`, returns once the
    `probe` sent there is answered (ServeProcess's probe): by default a
    SensorRequest; Click's server answers only a HandshakeInit. A probe
    rather than the serving line, since the servers measured include Click's
    and the C++ ones, which print none. A server that speaks no
    protocol (a ping-pong floor) is probed with `raw_probe`, a request frame
    and the size of the reply it expects. Leaving stops it if it still runs.
    Its whole output goes to `log_path`.
    """

    def __init__(
        self,
        command: list[str],
        log_path: Path,
        handshake_address: str | None = None,
        env: dict[str, str] | None = None,
        ready_timeout: float = 20.0,
        probe: Message | None = None,
        client_options: dict | None = None,
        raw_probe: tuple[bytes, int] | None = None,
    ) -> None:
        # How the server is seen to serve: it answers the raw probe, or a Client's `probe`.
        ready_when: Message | Callable[[str], bool] | None = None
        if handshake_address is not None and raw_probe is not None:
            request, reply_bytes = raw_probe
            ready_when = functools.partial(self._answers_raw_probe, request=request, reply_bytes=reply_bytes)
        elif handshake_address is not None:
            ready_when = probe or SensorRequestMessage()
        super().__init__(command=command, address=handshake_address, start_timeout=ready_timeout,
                         log_path=log_path, env=env, cwd=REPO, probe=ready_when, client_options=client_options)

    def __enter__(self) -> ServerProcess:
        self.launch()
        self.ready()
        return self

    def ready(self) -> None:
        """Return once a launched server answers its probe (at once without a `handshake_address`), so
        several servers can be launched first and start up side by side."""
        if self.address is not None:
            try:
                self.start()
            except Error as error:
                raise BenchmarkError(str(error)) from None

    def log(self) -> str:
        self.output()  # waits for the rest of the output of a server that has exited
        assert self.log_path is not None
        return self.log_path.read_text(errors="replace")

    def check_running(self) -> None:
        """Raise BenchmarkError when the server has exited, with the end of its output."""
        code = self.poll()
        if code is not None:
            raise BenchmarkError(f"{self.name} exited with {code}:\n{_tail(self.log())}")

    def cpu_seconds(self) -> float:
        """User plus system CPU time the server has used so far, all its threads together."""
        self.check_running()
        return cpu_seconds(self.pid)

    def idle_cpu_percent(self, seconds: float) -> float:
        """The server's CPU use over `seconds` of wall time in which nobody sends it anything, in percent
        of one core: what a server costs the machine while a controller thinks (or is not there)."""
        before, started = self.cpu_seconds(), time.monotonic()
        time.sleep(seconds)
        return 100.0 * (self.cpu_seconds() - before) / (time.monotonic() - started)

    def stop(self, timeout: float = 10.0) -> str:
        """Interrupt the server as Ctrl-C would, wait for it to exit, and return its output.

        Raises BenchmarkError when it had already died, does not exit within
        `timeout` seconds, or exits with an error.
        """
        self.check_running()
        self.send_signal(signal.SIGINT)
        try:
            code = self.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._kill()
            raise BenchmarkError(f"{self.name} did not exit within {timeout} s of SIGINT") from None
        if code != 0:
            raise BenchmarkError(f"{self.name} exited with {code}:\n{_tail(self.log())}")
        return self.log()

    def end(self) -> str:
        """Kill the server in whatever state it is and return its output, for a server
        whose exit says nothing about the measurement."""
        self._kill()
        return self.log()

    def finish(self, timeout: float) -> str:
        """Wait for a server that exits by itself; return its output.

        Raises BenchmarkError when it does not exit within `timeout` seconds
        or exits with an error.
        """
        try:
            code = self.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._kill()
            raise BenchmarkError(f"{self.name} did not finish within {timeout} s") from None
        if code != 0:
            raise BenchmarkError(f"{self.name} exited with {code}:\n{_tail(self.log())}")
        return self.log()

    def _answers_raw_probe(self, address: str, request: bytes, reply_bytes: int) -> bool:
        """Whether a server that speaks no protocol answers `request` at `address`; BenchmarkError for a reply
        of other than `reply_bytes` bytes."""
        context = zmq.Context.instance()
        with context.socket(zmq.REQ) as socket:
            socket.linger = 0
            socket.rcvtimeo = socket.sndtimeo = 300
            socket.connect(address)
            try:
                socket.send(request)
                reply = socket.recv()
            except zmq.Again:
                return False
        if len(reply) != reply_bytes:
            raise BenchmarkError(f"{self.name} answered {len(reply)} bytes, expected {reply_bytes}")
        return True

    def _kill(self) -> None:
        if self.poll() is None:
            self.kill()
            self.wait(timeout=10)


def read_until(address: str, done: Callable[[], bool], timeout: float, what: str) -> None:
    """Read the state of the server at `address` (a read is published, with its answer) until `done()`, so that
    subscribers started beside a server get frames while they start; BenchmarkError naming `what` (what did not
    happen) after `timeout` seconds. `done` may raise BenchmarkError itself (a subscriber that exited)."""
    deadline = time.monotonic() + timeout
    with Client(address, timeout=5.0) as client:
        while not done():
            if time.monotonic() > deadline:
                raise BenchmarkError(f"{what} within {timeout:g} s")
            client.request(SensorRequestMessage())
            time.sleep(0.02)


def run_client(command: list[str], timeout: float) -> str:
    """Run a client program to completion and return its output (stderr merged).

    Raises BenchmarkError when it fails or takes longer than `timeout` seconds.
    """
    try:
        result = subprocess.run(
            command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired as expired:
        output = expired.output.decode(errors="replace") if isinstance(expired.output, bytes) else expired.output
        problem = f"{_name(command)} did not finish within {timeout:.0f} s"
        raise BenchmarkError(f"{problem}:\n{_tail(output or '')}") from None
    if result.returncode != 0:
        raise BenchmarkError(f"{_name(command)} exited with {result.returncode}:\n{_tail(result.stdout)}")
    return result.stdout
