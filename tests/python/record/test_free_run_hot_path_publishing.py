"""A free run published (--publish, --record) keeps the C++ hot path, which publishes each Control and each read
with its answer, and the states the observer's `free_run_states` shows, as the Python loop would."""

from __future__ import annotations

import threading
import time

import zmq

from coupler.record.frame_stream import END_TOPIC, FRAME_PREFIX, NO_TIME, parse, topic_of
from coupler.record.publisher import FramePublisher
from coupler.record.scene_record import scene_attachments, scene_metadata
from coupler.scenes import load_scene
from coupler.serve.frame_observer import observed
from coupler.serve.free_run_loop import FreeRunLoop
from coupler.serve.native_responder import NativeResponder
from coupler.serve.run_clock import RunClock
from coupler.serve.simulation_server import SimulationServer
from coupler.transport.client import Client
from coupler.wire.codec import encode
from coupler.wire.messages import ControlMessage, HandshakeInitMessage, ObjectControl, SensorRequestMessage


def test_a_published_free_run_on_the_hot_path_publishes_every_control_and_read_its_answer_and_each_state(tmp_path):
    simulation = load_scene("arm", None)
    sim = SimulationServer(simulation, lockstep=False)
    publisher = FramePublisher(scene_metadata(simulation, "arm"), scene_attachments(simulation))
    subscriber = zmq.Context.instance().socket(zmq.SUB)
    subscriber.linger = 0
    subscriber.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
    subscriber.connect(publisher.bind(f"ipc://{tmp_path}/published"))
    stop = threading.Event()
    answers, reads = [], []
    try:
        assert publisher.wait_for_subscribers(1, 10.0)
        native = NativeResponder(f"ipc://{tmp_path}/free", sim)
        responder = observed(native, publisher)
        with responder:  # closing it shows the observer the state the run ended in, if it had not seen it
            loop = FreeRunLoop(responder, RunClock(1.0), 0.1)
            thread = threading.Thread(target=loop.run, args=(stop, 0.05))
            thread.start()
            try:
                with Client(native.endpoint, timeout=5.0) as controller, Client(native.endpoint, timeout=5.0) as reader:
                    handshake = controller.request(HandshakeInitMessage())
                    control = ControlMessage(objects={
                        name: ObjectControl(values=[0.1] * len(description.controls))
                        for name, description in handshake.objects.items() if description.controls})
                    while thread.is_alive():
                        try:
                            answers.append(controller.request(control, timeout=0.3))
                            reads.append(encode(reader.request(SensorRequestMessage(), timeout=0.3)))
                        except Exception:
                            break  # the run ended at 0.1 s
                        time.sleep(0.005)
                thread.join(timeout=5)
            finally:
                stop.set()
                thread.join(timeout=10)
        publisher.send_end()
        streamed = []
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and subscriber.poll(1000):
            parts = subscriber.recv_multipart()
            if topic_of(parts) == END_TOPIC:
                break
            streamed.append(parse(parts))
    finally:
        publisher.close()
        subscriber.close()
    assert loop.hot_path is not None and loop.hot_path.controls > 0 and loop.hot_path.reads > 0
    dt = sim.handshake.time_step
    states = [s for s in streamed if s.topic == "/coupler/mujoco_state"]
    # A run at real time with a 2 ms step keeps to the rate: every step's state, in order.
    assert [s.simulated_ns for s in states] == [round(k * dt * 1e9) for k in range(1, sim.stats.steps + 1)]
    controls = [s for s in streamed if s.topic == "/coupler/requests/Control"]
    # A Control's answer carries the time of its state; a read's, which takes no step, none.
    sensors = [s.payload for s in streamed if s.topic == "/coupler/answers/Sensor" and s.simulated_ns != NO_TIME]
    assert len(controls) >= len(answers)  # a Control the run's end left unanswered is published all the same
    assert [encode(answer) for answer in answers] == sensors[:len(answers)]
    exchanges = [s for s in streamed if s.topic != "/coupler/mujoco_state"]
    read_answers = [exchanges[k + 1] for k, s in enumerate(exchanges[:-1])
                    if s.topic == "/coupler/requests/SensorRequest"]
    assert [(s.topic, s.simulated_ns) for s in read_answers] == [("/coupler/answers/Sensor", NO_TIME)] * len(reads)
    assert [s.payload for s in read_answers] == reads
