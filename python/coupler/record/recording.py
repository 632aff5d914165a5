"""Reading a coupler recording back, including one whose writer was killed and one that is damaged or hostile.

A file is read from the start, record by record, in the order things
happened. A file cut short (its writer was killed, or it was copied in part)
is read up to its last complete record, and `ended_early` says at which
byte it ended. What no writer of coupler produces stops reading with a
`RecordingError` naming the problem: a message on a channel never declared,
a chunk that inflates beyond its declared size or beyond `MAX_CHUNK_BYTES`,
a compression coupler does not write. Reads never allocate more than the
file holds, or a chunk more than its cap, whatever the file's lengths say.
"""

from __future__ import annotations

import io
import logging
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from mcap.exceptions import InvalidMagic, McapError
from mcap.records import Attachment, Channel, Chunk, Message, Metadata
from mcap.stream_reader import StreamReader, breakup_chunk

from coupler.record.channels import ANSWERS, REQUESTS, STATE_TOPIC
from coupler.wire.errors import Error

log = logging.getLogger(__name__)

# coupler writes chunks of 256 KiB, larger only by one large message (a frame is at most a few MiB): a chunk
# inflating beyond this is not one of its recordings, and reading it would only take memory.
MAX_CHUNK_BYTES = 64 * 1024 * 1024
# An attachment (the model and its assets) or a chunk as stored; beyond it a length field is damage.
MAX_RECORD_BYTES = 512 * 1024 * 1024
# What a file cut at any byte raises while a record is read: a short read (EndOfFile, or struct's unpack of
# too few bytes), a length running past the end, text cut inside a character.
_CUT = (McapError, struct.error, ValueError, EOFError, IndexError, OverflowError)


class RecordingError(Error):
    """A recording that is not what coupler writes (damaged in the middle, or made to do harm)."""


@dataclass(frozen=True)
class Recorded:
    """One recorded message, in the order it was written."""

    topic: str
    data: bytes
    log_time: int  # ns since the epoch, wall clock
    publish_time: int  # ns of simulated time where it applies, else the log time

    @property
    def request(self) -> bool:
        return self.topic.startswith(REQUESTS)

    @property
    def answer(self) -> bool:
        return self.topic.startswith(ANSWERS)

    @property
    def state(self) -> bool:
        return self.topic == STATE_TOPIC

    @property
    def kind(self) -> str:
        """HandshakeInit, Control, Sensor, ... (or mujoco_state)."""
        return self.topic.rsplit("/", 1)[-1]


class _Bounded:
    """A file whose reads never ask for more than is left in it: a length field of 2**60 in a damaged file
    makes a short read (which the reader reports as the file's end), never a 2**60-byte buffer."""

    def __init__(self, file: BinaryIO) -> None:
        self._file = file
        self.size = os.fstat(file.fileno()).st_size
        self.short = False  # a read got less than it asked for: the record it was reading is cut

    def tell(self) -> int:
        return self._file.tell()

    def read(self, size: int = -1) -> bytes:
        left = max(0, self.size - self._file.tell())
        if size is not None and size > left:
            self.short = True
        return self._file.read(left if size is None or size < 0 else min(size, left))


def _inflated(chunk: Chunk, offset: int) -> bytes:
    """The records of a chunk, decompressed at most to its declared size (and never beyond MAX_CHUNK_BYTES)."""
    declared = chunk.uncompressed_size
    if declared > MAX_CHUNK_BYTES:
        raise RecordingError(f"a chunk at byte {offset} declares {declared} bytes, more than the "
                             f"{MAX_CHUNK_BYTES} a coupler recording's chunk holds")
    if chunk.compression == "":
        data = bytes(chunk.data)
    elif chunk.compression == "zstd":
        import zstandard

        try:
            with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(chunk.data)) as reader:
                data = reader.read(declared + 1)
        except zstandard.ZstdError as error:
            raise RecordingError(f"the chunk at byte {offset} does not decompress: {error}") from None
    elif chunk.compression == "lz4":
        import lz4.frame

        try:
            data = lz4.frame.LZ4FrameDecompressor().decompress(chunk.data, max_length=declared + 1)
        except RuntimeError as error:
            raise RecordingError(f"the chunk at byte {offset} does not decompress: {error}") from None
    else:
        raise RecordingError(f"the chunk at byte {offset} is compressed with '{chunk.compression[:40]}', "
                             "which coupler does not write")
    if len(data) != declared:
        raise RecordingError(f"the chunk at byte {offset} inflates to {'more' if len(data) > declared else 'less'} "
                             f"than the {declared} bytes it declares")
    return data


class Recording:
    """A recording file: its messages in the order written, its metadata and attachments.

    After iterating, `ended_early` says where a file cut short ended (None for a
    complete file) and `truncated` whether it did; everything before that point
    was read. RecordingError (a coupler.Error) for a file that is damaged in the middle.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.ended_early: str | None = None
        self.metadata: dict[str, dict[str, str]] = {}
        self.attachments: dict[str, bytes] = {}

    @property
    def truncated(self) -> bool:
        return self.ended_early is not None

    def __iter__(self) -> Iterator[Recorded]:
        self.ended_early = None
        try:
            file = open(self.path, "rb")
        except OSError as error:
            raise RecordingError(f"cannot read '{self.path}': {error.strerror or error}") from None
        with file:
            bounded = _Bounded(file)
            size = bounded.size
            channels: dict[int, str] = {}
            reader = StreamReader(bounded, emit_chunks=True, record_size_limit=MAX_RECORD_BYTES)  # type: ignore[arg-type]
            complete = 0  # the byte after the last complete record
            try:
                for record in reader.records:
                    if bounded.short:
                        raise EOFError("the file ends inside this record")
                    if isinstance(record, Chunk):
                        inner = breakup_chunk(Chunk(compression="", data=_inflated(record, complete),
                                                    message_start_time=0, message_end_time=0, uncompressed_crc=0,
                                                    uncompressed_size=record.uncompressed_size))
                    else:
                        inner = [record]
                    for item in inner:
                        yield from self._take(item, channels, complete)
                    complete = bounded.tell()
            except _CUT as error:
                if isinstance(error, InvalidMagic) and complete == 0:
                    raise RecordingError(f"'{self.path}' is not an MCAP file: it does not start as one") from None
                self.ended_early = f"ends inside a record at byte {complete} of {size}: read up to there"
                log.info("%s %s (%s)", self.path, self.ended_early, error)

    def _take(self, record: object, channels: dict[int, str], offset: int) -> Iterator[Recorded]:
        if isinstance(record, Metadata):
            self.metadata[record.name] = dict(record.metadata)
        elif isinstance(record, Attachment):
            self.attachments[record.name] = bytes(record.data)
        elif isinstance(record, Channel):
            channels[record.id] = record.topic
        elif isinstance(record, Message):
            topic = channels.get(record.channel_id)
            if topic is None:
                raise RecordingError(f"'{self.path}' has a message on channel {record.channel_id} near byte "
                                     f"{offset}, a channel it never declared")
            yield Recorded(topic, bytes(record.data), record.log_time, record.publish_time)

    def read_headers(self) -> None:
        """Fill `metadata` and `attachments` (they come first in a coupler recording)."""
        for _ in self:
            pass
