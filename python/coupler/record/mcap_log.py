"""Writing a coupler recording: protocol frames and MuJoCo states into one MCAP file.

Chunked (so a server killed mid-run leaves every complete chunk readable),
zstd-compressed, protobuf profile with each channel's schema embedded.
"""

from __future__ import annotations

import os
from typing import IO

from importlib.metadata import PackageNotFoundError, version

from mcap.writer import CompressionType, Writer

from coupler.record.channels import ANSWERS, REQUESTS, STATE_TOPIC, all_channels, descriptor_set, frame_kind

# Small enough that little is lost when the process dies, large enough to compress well.
CHUNK_BYTES = 256 * 1024


def _library() -> str:
    try:
        return f"coupler {version('coupler')}"
    except PackageNotFoundError:
        return "coupler"


def _nanoseconds(seconds: float) -> int:
    return max(0, int(round(seconds * 1e9)))


class McapLog:
    """An MCAP file being written; `finish()` writes its index. Not thread-safe: one writer thread."""

    def __init__(self, path: str | os.PathLike[str], chunk_bytes: int = CHUNK_BYTES) -> None:
        # A chunk larger than the file's buffer goes straight to the kernel; flush() hands over the rest.
        self._file: IO[bytes] = open(path, "wb")
        self._writer = Writer(self._file, chunk_size=chunk_bytes, compression=CompressionType.ZSTD)
        self._writer.start(profile="protobuf", library=_library())
        self._channels: dict[str, int] = {}
        schemas: dict[str, int] = {}
        for channel in all_channels():
            if channel.schema_name not in schemas:
                schemas[channel.schema_name] = self._writer.register_schema(
                    name=channel.schema_name, encoding="protobuf", data=descriptor_set(channel.file))
            self._channels[channel.topic] = self._writer.register_channel(
                topic=channel.topic, message_encoding="protobuf", schema_id=schemas[channel.schema_name])
        self._sequence = 0
        self.messages = 0

    def metadata(self, name: str, data: dict[str, str]) -> None:
        self._writer.add_metadata(name, data)

    def attachment(self, name: str, media_type: str, data: bytes, wall: float) -> None:
        self._writer.add_attachment(create_time=_nanoseconds(wall), log_time=_nanoseconds(wall), name=name,
                                    media_type=media_type, data=data)

    def frame(self, request: bool, frame: bytes, wall: float, simulated_time: float | None) -> None:
        """A protocol frame, on the channel of its kind and direction; `simulated_time` becomes the publish time."""
        topic = (REQUESTS if request else ANSWERS) + frame_kind(frame)
        channel = self._channels.get(topic)
        if channel is None:  # a kind this direction never carries (the server answered something odd)
            channel = self._channels[ANSWERS + "Error"] if not request else self._channels[REQUESTS + "Error"]
        self._add(channel, frame, wall, simulated_time)

    def state(self, data: bytes, wall: float, simulated_time: float) -> None:
        """A serialized coupler.record.v1.MujocoState."""
        self._add(self._channels[STATE_TOPIC], data, wall, simulated_time)

    def _add(self, channel: int, data: bytes, wall: float, simulated_time: float | None) -> None:
        log_time = _nanoseconds(wall)
        publish_time = log_time if simulated_time is None else _nanoseconds(simulated_time)
        self._writer.add_message(channel_id=channel, log_time=log_time, data=data, publish_time=publish_time,
                                 sequence=self._sequence)
        self._sequence += 1
        self.messages += 1

    def flush(self) -> None:
        """End the open chunk and hand it to the file, so it survives the process."""
        self._writer.flush()

    def finish(self) -> None:
        """Write the summary and index and close the file."""
        try:
            self._writer.finish()
        finally:
            self._file.close()
