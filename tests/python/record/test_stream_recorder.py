"""The stream recorder counts what it lost from the sequence numbers, survives a failing disk, and ignores messages not
of its stream's form."""

import logging
import threading
import time
from collections.abc import Callable

import zmq

from coupler._proto import coupler_pb2
from coupler.record.frame_stream import END, END_TOPIC, HEADER
from coupler.record.recording import Recording
from coupler.record.stream_recorder import StopWhen, StreamRecorder

CONTROL_TOPIC = b"/coupler/requests/Control"
CONTROL = coupler_pb2.ControlMessage(messageType=coupler_pb2.ControlMessageType).SerializeToString()


def _frame(topic: bytes, sequence: int, payload: bytes) -> bytes:
    """A message of the published stream: topic, NUL, header, payload."""
    return topic + b"\0" + HEADER.pack(sequence, sequence, time.time_ns(), -1) + payload


def _recorded(tmp_path, messages: list[list[bytes]], sent: int,
              prepare: Callable[[StreamRecorder], None] | None = None) -> StreamRecorder:
    """Publish `messages` (each a list of parts), then an end saying `sent`; record them, after `prepare(recorder)`."""
    context = zmq.Context()
    publisher = context.socket(zmq.XPUB)
    publisher.linger = 0
    endpoint = f"ipc://{tmp_path}/stream"
    publisher.bind(endpoint)
    recorder = StreamRecorder(endpoint, tmp_path / "run.mcap")
    if prepare is not None:
        prepare(recorder)
    follower = threading.Thread(target=recorder.run, args=(StopWhen(duration=20.0),))
    try:
        assert publisher.poll(10_000)  # its subscription
        follower.start()
        for parts in messages:
            publisher.send_multipart(parts)
        while follower.is_alive():
            publisher.send(END_TOPIC + b"\0" + END.pack(sent))
            follower.join(0.1)
    finally:
        recorder.close()
        publisher.close()
        context.term()
    return recorder


def _record_sequences(tmp_path, sequences: list[int], sent: int, fail_writes: bool = False) -> StreamRecorder:
    """Publish Controls numbered `sequences`, then an end saying `sent`; record them."""
    def full_disk(recorder: StreamRecorder) -> None:
        def refuse(*args):
            raise OSError(28, "No space left on device")
        recorder._log.message = refuse  # the disk fills up after the file was opened

    return _recorded(tmp_path, [[_frame(CONTROL_TOPIC, s, CONTROL)] for s in sequences], sent,
                     full_disk if fail_writes else None)


def test_gaps_in_the_sequence_and_what_the_end_says_was_sent_are_counted_as_lost(tmp_path):
    recorder = _record_sequences(tmp_path, [0, 1, 2, 5, 6], sent=10)
    assert recorder.counts.written == 5
    assert recorder.counts.lost == 2 + 3  # 3 and 4, then 7, 8 and 9
    assert recorder.summary().endswith(", 5 dropped")
    assert len(list(Recording(tmp_path / "run.mcap"))) == 5


def test_a_write_error_is_reported_once_and_the_rest_counted_as_not_written(tmp_path, caplog):
    with caplog.at_level(logging.ERROR, logger="coupler.record.stream_recorder"):
        recorder = _record_sequences(tmp_path, list(range(50)), sent=50, fail_writes=True)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "No space left on device" in errors[0].getMessage()
    assert recorder.counts.not_written == 50 and recorder.counts.lost == 0
    assert "No space left on device" in recorder.summary()


def test_a_state_that_does_not_fit_the_scene_is_recorded_as_it_came_without_body_poses(tmp_path, caplog):
    import mujoco
    import numpy as np

    from coupler._proto import coupler_record_pb2
    from coupler.record.frame_stream import _PART_LENGTH, SCENE_TOPIC, scene_message
    from coupler.record.scene_record import MODEL_BINARY

    model = mujoco.MjModel.from_xml_string(
        '<mujoco><worldbody><body name="b"><joint type="hinge"/><geom size="0.1"/></body></worldbody></mujoco>')
    binary = np.empty(mujoco.mj_sizeModel(model), dtype=np.uint8)
    mujoco.mj_saveModel(model, None, binary)
    parts = scene_message({}, {MODEL_BINARY: ("application/x-mujoco-mjb", binary.tobytes())})[1:]
    scene = SCENE_TOPIC + b"\0" + b"".join(_PART_LENGTH.pack(len(part)) + part for part in parts)
    wrong_size = coupler_record_pb2.MujocoState(time=0.1, step=1, qpos=[0.0, 1.0]).SerializeToString()
    messages = [(CONTROL_TOPIC, CONTROL), (b"/coupler/mujoco_state", b"\xff\xff not protobuf"),
                (b"/coupler/mujoco_state", wrong_size)]
    frames = [[scene]] + [[_frame(topic, sequence, payload)] for sequence, (topic, payload) in enumerate(messages)]
    with caplog.at_level(logging.WARNING, logger="coupler.record.stream_recorder"):
        recorder = _recorded(tmp_path, frames, len(messages))
    endpoint = recorder.address
    assert recorder.counts.written == 3 and recorder.failed is None
    topics = [m.topic for m in Recording(tmp_path / "run.mcap")]
    assert "/coupler/foxglove/transforms" not in topics and topics.count("/coupler/mujoco_state") == 2
    assert [r.getMessage() for r in caplog.records].count(
        f"a state from {endpoint} does not fit the scene's model: recorded without body poses") == 1


def test_messages_not_of_the_streams_form_are_ignored_counted_and_warned_of_at_a_bounded_rate(tmp_path, caplog):
    from coupler.serve.rate_limited_log import DEFAULT_BURST

    garbage = 10 * DEFAULT_BURST
    two_parts = [CONTROL_TOPIC, b"two parts"]  # a topic and a frame, not one part
    frames = [[_frame(CONTROL_TOPIC, 0, CONTROL)]] + garbage * [two_parts] + [[_frame(CONTROL_TOPIC, 1, CONTROL)]]
    with caplog.at_level(logging.WARNING, logger="coupler.record.stream_recorder"):
        recorder = _recorded(tmp_path, frames, 2)
    endpoint = recorder.address
    assert recorder.counts.written == 2 and recorder.counts.lost == 0
    assert recorder.counts.ignored == garbage
    assert recorder.summary().endswith(f", {garbage} not of the stream's form ignored")
    ignored = [r.getMessage() for r in caplog.records if r.getMessage().startswith("ignored a message")]
    assert 1 <= len(ignored) <= DEFAULT_BURST
    assert ignored[0] == (f"ignored a message from {endpoint}: a message of 2 parts and {len(CONTROL_TOPIC)} bytes, "
                          f"not one part of topic, NUL, {HEADER.size}-byte header and payload")
    assert len(list(Recording(tmp_path / "run.mcap"))) == 2
