"""Recording a published stream: a subscriber that writes what a publishing server sends into the same MCAP
file `coupler serve --record` writes (it is what `--record` runs, in a process of its own).

Losses are counted from the sequence numbers: a gap between two messages,
and what is missing at the end when the publisher's end message says how
many it sent. Frames sent before this subscriber joined are not losses;
the summary says where it joined. A subscriber joining mid-run starts its
file at the first request it receives (one there from the start, at the first message), so that no answer in the file lacks
its request (a replay needs them in pairs). A write error (a full disk) is logged
once; the rest is counted as not written and the stream is still followed,
so the summary stays true: it counts what reached the file, not what was
given to the writer.

The file is written beside its target (`RecordingTarget`) and put in its
place once recording has started: at the first frame received, or, for
`coupler serve --record`, when the server says it serves (`place_when_told`:
a line PLACE on the watched file descriptor). A recording that never starts
leaves an existing file as it was. A publisher refusing this subscriber's
handshake (CURVE keys that do not match) ends the recording at once, saying so.

For Foxglove's 3D panel the writer adds what it derives from a MuJoCo scene's model (the scene
message's MJB) and states: the geoms once, as the file starts, and every body's pose after each state
(`coupler.record.foxglove_scene`; of world 0 on a batched server), so the server publishes nothing more. Log times are the wall clock
or the simulated time (`log_time`, see `coupler.record.log_clock`).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import zmq
from google.protobuf.message import DecodeError
from zmq.utils.monitor import recv_monitor_message

from coupler._proto import coupler_record_pb2
from coupler.record.channels import ANSWERS, REQUESTS, SCENE_UPDATE_TOPIC, STATE_TOPIC, TRANSFORMS_TOPIC
from coupler.record.recorded_images import RecordedImages
from coupler.record.frame_stream import (
    END_TOPIC,
    FRAME_PREFIX,
    SCENE_TOPIC,
    StreamError,
    parse,
    parse_end,
    parse_scene,
    topic_of,
)
from coupler.record.log_clock import WALL, LogClock
from coupler.record.mcap_log import McapLog
from coupler.record.mocap_poses import MocapMismatch, mocap_poses
from coupler.record.recording_target import RecordingTarget
from coupler.record.scene_record import MODEL_BINARY
from coupler.record.subscriber_socket import DEFAULT_RCVHWM, subscriber_socket
from coupler.serve.rate_limited_log import RateLimitedLog
from coupler.transport.options import TransportOptions
from coupler.wire.errors import Error

log = logging.getLogger(__name__)

FLUSH_EVERY = 1.0  # seconds: what has arrived reaches the disk at least this often
POLL_EVERY = 0.1  # seconds between looks at the stop conditions while nothing arrives
DRAIN_AT_MOST = 1000  # messages written between looks at the stop conditions
PLACE = b"place\n"  # what the watched file descriptor says when the recording has started (place_when_told)
_HANDSHAKE_FAILED = {
    zmq.EVENT_HANDSHAKE_FAILED_AUTH: "the publisher refused this subscriber's key (is its public key in the "
                                     "publisher's --curve-allow?)",
    zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL: "the handshake failed: one side uses CURVE and the other does not, or "
                                         "they speak different protocols",
    zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL: "the handshake failed: the publisher's CURVE key is not --curve-server-key, "
                                          "or it does not use CURVE",
}


@dataclass
class StreamCounts:
    """What a stream recorder has seen so far."""

    written: int = 0  # messages given to the file (see in_file for what it holds after a failed write)
    lost: int = 0  # missing sequence numbers: dropped by the publisher for this subscriber
    not_written: int = 0  # received but not written (writing had failed, or a topic without a channel)
    in_file: int = 0  # messages the file holds for sure (in complete chunks handed to the kernel)
    first_sequence: int | None = None  # where this subscriber joined: its first request
    skipped: int = 0  # answers and states received before that first request
    bytes: int = 0  # payload bytes received
    ignored: int = 0  # messages that are not of the stream's form (none from coupler's publisher)
    ended: bool = False  # the publisher said it stopped


@dataclass(frozen=True)
class StopWhen:
    """When a stream recorder stops besides the publisher's end: after `duration` seconds, `frames` messages
    written, `stop` set, or end of file on `eof_fd` (the process that started it has gone)."""

    duration: float | None = None
    frames: int | None = None
    stop: threading.Event | None = None
    eof_fd: int | None = None


class StreamRecorder:
    """Subscribes to `address` and records to `path` (an existing file is refused unless `overwrite`);
    `run()` follows the stream until a stop condition; `log_time` is `wall` or `sim`. coupler.Error when the
    file cannot be created."""

    def __init__(self, address: str, path: str | os.PathLike[str], transport: TransportOptions | None = None,
                 rcvhwm: int = DEFAULT_RCVHWM, overwrite: bool = False, place_when_told: bool = False,
                 log_time: str = WALL) -> None:
        self.path = os.fspath(path)
        self.address = address
        self.counts = StreamCounts()
        # A publisher that is not coupler's may send any number of messages of another form: their lines are bounded.
        self._ignored_log = RateLimitedLog(log)
        self.failed: str | None = None
        self.refused: str | None = None  # why the publisher refused this subscriber, if it did
        self._scene_written = False
        self._finished = False
        self._expected: int | None = None
        self._place_when_told = place_when_told
        self._clock = LogClock(log_time)
        self._transforms: Any = None  # the scene's BodyTransforms, once a MuJoCo scene's model has arrived
        self._scene_update: Any = None  # the model whose geoms are written as the file starts
        self._said_no_pose = False
        self._images = RecordedImages()  # camera images of the answers, again as Foxglove images
        self._target = RecordingTarget(path, overwrite)
        self._log = McapLog(self._target.file)
        self._context = zmq.Context(1)
        self._socket = subscriber_socket(self._context, rcvhwm, transport)
        events = 0
        for event in _HANDSHAKE_FAILED:
            events |= event
        self._monitor = self._socket.get_monitor_socket(events)
        self._socket.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
        try:
            self._socket.connect(address)
        except zmq.ZMQError as error:
            self.close()
            raise StreamError(f"cannot subscribe to {address[:200]}: {error}") from None

    def run(self, when: StopWhen, progress: Callable[[StreamCounts, float], None] | None = None,
            progress_every: float = 1.0, receiving: Callable[[], None] | None = None) -> StreamCounts:
        """Record until the publisher's end or a condition of `when`; `progress(counts, seconds)` is called every
        `progress_every` seconds, `receiving()` once the first message has arrived. Returns the counts; the file
        is finished by `close()`."""
        poller = zmq.Poller()
        poller.register(self._socket, zmq.POLLIN)
        poller.register(self._monitor, zmq.POLLIN)
        if when.eof_fd is not None:
            poller.register(when.eof_fd, zmq.POLLIN)
        started = flushed = reported = time.monotonic()
        while not self.counts.ended and self.refused is None:
            now = time.monotonic()
            if when.duration is not None and now - started >= when.duration:
                break
            if when.frames is not None and self.counts.written >= when.frames:
                break
            if when.stop is not None and when.stop.is_set():
                break
            if now - flushed >= FLUSH_EVERY:
                flushed = now
                self._guarded(self._log.flush)
            if progress is not None and now - reported >= progress_every:
                reported = now
                progress(self.counts, now - started)
            ready = dict(poller.poll(int(POLL_EVERY * 1000)))
            if self._monitor in ready:
                self._handshake_failed()
            # Before the stream: a PLACE said while frames wait must not go unread when the end among them
            # stops the loop.
            if when.eof_fd is not None and when.eof_fd in ready:
                said = os.read(when.eof_fd, 4096)
                if PLACE in said:
                    self._place()
                if not said:
                    self._drain(when.frames, until_empty=True)  # what was sent before the publisher went
                    break
            if self._socket in ready:
                self._drain(when.frames)
                if receiving is not None:
                    receiving()
                    receiving = None
        if when.eof_fd is not None and self._place_when_told:
            # The server says PLACE before it serves, so before its end: a drain that read the end (a short run
            # sent while the scene's model was loading) leaves it unread in the pipe.
            ready = dict(poller.poll(0))
            if when.eof_fd in ready and PLACE in os.read(when.eof_fd, 4096):
                self._place()
        self.counts.in_file = self._log.in_file
        return self.counts

    def _handshake_failed(self) -> None:
        event = recv_monitor_message(self._monitor, zmq.NOBLOCK)["event"]
        reason = _HANDSHAKE_FAILED.get(event)
        if reason is not None and self.refused is None:
            self.refused = f"cannot record {self.address[:200]}: {reason}"
            self.failed = self.refused

    def _place(self) -> None:
        """Put the recording at its target: recording has started."""
        if self._target.placed or self.failed is not None:
            return
        try:
            self._target.place()
        except Error as error:
            self.failed = str(error)
            log.error("%s", self.failed)

    def _drain(self, frames: int | None, until_empty: bool = False) -> None:
        for _ in range(10**9 if until_empty else DRAIN_AT_MOST):
            if self.counts.ended or (frames is not None and self.counts.written >= frames):
                return
            try:
                parts = self._socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            try:
                self._take(parts)
            except StreamError as error:
                self.counts.ignored += 1
                self._ignored_log.warning("ignored a message from %s: %s", self.address[:200], error)

    def _take(self, parts: list[bytes]) -> None:
        topic = topic_of(parts)
        if topic == END_TOPIC:
            sent = parse_end(parts)
            if self._expected is not None and sent > self._expected:
                self.counts.lost += sent - self._expected
            self.counts.ended = True
            return
        if topic == SCENE_TOPIC:
            self._write_scene(parts)
            return
        message = parse(parts)
        if self._expected is None:
            if message.sequence > 0 and not message.topic.startswith(REQUESTS):
                self.counts.skipped += 1
                return
            self.counts.first_sequence = message.sequence
            if not self._place_when_told:
                self._place()
        elif message.sequence > self._expected:
            self.counts.lost += message.sequence - self._expected
        self._expected = message.sequence + 1
        self.counts.bytes += len(message.payload)
        if self.failed is not None:
            self.counts.not_written += 1
            return
        publish_time = message.simulated_ns if message.simulated_ns >= 0 else message.wall_ns
        log_time = self._clock.at(message.wall_ns, message.simulated_ns)
        if self._scene_update is not None:
            from coupler.record.foxglove_scene import scene_update

            self._guarded(self._log.message, SCENE_UPDATE_TOPIC, scene_update(self._scene_update, log_time),
                          log_time, log_time)
            self._scene_update = None
        if self._guarded(self._log.message, message.topic, message.payload, log_time, publish_time):
            self.counts.written += 1
        else:
            self.counts.not_written += 1
        if self._transforms is not None and message.topic == STATE_TOPIC:
            self._write_transforms(message.payload, log_time, publish_time)
        elif message.topic == ANSWERS + "Handshake":
            self._images.saw_handshake(message.payload)
        elif message.topic == ANSWERS + "Sensor":
            for image in self._images.messages(message.payload, log_time):
                self._guarded(self._log.add_channel, image.topic, *image.schema)
                self._guarded(self._log.message, image.topic, image.data, log_time,
                              publish_time if image.publish_time is None else image.publish_time)

    def _write_transforms(self, state: bytes, log_time: int, publish_time: int) -> None:
        """Every body's pose in `state`; a state that does not decode or fit the model is recorded as it came,
        without poses (said once)."""
        try:
            decoded = coupler_record_pb2.MujocoState.FromString(state)
        except DecodeError:
            decoded = None
        if decoded is not None and decoded.world:
            return  # the 3D scene is world 0's: the worlds of a batch would draw over each other
        model = self._transforms.model
        qpos = None if decoded is None else decoded.qpos
        try:
            mocap = None if decoded is None else mocap_poses(decoded, model)
        except MocapMismatch:
            qpos = None
        if qpos is None or len(qpos) != model.nq:
            if not self._said_no_pose:
                self._said_no_pose = True
                log.warning("a state from %s does not fit the scene's model: recorded without body poses",
                            self.address[:200])
            return
        poses = self._transforms.encode(qpos, log_time, mocap)
        self._guarded(self._log.message, TRANSFORMS_TOPIC, poses, log_time, publish_time)

    def _write_scene(self, parts: list[bytes]) -> None:
        if self._scene_written:
            return  # sent again for a later subscriber
        metadata, attachments = parse_scene(parts)
        wall = time.time_ns()
        for name, data in metadata.items():
            self._guarded(self._log.metadata, name, data)
        for name, (media_type, data) in attachments.items():
            self._guarded(self._log.attachment, name, media_type, data, wall)
        self._scene_written = True
        if MODEL_BINARY in attachments:
            self._load_scene(attachments[MODEL_BINARY][1])

    def _load_scene(self, binary: bytes) -> None:
        """Prepare the Foxglove channels from the scene's compiled model; a model that does not load here is
        recorded without them, saying so."""
        import mujoco

        from coupler.record.foxglove_scene import BodyTransforms

        try:
            model = mujoco.MjModel.from_binary_path(MODEL_BINARY, {MODEL_BINARY: binary})
        except ValueError as error:
            log.warning("the scene's model does not load here (%s): recorded without the 3D scene",
                        " ".join(str(error).split())[:300])
            return
        self._transforms = BodyTransforms(model)
        self._scene_update = model

    def _guarded(self, write: Callable[..., object], *args: object) -> object:
        if self.failed is not None:
            return False
        try:
            return write(*args)
        except OSError as error:
            self.failed = f"recording to {self.path} stopped: {error}"
            log.error("%s; the rest is counted, not written", self.failed)
            return False

    @property
    def placed(self) -> bool:
        """Whether the recording is at its target (recording started), rather than discarded at the end."""
        return self._target.placed

    def close(self) -> None:
        """Finish the file (its index), put it in place or (recording never started) remove it, and leave the
        stream; safe to call twice."""
        if not self._socket.closed:
            self._monitor.close()
            self._socket.close()
            self._context.term()
        if self._finished:
            return
        self._finished = True
        try:
            self._log.finish()
        except (OSError, ValueError) as error:
            if self.failed is None:
                self.failed = f"recording to {self.path} could not be finished: {error}"
                log.error("%s", self.failed)
        self.counts.in_file = self._log.in_file
        if not self._target.placed:
            self._target.discard()

    def summary(self) -> str:
        c = self.counts
        if not self._target.placed:
            why = self.failed or f"received no frame from {self.address[:200]}"
            return f"recorded:              nothing ({why}); '{self.path}' left as it was"
        if self.failed is not None:
            return (f"recorded:              {c.in_file} messages in {self.path} before writing failed, "
                    f"{c.written + c.not_written - c.in_file} received after them not in it, {c.lost} dropped "
                    f"({self.failed})")
        line = f"recorded:              {c.written} messages to {self.path}, {c.lost + c.not_written} dropped"
        if c.first_sequence:
            line += f" (joined at message {c.first_sequence}; {c.skipped} before the first request not kept)"
        if c.ignored:
            line += f", {c.ignored} not of the stream's form ignored"
        return line
