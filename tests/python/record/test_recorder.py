"""The recorder never holds up the serving thread: a full queue or a failing disk drops frames, counted."""

import logging
import time

import numpy as np

from coupler._proto import coupler_pb2, coupler_record_pb2
from coupler.record.recorder import Recorder
from coupler.record.recording import Recording

SENSOR = coupler_pb2.SensorMessage(messageType=coupler_pb2.SensorMessageType).SerializeToString()


class FakeData:
    """What the recorder reads of mjData after a step."""

    def __init__(self, t: float) -> None:
        self.time = t
        self.qpos = np.arange(3.0) + t
        self.qvel = np.zeros(3)
        self.act = np.zeros(0)
        self.ctrl = np.ones(2)


class FakeSimulation:
    def __init__(self) -> None:
        self.data = FakeData(0.0)


def test_every_answer_and_state_handed_over_is_in_the_finished_file_in_order(tmp_path):
    recorder = Recorder(tmp_path / "run.mcap")
    simulation = FakeSimulation()
    for step in range(1, 101):
        simulation.data = FakeData(step * 0.002)
        recorder.on_step(simulation, step, time.time())
        recorder.on_answer(SENSOR, b"peer", time.time(), step * 0.002)
    recorder.close()
    messages = list(Recording(tmp_path / "run.mcap"))
    assert [m.kind for m in messages] == ["mujoco_state", "Sensor"] * 100
    last = coupler_record_pb2.MujocoState.FromString(messages[-2].data)
    assert last.step == 100 and list(last.qpos) == [0.2, 1.2, 2.2] and list(last.ctrl) == [1.0, 1.0]
    assert messages[-1].publish_time == 200_000_000  # simulated time, ns
    assert recorder.dropped == 0


def test_a_full_queue_drops_and_counts_instead_of_waiting(tmp_path):
    recorder = Recorder(tmp_path / "run.mcap", queue_size=10)
    for _ in range(20000):
        recorder.on_answer(SENSOR, b"peer", time.time(), None)
    recorder.close()
    assert recorder.dropped > 0  # a recorder that waited for room would have dropped nothing
    assert recorder.written + recorder.dropped == 20000


def test_a_write_error_is_reported_once_and_the_rest_is_dropped(tmp_path, caplog):
    recorder = Recorder(tmp_path / "run.mcap")

    def full_disk(*args):
        raise OSError(28, "No space left on device")

    recorder._log.frame = full_disk  # the disk fills up after the file was opened
    with caplog.at_level(logging.ERROR, logger="coupler.record.recorder"):
        for _ in range(50):
            recorder.on_answer(SENSOR, b"peer", time.time(), None)
        recorder.close()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "No space left on device" in errors[0].getMessage()
    assert recorder.dropped == 50
    assert "No space left on device" in recorder.summary()
