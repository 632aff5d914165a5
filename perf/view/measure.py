"""The measurements of perf.view: a lockstep server driven at a set pace by a Python controller (or flat out by
the C++ demo controller), in slices with and without `coupler view` watching its publish stream, taking turns in
one server run."""

from __future__ import annotations

import re
import signal
import subprocess
import time
from pathlib import Path

from coupler.controller.session import Session
from coupler.serve.serve_process import ServeProcess

from perf.common.errors import BenchmarkError
from perf.common.headless_browser import HeadlessBrowser
from perf.common.processes import run_client
from perf.common.programs import REPO, democlient, python

VIEW_START_TIMEOUT = 60.0  # seconds for a view to load viser and the scene
STOP_TIMEOUT = 20.0
PAGE_WIDTH, PAGE_HEIGHT = 1000, 560
STEP_TIMEOUT = 10.0  # seconds a paced step may take
SPIN_BELOW = 0.0003  # seconds before a step is due below which the paced controller spins: sleeps overshoot
_RATE = re.compile(r"round trips per second:\s+([\d.]+)")
_DRAWN = re.compile(r"view: drew (\d+) frames in ([\d.]+) s \(([\d.]+) frames/s\), of (\d+) states received \((\d+) "
                    r"dropped")


class _View:
    """`coupler view --web` of `address`, and a headless browser on its page when `browser`."""

    def __init__(self, address: str, browser: bool, fps: float) -> None:
        self.process = subprocess.Popen([python(), "-m", "coupler.cli", "view", "--addr", address, "--web", "--web-addr",
                                         "127.0.0.1:0", "--fps", repr(fps)], cwd=REPO, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        self.browser: HeadlessBrowser | None = None
        deadline = time.monotonic() + VIEW_START_TIMEOUT
        assert self.process.stdout is not None
        for line in self.process.stdout:  # the view's first line says where it is; an error line ends it
            if " at http://" in line:
                self.url = line.rsplit(" at ", 1)[1].split()[0]
                break
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise BenchmarkError(f"coupler view did not start: {line.strip()}")
        else:
            raise BenchmarkError(f"coupler view exited with {self.process.wait()} before serving its page")
        if browser:
            self.browser = HeadlessBrowser(PAGE_WIDTH, PAGE_HEIGHT)
            self.browser.open(self.url)

    def stop(self) -> dict[str, float]:
        if self.browser is not None:
            self.browser.close()
        self.process.send_signal(signal.SIGINT)
        try:
            output, _ = self.process.communicate(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            output, _ = self.process.communicate(timeout=STOP_TIMEOUT)
        match = _DRAWN.search(output)
        if match is None:
            raise BenchmarkError(f"coupler view printed no summary: {output[-500:]}")
        frames, seconds, rate, received, dropped = match.groups()
        return {"frames": int(frames), "seconds": float(seconds), "frames_per_s": float(rate),
                "states_received": int(received), "states_dropped": int(dropped)}


def _paced_steps_per_second(address: str, count: int, pace: float) -> float:
    """Steps a second of a lockstep server whose controller asks for a step every 1/`pace` seconds on a
    schedule: `pace` when nothing slows the server, less when something does (the controller makes up for a
    late step, never for a slow server)."""
    with Session(address, timeout=STEP_TIMEOUT) as session:
        controls = session.controls()
        period = 1.0 / pace
        started = time.monotonic()
        for step in range(count):
            due = started + step * period
            while (left := due - time.monotonic()) > 0:
                if left > SPIN_BELOW:
                    time.sleep(left - SPIN_BELOW)
            session.step(controls)
        return count / (time.monotonic() - started)


def _steps_per_second(address: str, count: int, pace: float | None) -> float:
    if pace is not None:
        return _paced_steps_per_second(address, count, pace)
    output = run_client([str(democlient()), "--addr", address, "--range", str(count), "--timings",
                         "--blocking-receive"], timeout=600)
    match = _RATE.search(output)
    if match is None:
        raise BenchmarkError(f"democlient printed no rate: {output[-500:]}")
    return float(match.group(1))


def interleaved(folder: Path, rounds: int, count: int, browser: bool, paced: float | None, fps: float) -> dict:
    """Per round, the server's steps per second without a view, then with one drawing at most `fps` frames a
    second (and its draw figures); `paced`:
    a controller asks for this many steps a second, None: the C++ demo controller drives the server flat out."""
    publish = f"ipc://{folder}/published"
    without, with_view, drawn = [], [], []
    with ServeProcess(["--scene", "arm", "--publish", publish]) as server:
        for _ in range(rounds):
            without.append(_steps_per_second(server.endpoint, count, paced))
            view = _View(publish, browser, fps)
            try:
                with_view.append(_steps_per_second(server.endpoint, count, paced))
            finally:
                drawn.append(view.stop())
    return {"without_view": without, "with_view": with_view, "view": drawn}
