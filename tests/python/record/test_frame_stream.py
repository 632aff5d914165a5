"""The published stream's format: each frame on its kind's topic, and the messages that frame it."""

import pytest

from coupler.record.frame_stream import StreamError, frame_topic, parse, parse_scene, scene_message
from coupler.wire.codec import encode
from coupler.wire.messages import MESSAGE_TYPES


@pytest.mark.parametrize("kind", MESSAGE_TYPES, ids=lambda kind: kind.__name__)
def test_a_frame_goes_on_the_topic_of_its_kind_among_requests_or_answers(kind):
    name = kind.__name__.removesuffix("Message")
    assert frame_topic(True, encode(kind())) == f"/coupler/requests/{name}".encode()
    assert frame_topic(False, encode(kind())) == f"/coupler/answers/{name}".encode()


def test_a_frame_of_no_known_kind_goes_on_the_unknown_topic():
    assert frame_topic(False, b"\x08\x09") == b"/coupler/answers/Unknown"


def test_a_message_that_is_not_topic_header_payload_is_refused_with_its_shape():
    with pytest.raises(StreamError, match="1 parts and 29 bytes"):
        parse([b"/coupler/answers/Sensor\0short"])


def test_a_scene_message_carries_metadata_and_attachments_back_unchanged():
    metadata = {"coupler.scene": {"scene": "arm", "time_step": "0.002"}}
    attachments = {"model.xml": ("application/xml", b"<mujoco/>")}
    assert parse_scene(scene_message(metadata, attachments)[0:]) == (metadata, attachments)
