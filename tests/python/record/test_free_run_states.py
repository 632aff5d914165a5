"""A published free run shows its observer the state as it steps: every step while it keeps to
FREE_RUN_STATES_PER_SECOND, bursts of up to FREE_RUN_STATE_BURST, fewer when it steps faster for longer, and the last
state when it stops (the rule itself: coupler::FreeRunStates, tests/cpp/serve/free_run_states_test.cpp). Seen by a
subscriber, as `coupler record` sees them, of a run stepped in C++ as fast as it goes."""

from __future__ import annotations

import threading
import time

import zmq

from coupler._proto.coupler_record_pb2 import MujocoState
from coupler.record.frame_stream import END_TOPIC, FRAME_PREFIX, parse, topic_of
from coupler.record.publisher import FramePublisher
from coupler.record.scene_record import scene_attachments, scene_metadata
from coupler.scenes import load_scene
from coupler.serve.frame_observer import FREE_RUN_STATE_BURST, FREE_RUN_STATES_PER_SECOND, observed
from coupler.serve.free_run_loop import FreeRunLoop
from coupler.serve.native_responder import NativeResponder
from coupler.serve.run_clock import RunClock
from coupler.serve.simulation_server import SimulationServer
from coupler.transport.client import Client
from coupler.wire.messages import ControlMessage, HandshakeInitMessage, ObjectControl

STOP_AFTER = 10.0  # simulated seconds: 5,000 steps of the arm's 2 ms


def test_a_free_run_stepping_faster_for_longer_shows_fewer_states_the_first_burst_and_the_last_at_the_end(tmp_path):
    simulation = load_scene("arm", None)
    sim = SimulationServer(simulation, lockstep=False)
    publisher = FramePublisher(scene_metadata(simulation, "arm"), scene_attachments(simulation))
    subscriber = zmq.Context.instance().socket(zmq.SUB)
    subscriber.linger = 0
    subscriber.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
    subscriber.connect(publisher.bind(f"ipc://{tmp_path}/published"))
    stop = threading.Event()
    try:
        assert publisher.wait_for_subscribers(1, 10.0)
        native = NativeResponder(f"ipc://{tmp_path}/free", sim)
        with observed(native, publisher) as responder:  # closing it shows the state the run ended in
            loop = FreeRunLoop(responder, RunClock(None), STOP_AFTER)  # unpaced: as fast as it steps
            thread = threading.Thread(target=loop.run, args=(stop, 0.05))
            thread.start()
            try:
                with Client(native.endpoint, timeout=5.0) as controller:
                    handshake = controller.request(HandshakeInitMessage())
                    started = time.monotonic()
                    controller.request(ControlMessage(objects={
                        name: ObjectControl(values=[0.1] * len(description.controls))
                        for name, description in handshake.objects.items() if description.controls}))
                    thread.join(timeout=60)
                    took = time.monotonic() - started
            finally:
                stop.set()
                thread.join(timeout=10)
        publisher.send_end()
        steps = []
        while subscriber.poll(5000):
            parts = subscriber.recv_multipart()
            if topic_of(parts) == END_TOPIC:
                break
            published = parse(parts)
            if published.topic == "/coupler/mujoco_state":
                steps.append(MujocoState.FromString(published.payload).step)
    finally:
        publisher.close()
        subscriber.close()
    taken = sim.stats.steps
    assert taken == round(STOP_AFTER / sim.handshake.time_step)
    burst = int(FREE_RUN_STATE_BURST)
    assert steps[:burst] == list(range(1, burst + 1))  # the bucket starts full: a burst of every step
    assert steps[-1] == taken  # the last state, shown when the run ends
    assert steps == sorted(set(steps))
    assert len(steps) <= FREE_RUN_STATE_BURST + took * FREE_RUN_STATES_PER_SECOND + 2 < taken
