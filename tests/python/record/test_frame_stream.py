"""The published stream's format: topics read from a frame's first bytes agree with the decoded frame."""

import pytest

from coupler._proto import coupler_pb2
from coupler.record.channels import KINDS, frame_kind
from coupler.record.frame_stream import StreamError, frame_topic, parse, parse_scene, scene_message


@pytest.mark.parametrize("value", sorted(KINDS))
def test_the_topic_of_every_message_kind_is_the_one_its_decoded_frame_names(value):
    frame = coupler_pb2.Message(messageType=value).SerializeToString() + b"\x12\x00"  # and a field after it
    assert frame_topic(True, frame) == f"/coupler/requests/{frame_kind(frame)}".encode()
    assert frame_topic(False, frame) == f"/coupler/answers/{frame_kind(frame)}".encode()


def test_a_message_that_is_not_topic_header_payload_is_refused_with_its_shape():
    with pytest.raises(StreamError, match="1 parts and 29 bytes"):
        parse([b"/coupler/answers/Sensor\0short"])


def test_a_scene_message_carries_metadata_and_attachments_back_unchanged():
    metadata = {"coupler.scene": {"scene": "arm", "time_step": "0.002"}}
    attachments = {"model.xml": ("application/xml", b"<mujoco/>")}
    assert parse_scene(scene_message(metadata, attachments)[0:]) == (metadata, attachments)
