"""MCAP files no coupler writer makes: cut short, with messages on undeclared channels or of the wrong kind,
with models that do not load, with chunks that inflate far beyond their size; for the readers' tests."""

from __future__ import annotations

from pathlib import Path

import zstandard
from mcap.data_stream import RecordBuilder
from mcap.records import Channel, Chunk, DataEnd, Footer, Header, Message, Schema
from mcap.writer import CompressionType, Writer

MAGIC = b"\x89MCAP0\r\n"


def records_file(path: Path, *records: object) -> Path:
    """A file of exactly these records between MCAP's magic, with no index."""
    builder = RecordBuilder()
    for record in (Header(profile="protobuf", library="test"), *records, DataEnd(data_section_crc=0),
                   Footer(summary_start=0, summary_offset_start=0, summary_crc=0)):
        record.write(builder)  # type: ignore[attr-defined]
    path.write_bytes(MAGIC + builder.end() + MAGIC)
    return path


def messages_file(path: Path, messages: list[tuple[str, bytes]], attachments: dict[str, bytes] | None = None,
                  channel_ids: dict[str, int] | None = None,
                  metadata: dict[str, dict[str, str]] | None = None,
                  compression: CompressionType = CompressionType.ZSTD) -> Path:
    """A file with a channel per topic and these (topic, payload) messages in order, its chunks compressed with
    `compression`; `channel_ids` names the channel a topic's messages claim (one never declared, for a hostile
    file)."""
    with open(path, "wb") as stream:
        writer = Writer(stream, compression=compression)
        writer.start(profile="protobuf", library="test")
        for name, values in (metadata or {}).items():
            writer.add_metadata(name, values)
        for name, data in (attachments or {}).items():
            writer.add_attachment(create_time=0, log_time=0, name=name, media_type="application/octet-stream",
                                  data=data)
        schema = writer.register_schema(name="x", encoding="protobuf", data=b"")
        ids: dict[str, int] = {}
        for topic, _ in messages:
            if topic not in ids:
                ids[topic] = writer.register_channel(topic=topic, message_encoding="protobuf", schema_id=schema)
        ids.update(channel_ids or {})
        for i, (topic, data) in enumerate(messages):
            writer.add_message(channel_id=ids[topic], log_time=i, data=data, publish_time=i, sequence=i)
        writer.finish()
    return path


def inflating_file(path: Path, inflated: int, declared: int) -> Path:
    """A file of a few KB whose one zstd chunk inflates to `inflated` zero bytes and declares `declared`."""
    compressor = zstandard.ZstdCompressor(level=1).compressobj()
    block = bytes(1 << 20)
    data = b"".join(compressor.compress(block) for _ in range(inflated >> 20)) + compressor.flush()
    channel = Channel(id=1, schema_id=1, topic="/coupler/mujoco_state", message_encoding="protobuf", metadata={})
    chunk = Chunk(compression="zstd", data=data, message_start_time=0, message_end_time=0, uncompressed_crc=0,
                  uncompressed_size=declared)
    return records_file(path, Schema(id=1, name="x", encoding="protobuf", data=b""), channel, chunk)


def message_record(channel_id: int, data: bytes) -> Message:
    return Message(channel_id=channel_id, log_time=0, data=data, publish_time=0, sequence=0)
