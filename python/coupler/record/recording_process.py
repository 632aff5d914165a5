"""`coupler serve --record`: the MCAP file is written by a process of its own, so compressing and writing
never takes the serving process's GIL or its core.

The server's publisher gets a private ipc:// address with a deep queue; a
`coupler record` process subscribes there and writes the file. The server
waits for its subscription before serving (nothing is missed at the start),
and at the end sends the publisher's end message (how many frames there
were) and waits for the writer to finish. The writer's standard input is a
pipe from the server: if the server is killed, even with SIGKILL, the pipe
closes and the writer finishes the file with what it received. The writer
runs in a session of its own, so a Ctrl-C at the terminal stops the server,
which then ends the recording in order.

The writer writes beside the target and puts its file in place when the
server says, through that pipe, that it serves (`started()`): a server that
fails before (its address in use) leaves an existing recording as it was.
A writer that dies while the server serves is noticed at once, by a thread
waiting for it: one line in the log, serving goes on, and the summary says
how many messages the recording lacks (`incomplete`).
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from coupler.record.publisher import FramePublisher
from coupler.record.recording_target import check_target
from coupler.record.stream_recorder import PLACE
from coupler.wire.errors import Error

log = logging.getLogger(__name__)

RECORD_HWM = 1_000_000  # messages queued for the writer: minutes of the fastest lockstep rate
START_TIMEOUT = 60.0  # seconds for the writer process to start and subscribe
END_EVERY = 0.5  # seconds between repeats of the end message while the writer catches up
# The writer's CPU priority below the server's: on a machine whose cores the server and its controllers keep
# busy, writing waits for the time they leave instead of delaying their round trips; the queue above
# holds the frames meanwhile.
WRITER_NICENESS = 10


def _ended(status: int) -> str:
    if status < 0:
        try:
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exited with status {status}"


class RecordingProcess:
    """A writer process recording what `publisher` publishes to `path` (an existing file is refused unless
    `overwrite`), with log times `log_time` (wall or sim); `started()` once serving, `close()` ends the
    recording."""

    def __init__(self, path: str | os.PathLike[str], publisher: FramePublisher, overwrite: bool = False,
                 log_time: str = "wall") -> None:
        self.path = os.fspath(path)
        check_target(Path(self.path), overwrite)
        self._publisher = publisher
        self._closing = False
        self._serving = False  # started() was called: the writer was told to put the recording in place
        self.died: str | None = None  # how the writer ended while serving, if it did
        self._sent_when_died = 0
        self._folder = tempfile.TemporaryDirectory(prefix="coupler-record-")
        endpoint = publisher.bind(f"ipc://{self._folder.name}/frames", hwm=RECORD_HWM, private=True)
        self._process = subprocess.Popen(
            [sys.executable, "-m", "coupler.cli", "record", "--addr", endpoint, self.path, "--quiet",
             "--stop-on-stdin-eof", "--place-when-told", "--publish-hwm", str(RECORD_HWM),
             "--nice", str(WRITER_NICENESS), "--log-time", log_time, *(["--overwrite"] if overwrite else [])],
            stdin=subprocess.PIPE, start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT
        while not publisher.wait_for_subscribers(1, 0.1):
            if self._process.poll() is not None or time.monotonic() > deadline:
                ended = self._process.returncode
                self._stop_process()
                self._folder.cleanup()
                what = _ended(ended) if ended is not None else f"did not start in {START_TIMEOUT:g} s"
                raise Error(f"cannot record to '{self.path}': the writer process {what}")
        self._watch = threading.Thread(target=self._watch_writer, name="recording writer watch", daemon=True)
        self._watch.start()

    def started(self) -> None:
        """Serving has started: the writer puts the recording in place of the target."""
        self._serving = True
        try:
            assert self._process.stdin is not None
            self._process.stdin.write(PLACE)
            self._process.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass  # the writer has gone: its watch says so

    def _watch_writer(self) -> None:
        status = self._process.wait()
        if self._closing:
            return
        self.died = _ended(status)
        self._sent_when_died = self._publisher.sent
        log.error("the recording's writer process %s after %d messages: serving goes on, unrecorded; '%s' "
                  "ends there", self.died, self._sent_when_died, self.path)

    @property
    def incomplete(self) -> str | None:
        """What the recording lacks because its writer died while serving, or None."""
        if self.died is None:
            return None
        if not self._serving:
            return (f"recorded:              nothing: the writer process {self.died} before serving started; "
                    f"'{self.path}' left as it was")
        missing = self._publisher.sent - self._sent_when_died
        return (f"recorded:              INCOMPLETE: the writer process {self.died}; '{self.path}' lacks at least "
                f"the last {missing} of {self._publisher.sent} messages")

    def close(self, timeout: float = 600.0) -> int | None:
        """Tell the writer the stream ended and wait up to `timeout` seconds for it to finish the file (a
        backlog of a long run takes a while); returns its exit status. Safe to call twice."""
        self._closing = self.died is None
        if self._process.returncode is None:
            deadline = time.monotonic() + timeout
            waited_long = False
            while self._process.poll() is None and time.monotonic() < deadline:
                self._publisher.send_end()
                try:
                    self._process.wait(END_EVERY)
                except subprocess.TimeoutExpired:
                    if not waited_long and time.monotonic() > deadline - timeout + 5:
                        waited_long = True
                        print(f"writing the rest of {self.path} ...", flush=True)
            self._stop_process()
        self._folder.cleanup()
        return self._process.returncode

    def _stop_process(self) -> None:
        if self._process.stdin is not None and not self._process.stdin.closed:
            try:
                self._process.stdin.close()  # the writer finishes with what it has
            except BrokenPipeError:
                pass
        try:
            self._process.wait(30)
        except subprocess.TimeoutExpired:
            log.error("the recording's writer process did not finish within 30 s; killed")
            self._process.kill()
            self._process.wait(10)
