"""`coupler view --foxglove` as Foxglove meets it: a client speaking foxglove-sdk's WebSocket protocol is told every
channel, and once subscribed gets the scene, the bodies' poses and every frame of the run, each once."""

from __future__ import annotations

import json
import re
import struct
import threading
import time
from collections import Counter, defaultdict

import pytest

pytest.importorskip("foxglove")
from foxglove_schemas_protobuf.FrameTransforms_pb2 import FrameTransforms  # noqa: E402
from foxglove_schemas_protobuf.SceneUpdate_pb2 import SceneUpdate  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

from coupler.controller.session import Session  # noqa: E402
from coupler.record.foxglove_scene import body_frames  # noqa: E402
from coupler.scenes import load_scene  # noqa: E402
from coupler.serve.serve_process import ServeProcess  # noqa: E402
from coupler.view.foxglove_bridge import FoxgloveBridge  # noqa: E402
from view_process import ViewProcess  # noqa: E402

SUBPROTOCOL = "foxglove.sdk.v1"
MESSAGE_DATA = 0x01  # a binary frame's opcode: a message on a subscription
MESSAGE_HEADER = struct.Struct("<BIQ")  # opcode, subscription id, log time (ns)
CONTROLS = 20


def _channels(client) -> dict[str, int]:
    """Topic -> channel id, from the server's advertisements."""
    channels: dict[str, int] = {}
    deadline = time.monotonic() + 5.0
    while "/coupler/foxglove/transforms" not in channels and time.monotonic() < deadline:
        message = json.loads(client.recv(timeout=5.0))
        if message["op"] == "advertise":
            channels.update({channel["topic"]: channel["id"] for channel in message["channels"]})
    return channels


def _received(client, topics: dict[int, str], until: float) -> dict[str, list[bytes]]:
    """The payloads of the messages on each topic that arrive before `until` (a time.monotonic())."""
    payloads: dict[str, list[bytes]] = defaultdict(list)
    while time.monotonic() < until:
        try:
            frame = client.recv(timeout=max(0.0, until - time.monotonic()))
        except TimeoutError:
            break
        if isinstance(frame, bytes) and frame[0] == MESSAGE_DATA:
            _, subscription, _ = MESSAGE_HEADER.unpack_from(frame)
            payloads[topics[subscription]].append(frame[MESSAGE_HEADER.size:])
    return payloads


def test_a_foxglove_client_gets_the_scene_the_poses_and_every_frame_of_the_run_once(tmp_path):
    address, publish = f"ipc://{tmp_path}/serve", f"ipc://{tmp_path}/publish"
    stop = threading.Event()
    with ServeProcess(["--scene", "arm", "--publish", publish], address=address):
        bridge = FoxgloveBridge(publish, None, "127.0.0.1", 0)
        thread = threading.Thread(target=bridge.run, args=(stop, 30.0))
        thread.start()
        try:
            with connect(bridge.url, subprotocols=[SUBPROTOCOL], open_timeout=5.0) as client:
                channels = _channels(client)
                topics = dict(enumerate(channels))
                client.send(json.dumps({"op": "subscribe", "subscriptions": [
                    {"id": subscription, "channelId": channels[topic]} for subscription, topic in topics.items()]}))
                time.sleep(0.2)  # subscribed before the run starts
                with Session(address) as session:
                    controls = session.controls()
                    for _ in range(CONTROLS):
                        session.step(controls)
                payloads = _received(client, topics, until=time.monotonic() + 2.0)
        finally:
            stop.set()
            thread.join(timeout=10)
            bridge.close()
    assert not thread.is_alive()
    counts = Counter({topic: len(messages) for topic, messages in payloads.items()})
    assert counts["/coupler/requests/Control"] == CONTROLS
    assert counts["/coupler/mujoco_state"] == CONTROLS
    assert counts["/coupler/answers/Sensor"] == CONTROLS + counts["/coupler/requests/SensorRequest"]
    assert counts["/coupler/foxglove/scene"] == 1
    scene = SceneUpdate.FromString(payloads["/coupler/foxglove/scene"][0])
    frames = body_frames(load_scene("arm", None).model)  # the world's first
    assert {entity.frame_id for entity in scene.entities} <= set(frames) and scene.entities
    assert counts["/coupler/foxglove/transforms"] >= 1
    poses = FrameTransforms.FromString(payloads["/coupler/foxglove/transforms"][-1])
    assert [transform.child_frame_id for transform in poses.transforms] == frames[1:]


def test_coupler_view_foxglove_says_where_foxglove_connects_and_what_it_sent_when_stopped(tmp_path):
    address, publish = f"ipc://{tmp_path}/serve", f"ipc://{tmp_path}/publish"
    with ServeProcess(["--scene", "arm", "--publish", publish], address=address):
        view = ViewProcess("--addr", publish, "--foxglove", "--foxglove-addr", "127.0.0.1:0")
        try:
            url = re.search(r"ws://[0-9.]+:[0-9]+", view.line_with("to Foxglove at ws://")).group(0)
            with connect(url, subprotocols=[SUBPROTOCOL], open_timeout=5.0) as client:
                assert "/coupler/foxglove/scene" in _channels(client)
            view.line_with("the scene from")  # published at start: the view has it
        finally:
            output = view.stop()
    assert view.process.returncode == 0, output
    assert output.splitlines()[-1].startswith("view: ") and "messages sent to Foxglove" in output.splitlines()[-1]
