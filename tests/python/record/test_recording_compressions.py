"""A recording is read whatever compression its writer chose for its chunks (coupler writes zstd; other MCAP
writers lz4, or none): the same messages in the same order. A compression coupler does not know is refused in
one line naming it."""

from __future__ import annotations

import pytest
from mcap.records import Channel, Chunk, Schema
from mcap.writer import CompressionType

from coupler.record.recording import Recording, RecordingError
from coupler.wire.codec import encode
from coupler.wire.messages import ControlMessage, ObjectControl, ObjectSensors, SensorMessage
from hostile_recordings import messages_file, records_file

MESSAGES = [
    ("/coupler/requests/Control", encode(ControlMessage(objects={"arm": ObjectControl(values=[0.1, 0.2])}))),
    ("/coupler/answers/Sensor", encode(SensorMessage(objects={"arm": ObjectSensors(angles=[0.5])},
                                                     simulated_time=0.01))),
] * 50


@pytest.mark.parametrize("compression", [CompressionType.ZSTD, CompressionType.LZ4, CompressionType.NONE])
def test_a_recording_is_read_whatever_its_chunks_compression(tmp_path, compression):
    path = messages_file(tmp_path / "run.mcap", MESSAGES, compression=compression)
    recording = Recording(path)
    assert [(m.topic, m.data) for m in recording] == MESSAGES
    assert not recording.truncated


def _chunk_file(path, compression: str, data: bytes):
    """A file whose one chunk says it is compressed with `compression` and holds `data`."""
    channel = Channel(id=1, schema_id=1, topic="/coupler/mujoco_state", message_encoding="protobuf", metadata={})
    chunk = Chunk(compression=compression, data=data, message_start_time=0, message_end_time=0, uncompressed_crc=0,
                  uncompressed_size=100)
    return records_file(path, Schema(id=1, name="x", encoding="protobuf", data=b""), channel, chunk)


def test_a_compression_coupler_does_not_know_is_refused_naming_it(tmp_path):
    path = _chunk_file(tmp_path / "brotli.mcap", "brotli", bytes(8))
    with pytest.raises(RecordingError, match=r"^the chunk at byte \d+ is compressed with 'brotli', which coupler "
                                             "does not write$"):
        list(Recording(path))


def test_an_lz4_chunk_that_does_not_decompress_is_refused_in_one_line(tmp_path):
    path = _chunk_file(tmp_path / "bad.mcap", "lz4", b"not lz4 at all")
    with pytest.raises(RecordingError, match=r"^the chunk at byte \d+ does not decompress: [^\n]+$"):
        list(Recording(path))
