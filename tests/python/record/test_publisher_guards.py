"""The publisher guards itself against its peers as the serving socket does: a peer may only subscribe, to
short topics, a bounded number of topics and connections is held, stalled handshakes are dropped, and a
new connection alone gets the scene."""

from __future__ import annotations

import os
import socket
import stat
import time
from pathlib import Path

import pytest
import zmq
from zmq.utils.monitor import recv_monitor_message

from coupler.record.frame_stream import FRAME_PREFIX, SCENE_TOPIC, topic_of
from coupler.record.publisher import FramePublisher
from coupler.transport.options import TransportOptions
from coupler.wire.errors import Error

SCENE = ({"coupler.scene": {"scene": "test"}}, {"model.xml": ("application/xml", b"<mujoco/>" * 1000)})
CONTROL_TOPIC = b"/coupler/requests/Control"
BOUND = 3.0  # seconds within which the publisher acts on a peer, with room for a loaded machine


@pytest.fixture
def context():
    context = zmq.Context()
    yield context
    context.destroy(linger=0)


def _wait_for_event(monitor: zmq.Socket, event: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if monitor.poll(50) and recv_monitor_message(monitor)["event"] == event:
            return True
    return False


def _connected_peer(context: zmq.Context, kind: int, endpoint: str) -> tuple[zmq.Socket, zmq.Socket]:
    """A socket of `kind` connected to `endpoint` (handshake done), and its monitor."""
    peer = context.socket(kind)
    peer.linger = 0
    peer.reconnect_ivl = 60_000  # a connection the publisher closes stays closed for the test
    monitor = peer.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_DISCONNECTED)
    peer.connect(endpoint)
    assert _wait_for_event(monitor, zmq.EVENT_HANDSHAKE_SUCCEEDED, BOUND)
    return peer, monitor


def _publish(publisher: FramePublisher, count: int) -> None:
    for _ in range(count):
        publisher.native.publish(CONTROL_TOPIC, b"frame", time.time())


def _frames_received(subscriber: zmq.Socket, timeout: float) -> list[bytes]:
    received = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and subscriber.poll(100):
        received.append(topic_of(subscriber.recv_multipart()))
    return received


def test_a_peer_sending_more_than_a_subscription_can_hold_is_disconnected(context, tmp_path):
    publisher = FramePublisher(*SCENE)
    try:
        peer, monitor = _connected_peer(context, zmq.XSUB, publisher.bind(f"ipc://{tmp_path}/pub"))
        peer.send(b"x" * 64 * 1024)
        assert _wait_for_event(monitor, zmq.EVENT_DISCONNECTED, BOUND)
    finally:
        publisher.close()


def test_messages_that_are_not_subscriptions_are_read_and_dropped_while_no_frames_flow(context, tmp_path):
    publisher = FramePublisher(*SCENE)
    try:
        peer, _ = _connected_peer(context, zmq.XSUB, publisher.bind(f"ipc://{tmp_path}/pub"))
        # All rounds together pass the peer's queue (1,000): the publisher alone empties it.
        for round_ in range(1, 4):
            for _ in range(400):
                peer.send(b"not a subscription")
            deadline = time.monotonic() + BOUND
            while publisher.native.refused < 400 * round_ and time.monotonic() < deadline:
                time.sleep(0.02)
            assert publisher.native.refused == 400 * round_
    finally:
        publisher.close()


def test_subscriptions_beyond_the_topic_limit_close_the_newest_connection_and_the_others_keep_receiving(
        context, tmp_path):
    publisher = FramePublisher(*SCENE, max_topics=16)
    try:
        endpoint = publisher.bind(f"ipc://{tmp_path}/pub")
        subscriber, subscriber_monitor = _connected_peer(context, zmq.SUB, endpoint)
        subscriber.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
        assert publisher.wait_for_subscribers(1, BOUND)
        flooder, flooder_monitor = _connected_peer(context, zmq.XSUB, endpoint)
        for n in range(100):
            flooder.send(b"\x01/topic/%d" % n)
        assert _wait_for_event(flooder_monitor, zmq.EVENT_DISCONNECTED, BOUND)
        _publish(publisher, 10)
        received = _frames_received(subscriber, 1.0)
        assert received.count(CONTROL_TOPIC) == 10
        assert not _wait_for_event(subscriber_monitor, zmq.EVENT_DISCONNECTED, 0.1)
    finally:
        publisher.close()


def test_connections_beyond_the_cap_are_closed_and_the_first_ones_keep_receiving(context):
    cap = 10
    publisher = FramePublisher(*SCENE, max_connections=cap)
    try:
        endpoint = publisher.bind("tcp://127.0.0.1:*")
        first = []
        for _ in range(cap):
            subscriber, _ = _connected_peer(context, zmq.SUB, endpoint)
            subscriber.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
            first.append(subscriber)
        assert publisher.wait_for_subscribers(cap, BOUND)
        later = []
        for _ in range(3 * cap):
            subscriber = context.socket(zmq.SUB)
            subscriber.linger = 0
            subscriber.reconnect_ivl = 60_000
            subscriber.connect(endpoint)
            later.append(subscriber)
        deadline = time.monotonic() + BOUND
        while publisher.native.refused < 3 * cap and time.monotonic() < deadline:
            time.sleep(0.02)
        assert publisher.native.refused >= 3 * cap
        assert publisher.native.connections == cap
        _publish(publisher, 5)
        for subscriber in first:
            assert _frames_received(subscriber, 0.5).count(CONTROL_TOPIC) == 5
    finally:
        publisher.close()


def test_a_connection_stalled_in_its_handshake_is_dropped(tmp_path):
    publisher = FramePublisher(*SCENE)
    try:
        endpoint = publisher.bind("tcp://127.0.0.1:*", transport=TransportOptions(handshake_timeout=0.2))
        host, port = endpoint.removeprefix("tcp://").rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=BOUND) as stalled:
            stalled.sendall(b"\xff" + b"\x00" * 8 + b"\x7f")  # the start of a greeting, then nothing
            stalled.settimeout(BOUND)
            try:
                while stalled.recv(4096):
                    pass  # the publisher's own greeting
            except ConnectionResetError:
                pass
    finally:
        publisher.close()


def test_each_new_connection_alone_gets_the_scene(context, tmp_path):
    publisher = FramePublisher(*SCENE)
    try:
        endpoint = publisher.bind(f"ipc://{tmp_path}/pub")
        first, _ = _connected_peer(context, zmq.SUB, endpoint)
        first.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
        assert publisher.wait_for_subscribers(1, BOUND)
        assert _frames_received(first, 0.5) == [SCENE_TOPIC]
        for round_ in range(5):  # re-subscribing, on the same connection and on new ones
            first.setsockopt(zmq.UNSUBSCRIBE, FRAME_PREFIX)
            first.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
            newcomer, _ = _connected_peer(context, zmq.SUB, endpoint)
            newcomer.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
            assert publisher.wait_for_subscribers(2 * round_ + 3, BOUND)
            assert _frames_received(newcomer, 0.5) == [SCENE_TOPIC]
            newcomer.close()
        _publish(publisher, 3)
        assert _frames_received(first, 0.5) == [CONTROL_TOPIC] * 3
    finally:
        publisher.close()


def test_publishing_on_an_ipc_path_a_running_publisher_holds_is_refused(tmp_path):
    address = f"ipc://{tmp_path}/pub"
    holder = FramePublisher(*SCENE)
    intruder = FramePublisher(*SCENE)
    try:
        holder.bind(address)
        with pytest.raises(Error, match="address in use by a running server"):
            intruder.bind(address)
        assert (tmp_path / "pub").exists()
    finally:
        intruder.close()
        holder.close()


def test_the_publisher_socket_file_is_its_owners_alone_whatever_the_umask(tmp_path):
    publisher = FramePublisher(*SCENE)
    previous = os.umask(0)
    try:
        publisher.bind(f"ipc://{tmp_path}/pub")
        assert stat.S_IMODE((tmp_path / "pub").stat().st_mode) == 0o600
    finally:
        os.umask(previous)
        publisher.close()
    assert not (tmp_path / "pub").exists()


def test_publishing_on_a_path_that_is_a_regular_file_is_refused_and_the_file_kept(tmp_path: Path):
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    publisher = FramePublisher(*SCENE)
    try:
        with pytest.raises(Error, match="exists and is not a socket"):
            publisher.bind(f"ipc://{notes}")
    finally:
        publisher.close()
    assert notes.read_text() == "keep me"


def test_publishing_on_an_abstract_socket_needs_curve():
    publisher = FramePublisher(*SCENE)
    try:
        with pytest.raises(Error, match="abstract socket has no file permissions"):
            publisher.bind(f"ipc://@coupler-test-{os.getpid()}")
        server_public, server_secret = zmq.curve_keypair()
        client_public, _ = zmq.curve_keypair()
        assert publisher.bind(f"ipc://@coupler-test-{os.getpid()}", transport=TransportOptions(
            curve_key_pair=(server_public, server_secret), curve_allowed_clients=(client_public,)))
    finally:
        publisher.close()
