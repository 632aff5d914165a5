"""A subscriber of a server's published frames, as the tests that compare published streams read them."""

from __future__ import annotations

import time

import zmq

from coupler.record.channels import ANSWERS, REQUESTS, STATE_TOPIC, frame_kind
from coupler.record.frame_stream import END_TOPIC, FRAME_PREFIX, SCENE_TOPIC, parse, topic_of


def follow(endpoint: str) -> tuple[zmq.Socket, list[list[bytes]]]:
    """A socket subscribed to the frames published at `endpoint`, and the list `until_end` fills."""
    socket = zmq.Context.instance().socket(zmq.SUB)
    socket.linger = 0
    socket.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
    socket.connect(endpoint)
    return socket, []


def until_end(socket: zmq.Socket, received: list[list[bytes]], timeout: float = 30.0) -> None:
    """Append every message to `received` until the end message; AssertionError when none comes in `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if socket.poll(100):
            parts = socket.recv_multipart()
            if topic_of(parts) == END_TOPIC:
                return
            received.append(parts)
    raise AssertionError("no end message")


def compared(received: list[list[bytes]]) -> list[tuple]:
    """The frame messages, the scene aside, as (topic, sequence, topic sequence, simulated ns, payload): every
    header field but the wall clock."""
    streamed = [parse(parts) for parts in received if topic_of(parts) != SCENE_TOPIC]
    return [(s.topic, s.sequence, s.topic_sequence, s.simulated_ns, s.payload) for s in streamed]


def assert_streams_exchanges(stream: list[tuple], exchanged: list[tuple[bytes, bytes]]) -> None:
    """`stream` (as `compared` gives it) publishes each exchange in turn, its request then its answer, as they went
    (the states stepped to aside), every message numbered in turn."""
    messages = [(topic, payload) for topic, _, _, _, payload in stream if topic != STATE_TOPIC]
    assert messages == [message for request, answer in exchanged
                        for message in ((REQUESTS + frame_kind(request), request), (ANSWERS + frame_kind(answer), answer))]
    assert [message[1] for message in stream] == list(range(stream[0][1], stream[0][1] + len(stream)))
