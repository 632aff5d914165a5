"""The hostile peers of perf.stress, each for one phase: the driving controller
(a process), Controls of pathological shape from a peer that may not drive,
and a Control of many steps from another peer while readers and newcomers
time their answers."""

from __future__ import annotations

import json
import statistics
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from coupler.limits import MAX_FRAME_BYTES  # the server's --max-frame-bytes default
from coupler.transport.client import Client
from coupler.wire.codec import decode, encode
from coupler.wire.errors import Error
from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    Message,
    ObjectControl,
    SensorMessage,
    SensorRequestMessage,
)
from perf.common import programs
from perf.common.errors import BenchmarkError
from perf.soak.run import LineReader
from perf.stress.controller import LINE_PREFIX
from perf.stress.readers import LINE_PREFIX as READERS_PREFIX
from perf.stress.readers import Answers, ask_until, is_state

ANSWER_TIMEOUT = 0.5  # s: how long a reader or a newcomer may wait, even behind a long Control
ASK_PAUSE = 0.01  # s between a reader's (or newcomer's) answer and its next request during a long Control
GOODBYE = ErrorMessage(code=ErrorCode.SESSION_ENDED, text="stress phase over")


class DrivingController:
    """perf.stress.controller in a process of its own; its progress lines kept with their arrival times."""

    def __init__(self, address: str) -> None:
        self.process = subprocess.Popen(
            [programs.python(), "-m", "perf.stress.controller", "--addr", address], cwd=programs.REPO,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.lines: list[tuple[float, dict[str, Any]]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith(LINE_PREFIX):
                self.lines.append((time.monotonic(), json.loads(line[len(LINE_PREFIX):])))

    def wait_until_driving(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.lines) < 2:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise BenchmarkError(f"the controller did not start driving: {self._stderr()}")
            time.sleep(0.05)

    def rate(self, start: float, end: float) -> float:
        """Steps per second between two time.monotonic() instants, from the lines that fall between them."""
        inside = [(t, line["round_trips"]) for t, line in self.lines if start <= t <= end]
        if len(inside) < 2 or inside[-1][0] == inside[0][0]:
            raise BenchmarkError("the controller reported too little in a phase to take its step rate")
        return (inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0])

    def median_round_trip(self, start: float, end: float) -> float | None:
        """Seconds: the median of the medians of the lines between two instants (each covers about 0.1 s)."""
        medians = [line["median_round_trip"] for t, line in self.lines
                   if start <= t <= end and line.get("median_round_trip") is not None]
        return statistics.median(medians) if medians else None

    def longest_round_trip(self, start: float, end: float) -> float:
        return max((line["longest_round_trip"] for t, line in self.lines if start <= t <= end), default=0.0)

    def check_running(self) -> None:
        if self.process.poll() is not None:
            raise BenchmarkError(f"the controller exited with {self.process.returncode}: {self._stderr()}")

    def stop(self, timeout: float = 10.0) -> dict[str, Any]:
        """Ask it to stop; its last report (round trips, steps lost, duplicated, irregular)."""
        self.check_running()
        assert self.process.stdin is not None
        self.process.stdin.write("stop\n")
        self.process.stdin.flush()
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise BenchmarkError(f"the controller did not stop within {timeout} s") from None
        self._reader.join(timeout=timeout)
        if code != 0 or not self.lines or not self.lines[-1][1]["done"]:
            raise BenchmarkError(f"the controller exited with {code}: {self._stderr()}")
        return self.lines[-1][1]

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def _stderr(self) -> str:
        if self.process.poll() is None or self.process.stderr is None:
            return "(still running)"
        return self.process.stderr.read()[-2000:]


def pathological_frame(names: int, max_bytes: int = MAX_FRAME_BYTES) -> bytes:
    """A Control naming `names` objects no scene has, one value each: costly to decode, cheap to send.

    BenchmarkError when it would not fit in `max_bytes` (the server drops such a frame's connection unread).
    """
    control = ControlMessage(objects={f"o{i:05d}": ObjectControl([0.0]) for i in range(names)})
    frame = encode(control)
    if len(frame) > max_bytes:
        raise BenchmarkError(f"a Control of {names:,} names is {len(frame):,} bytes, over the server's frame limit "
                             f"of {max_bytes:,}: give fewer --names")
    return frame


@dataclass
class Refusals:
    sent: int = 0
    busy: int = 0
    other: list[str] = field(default_factory=list)


def send_pathological(address: str, frame: bytes, seconds: float) -> Refusals:
    """Send `frame` again and again for `seconds` from a peer that never drives; how it was answered."""
    refusals = Refusals()
    deadline = time.monotonic() + seconds
    with Client(address) as client:
        while time.monotonic() < deadline:
            client.send_frame(frame)
            try:
                answer = decode(client.receive_frame())
            except Error as error:
                raise BenchmarkError(f"a pathological Control was not answered: {error}") from None
            refusals.sent += 1
            if isinstance(answer, ErrorMessage) and answer.code == ErrorCode.SERVER_BUSY:
                refusals.busy += 1
            elif len(refusals.other) < 5:
                refusals.other.append(repr(answer)[:200])
    return refusals


def merged(each: list[Answers]) -> Answers:
    total = Answers()
    for answers in each:
        total.merge(answers)
    return total


def is_busy(answer: Message) -> bool:
    return isinstance(answer, ErrorMessage) and answer.code == ErrorCode.SERVER_BUSY


def _control_of(handshake: Message, steps: int) -> ControlMessage:
    """A Control of `steps` steps holding still the first object of `handshake` that has controls."""
    if not isinstance(handshake, HandshakeMessage):
        raise BenchmarkError(f"expected a Handshake, got {handshake!r}")
    name, description = next((n, d) for n, d in handshake.objects.items() if d.controls)
    return ControlMessage(objects={name: ObjectControl([0.0] * len(description.controls))}, steps=steps)


@dataclass
class LongControlRun:
    steps: int
    time_step: float  # s, the scene's
    seconds: float  # from sending the Control to its answer
    simulated_advance: float  # s the answer is ahead of the state before
    readers: Answers
    newcomers: Answers


def long_control(address: str, steps: int, readers: int = 3, newcomers: int = 2) -> LongControlRun:
    """Drive with one Control of `steps` steps while `readers` read and `newcomers` ask to drive."""
    done = threading.Event()
    reader_answers = [Answers() for _ in range(readers)]
    newcomer_answers = [Answers() for _ in range(newcomers)]
    with Client(address, timeout=120.0) as driver:
        answer = driver.request(HandshakeInitMessage())
        if isinstance(answer, ErrorMessage):
            raise BenchmarkError(f"the long Control's peer could not drive: {answer.text}")
        control = _control_of(answer, steps)
        time_step = answer.time_step
        before = driver.request(SensorRequestMessage())
        threads = [threading.Thread(target=ask_until, daemon=True, args=(
            address, SensorRequestMessage(), is_state, done.is_set, ANSWER_TIMEOUT, answers, ASK_PAUSE))
            for answers in reader_answers]
        threads += [threading.Thread(target=ask_until, daemon=True, args=(
            address, HandshakeInitMessage(), is_busy, done.is_set, ANSWER_TIMEOUT, answers, ASK_PAUSE))
            for answers in newcomer_answers]
        sent = time.perf_counter()
        driver.send(control)
        for thread in threads:
            thread.start()
        after = driver.receive()
        seconds = time.perf_counter() - sent
        done.set()
        for thread in threads:
            thread.join(timeout=5.0)
        driver.send(GOODBYE)
    if not isinstance(after, SensorMessage) or not isinstance(before, SensorMessage):
        raise BenchmarkError(f"the long Control was answered with {after!r}")
    return LongControlRun(steps, time_step, seconds, after.simulated_time - before.simulated_time,
                          merged(reader_answers), merged(newcomer_answers))


def start_long_control(address: str, steps: int) -> Client:
    """A peer that handshakes and sends a Control of `steps` steps, not waiting for its answer; close it after."""
    driver = Client(address)
    try:
        answer = driver.request(HandshakeInitMessage())
        if isinstance(answer, ErrorMessage):
            raise BenchmarkError(f"the long Control's peer could not drive: {answer.text}")
        driver.send(_control_of(answer, steps))
    except BaseException:
        driver.close()
        raise
    return driver


def _next_line(lines: LineReader, timeout: float) -> str | None:
    try:
        return lines.next_line(timeout)
    except BenchmarkError:
        raise BenchmarkError(f"the readers reported nothing for {timeout:.0f} s") from None


@dataclass
class ReaderWindows:
    """The controller's step rate in windows with readers and in the quiet windows after them, and the readers'."""

    reading_rates: list[float] = field(default_factory=list)
    quiet_rates: list[float] = field(default_factory=list)
    # The controller's median round trip (seconds) in each window, where it reported one.
    reading_round_trips: list[float] = field(default_factory=list)
    quiet_round_trips: list[float] = field(default_factory=list)
    answers: Answers = field(default_factory=Answers)  # the readers', all windows together

    @property
    def ratios(self) -> list[float]:
        return [r / q if q > 0 else 0.0 for r, q in zip(self.reading_rates, self.quiet_rates)]


def read_in_windows(address: str, controller: DrivingController, readers: int, windows: int, seconds: float,
                    quiet: float) -> ReaderWindows:
    """perf.stress.readers reading in `windows` windows of `seconds`, each followed by `quiet` seconds."""
    process = subprocess.Popen(
        [programs.python(), "-m", "perf.stress.readers", "--addr", address, "--readers", str(readers),
         "--seconds", repr(seconds), "--quiet", repr(quiet), "--windows", str(windows),
         "--timeout", repr(ANSWER_TIMEOUT)],
        cwd=programs.REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    lines = LineReader(process.stdout)
    result = ReaderWindows()
    marks: list[float] = []
    try:
        while (line := _next_line(lines, seconds + quiet + 30)) is not None:
            if not line.startswith(READERS_PREFIX):
                continue
            marks.append(time.monotonic())
            report = json.loads(line[len(READERS_PREFIX):])
            if "answered" in report:
                result.answers.merge(Answers(**{k: v for k, v in report.items() if k != "reading"}))
            if len(marks) == 3:  # reading started, reading ended, quiet ended
                result.reading_rates.append(controller.rate(marks[0], marks[1]))
                result.quiet_rates.append(controller.rate(marks[1], marks[2]))
                for where, start, end in ((result.reading_round_trips, marks[0], marks[1]),
                                          (result.quiet_round_trips, marks[1], marks[2])):
                    median = controller.median_round_trip(start, end)
                    if median is not None:
                        where.append(median)
                marks.clear()
        code = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
    if code != 0 or len(result.reading_rates) != windows:
        stderr = process.stderr.read().decode(errors="replace")[-2000:] if process.stderr else ""
        raise BenchmarkError(f"the readers exited with {code} after {len(result.reading_rates)} of {windows} "
                             f"windows: {stderr}")
    return result
