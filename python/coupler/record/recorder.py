"""The recorder: a `FrameObserver` that writes what a server sees to an MCAP file on a thread of its own.

The serving thread only appends a frame reference (and, after a step, copies
of the MuJoCo state arrays) to a bounded queue and never waits: when the queue
is full the item is dropped and counted. The queue is a deque the writer
drains every few milliseconds, so handing over costs no wake-up of another
thread; the writer hands the GIL back during long drains. A write error (a full disk) is logged
once; from then on items are dropped and counted, and serving goes on.
"""

from __future__ import annotations

import logging
import os
from collections import deque
import threading
import time
from typing import Any

from coupler._proto.coupler_record_pb2 import MujocoState
from coupler.record.mcap_log import McapLog
from coupler.serve.simulation import Simulation

log = logging.getLogger(__name__)

DEFAULT_QUEUE = 65536  # items: a few seconds of the fastest lockstep rate
FLUSH_EVERY = 1.0  # seconds: a quiet server still gets its recent frames onto the disk this often
DRAIN_EVERY = 0.002  # seconds between the writer's looks at an empty queue
# Seconds of writing after which the writer hands the GIL back: the serving thread, back from its wait for a
# request, would otherwise wait for the interpreter's switch interval (5 ms) while a backlog is written.
HOLD_AT_MOST = 0.0002


def _yield_to_serving() -> None:
    """Run this thread at a lower priority than the serving one, where the system allows it (Linux: per thread)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError):
        pass


class Recorder:
    """Records every request, answer and lockstep state to `path`.

    `metadata` (name -> {key: value}) and `attachments` (name -> (media type,
    bytes)) are written first: the scene and its model, so a recording is
    rendered and replayed without the original files. `close()` (waits up to
    `timeout` seconds for the queue to drain) finishes the file.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        metadata: dict[str, dict[str, str]] | None = None,
        attachments: dict[str, tuple[str, bytes]] | None = None,
        queue_size: int = DEFAULT_QUEUE,
    ) -> None:
        self.path = os.fspath(path)
        self._log = McapLog(path)
        wall = time.time()
        for name, data in (metadata or {}).items():
            self._log.metadata(name, data)
        for name, (media_type, data) in (attachments or {}).items():
            self._log.attachment(name, media_type, data, wall)
        self._log.flush()
        self._queue: deque[tuple] = deque()
        self._capacity = queue_size
        self._stopping = threading.Event()
        self._dropped_full = 0  # counted on the serving thread
        self._dropped_failed = 0  # counted on the writer's, after a write error
        self.failed: str | None = None
        self._thread = threading.Thread(target=self._write_all, name="coupler-recorder", daemon=True)
        self._thread.start()

    @property
    def dropped(self) -> int:
        """Items not written: the queue was full, or writing had failed."""
        return self._dropped_full + self._dropped_failed

    @property
    def written(self) -> int:
        return self._log.messages

    def _put(self, item: tuple) -> None:
        if len(self._queue) >= self._capacity:
            self._dropped_full += 1
        else:
            self._queue.append(item)

    def on_request(self, frame: bytes, peer: bytes, wall: float) -> None:
        self._put((True, frame, wall, None))

    def on_answer(self, frame: bytes, peer: bytes, wall: float, simulated_time: float | None) -> None:
        self._put((False, frame, wall, simulated_time))

    def on_step(self, simulation: Simulation, step: int, wall: float) -> None:
        data = getattr(simulation, "data", None)  # a MuJoCo scene's mjData; other simulations have no state to keep
        if data is None:
            return
        self._put((None, (data.time, step, data.qpos.copy(), data.qvel.copy(), data.act.copy(), data.ctrl.copy()),
                   wall, data.time))

    def _write_all(self) -> None:
        _yield_to_serving()
        flushed = held_since = time.monotonic()
        while True:
            if not self._queue:
                if self._stopping.is_set():
                    return
                self._stopping.wait(DRAIN_EVERY)
                held_since = time.monotonic()
            else:
                self._write(self._queue.popleft())
                if time.monotonic() - held_since > HOLD_AT_MOST:
                    time.sleep(0)
                    held_since = time.monotonic()
            if time.monotonic() - flushed >= FLUSH_EVERY:
                flushed = time.monotonic()
                self._guarded(self._log.flush)

    def _write(self, item: tuple) -> None:
        if self.failed is not None:
            self._dropped_failed += 1
            return
        request, payload, wall, simulated_time = item
        if request is None:
            sim_time, step, qpos, qvel, act, ctrl = payload
            state = MujocoState(time=sim_time, step=step, qpos=qpos, qvel=qvel, act=act, ctrl=ctrl)
            self._guarded(self._log.state, state.SerializeToString(), wall, simulated_time)
        else:
            self._guarded(self._log.frame, request, payload, wall, simulated_time)
        if self.failed is not None:
            self._dropped_failed += 1

    def _guarded(self, write: Any, *args: Any) -> None:
        if self.failed is not None:
            return
        try:
            write(*args)
        except OSError as error:
            self.failed = f"recording to {self.path} stopped: {error}"
            log.error("%s; serving goes on, further frames are dropped", self.failed)

    def close(self, timeout: float = 30.0) -> None:
        """Write what is queued (up to `timeout` seconds), then the file's index; safe to call twice."""
        if not self._thread.is_alive():
            return
        self._stopping.set()
        self._thread.join(timeout)
        if self._thread.is_alive():
            log.error("the recorder could not write its queue within %.0f s; the rest is dropped", timeout)
            self._dropped_full += len(self._queue)
            self._queue.clear()
            self._thread.join(timeout)  # the item being written; the index must not be written beside it
        if self.failed is None:
            self._guarded(self._log.finish)
        else:
            try:
                self._log.finish()  # what can still be written of the index; the failure was reported
            except OSError:
                pass

    def summary(self) -> str:
        line = f"recorded:              {self.written} messages to {self.path}, {self.dropped} dropped"
        return line if self.failed is None else f"{line} ({self.failed})"
