"""Writing a coupler recording: protocol frames and MuJoCo states, by channel, into one MCAP file.

Chunked (so a server killed mid-run leaves every complete chunk readable),
zstd-compressed, protobuf profile with each channel's schema embedded.
"""

from __future__ import annotations

import os
from typing import IO

from importlib.metadata import PackageNotFoundError, version

from google.protobuf.descriptor import FileDescriptor
from mcap.writer import CompressionType, Writer

from coupler.record.channels import all_channels, descriptor_set

# Small enough that little is lost when the process dies, large enough to compress well.
CHUNK_BYTES = 256 * 1024


def _library() -> str:
    try:
        return f"coupler {version('coupler')}"
    except PackageNotFoundError:
        return "coupler"


class McapLog:
    """An MCAP file being written (a path, or a file opened for writing that it then owns); `finish()` writes
    its index. `messages` counts the messages given, `in_file` those handed to the kernel in complete chunks:
    what the file holds if writing fails now. Not thread-safe: one writer."""

    def __init__(self, target: str | os.PathLike[str] | IO[bytes], chunk_bytes: int = CHUNK_BYTES) -> None:
        # A chunk larger than the file's buffer goes straight to the kernel; flush() hands over the rest.
        self._file: IO[bytes] = open(target, "wb") if isinstance(target, (str, os.PathLike)) else target
        self._writer = Writer(self._file, chunk_size=chunk_bytes, compression=CompressionType.ZSTD)
        self._writer.start(profile="protobuf", library=_library())
        self._channels: dict[str, int] = {}
        self._schemas: dict[str, int] = {}
        for channel in all_channels():
            self.add_channel(channel.topic, channel.schema_name, channel.file)
        self._sequence = 0
        self.messages = 0
        self.in_file = 0

    def add_channel(self, topic: str, schema_name: str, file: FileDescriptor) -> None:
        """A channel of protobuf messages `schema_name` (defined in `file`) on `topic`, unless it has one."""
        if topic in self._channels:
            return
        if schema_name not in self._schemas:
            self._schemas[schema_name] = self._writer.register_schema(
                name=schema_name, encoding="protobuf", data=descriptor_set(file))
        self._channels[topic] = self._writer.register_channel(
            topic=topic, message_encoding="protobuf", schema_id=self._schemas[schema_name])

    def metadata(self, name: str, data: dict[str, str]) -> None:
        self._writer.add_metadata(name, data)

    def attachment(self, name: str, media_type: str, data: bytes, wall_ns: int) -> None:
        self._writer.add_attachment(create_time=wall_ns, log_time=wall_ns, name=name,
                                    media_type=media_type, data=data)

    def message(self, topic: str, data: bytes, log_time: int, publish_time: int) -> bool:
        """A message on the channel `topic`, times in nanoseconds; False (nothing written) for an unknown topic."""
        channel = self._channels.get(topic)
        if channel is None:
            return False
        position = self._file.tell()
        self._writer.add_message(channel_id=channel, log_time=log_time, data=data, publish_time=publish_time,
                                 sequence=self._sequence)
        self._sequence += 1
        self.messages += 1
        if self._file.tell() != position:  # this message completed a chunk: hand it over, so a failure shows now
            self._file.flush()
            self.in_file = self.messages
        return True

    def flush(self) -> None:
        """End the open chunk and hand it to the file, so it survives the process."""
        self._writer.flush()
        self._file.flush()
        self.in_file = self.messages

    def finish(self) -> None:
        """Write the summary and index and close the file."""
        try:
            self._writer.finish()
            self._file.flush()
            self.in_file = self.messages
        finally:
            self._file.close()
