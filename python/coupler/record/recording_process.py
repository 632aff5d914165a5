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
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import tempfile
import time

from coupler.record.publisher import FramePublisher
from coupler.wire.errors import Error

log = logging.getLogger(__name__)

RECORD_HWM = 1_000_000  # messages queued for the writer: minutes of the fastest lockstep rate
START_TIMEOUT = 60.0  # seconds for the writer process to start and subscribe
END_EVERY = 0.5  # seconds between repeats of the end message while the writer catches up
# The writer's CPU priority below the server's: on a machine whose cores the server and its controllers keep
# busy, writing waits for the time they leave instead of delaying their round trips; the queue above
# holds the frames meanwhile.
WRITER_NICENESS = 10


class RecordingProcess:
    """A writer process recording what `publisher` publishes to `path`; `close()` ends the recording."""

    def __init__(self, path: str | os.PathLike[str], publisher: FramePublisher) -> None:
        self.path = os.fspath(path)
        self._publisher = publisher
        self._folder = tempfile.TemporaryDirectory(prefix="coupler-record-")
        endpoint = publisher.bind(f"ipc://{self._folder.name}/frames", hwm=RECORD_HWM, private=True)
        self._process = subprocess.Popen(
            [sys.executable, "-m", "coupler.cli", "record", "--addr", endpoint, self.path, "--quiet",
             "--stop-on-stdin-eof", "--publish-hwm", str(RECORD_HWM), "--nice", str(WRITER_NICENESS)],
            stdin=subprocess.PIPE, start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT
        while not publisher.wait_for_subscribers(1, 0.1):
            if self._process.poll() is not None or time.monotonic() > deadline:
                ended = self._process.returncode
                self._stop_process()
                self._folder.cleanup()
                what = f"ended with status {ended}" if ended is not None else f"did not start in {START_TIMEOUT:g} s"
                raise Error(f"cannot record to '{self.path}': the writer process {what}")

    def close(self, timeout: float = 600.0) -> int | None:
        """Tell the writer the stream ended and wait up to `timeout` seconds for it to finish the file (a
        backlog of a long run takes a while); returns its exit status. Safe to call twice."""
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
            self._process.stdin.close()  # the writer finishes with what it has
        try:
            self._process.wait(30)
        except subprocess.TimeoutExpired:
            log.error("the recording's writer process did not finish within 30 s; killed")
            self._process.kill()
            self._process.wait(10)
