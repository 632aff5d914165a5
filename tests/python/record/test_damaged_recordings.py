"""The readers of recordings (replay, plot, render) on files cut short, damaged or made to do harm: they read
up to the last complete record and say where the file ended, or refuse it in one line; never a traceback,
never unbounded time or memory."""

import random
import resource
import time

import pytest

from coupler.cli import main
from coupler.record.recording import Recording
from coupler.record.scene_record import MODEL_ATTACHMENT, MODEL_BINARY
from coupler.wire.codec import encode
from coupler.wire.messages import (
    ControlMessage,
    HandshakeMessage,
    ObjectControl,
    ObjectDescription,
    ObjectSensors,
    SensorMessage,
    ValueType,
)
from hostile_recordings import inflating_file, message_record, messages_file, records_file

CUT_POINTS = 12


def _one_line_refusal(capsys, *argv: str) -> str:
    """Run a command in-process (a traceback fails the test); its one-line error."""
    assert main(list(argv)) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"coupler {argv[0]}: ") and "\n" not in err, err
    return err


def test_a_recording_cut_at_any_byte_is_read_up_to_its_last_complete_record_and_says_where(demo_recording, tmp_path):
    data = demo_recording.read_bytes()
    whole = len(list(Recording(demo_recording)))
    cuts = [5, *random.Random(24).sample(range(len(data)), CUT_POINTS), len(data) - 9, len(data) - 1]
    cut = tmp_path / "cut.mcap"
    for length in cuts:
        cut.write_bytes(data[:length])
        recording = Recording(cut)
        read = len(list(recording))
        assert read <= whole
        assert recording.ended_early is not None and f"of {length}" in recording.ended_early, length
    assert read == whole  # cut inside the closing magic: every message was read


def _small_recording(path, objects: int, steps: int):
    """Handshake, Controls and Sensors of `objects` objects of one joint each."""
    names = [f"o{i}" for i in range(objects)]
    handshake = HandshakeMessage(objects={n: ObjectDescription(controls=["j"], control_types=[ValueType.ANGLE],
                                                               joint_sensors=["j"], joint_sensor_types=[ValueType.ANGLE])
                                          for n in names})
    control = ControlMessage(objects={n: ObjectControl(values=[0.5]) for n in names})
    messages = [("/coupler/answers/Handshake", encode(handshake))]
    for step in range(steps):
        sensors = SensorMessage(objects={n: ObjectSensors(angles=[0.4]) for n in names}, simulated_time=step * 0.01)
        messages += [("/coupler/requests/Control", encode(control)), ("/coupler/answers/Sensor", encode(sensors))]
    return messages_file(path, messages)


def test_plot_of_a_recording_missing_its_last_bytes_plots_it_all_and_says_where_it_ended(tmp_path, capsys):
    whole = _small_recording(tmp_path / "whole.mcap", 1, 5)
    cut = tmp_path / "cut.mcap"
    cut.write_bytes(whole.read_bytes()[:-3])
    assert main(["plot", str(cut), "--out", str(tmp_path / "cut.png"), "--dpi", "20"]) == 0
    out = capsys.readouterr().out
    assert "ends inside a record at byte" in out and f"of {cut.stat().st_size}" in out and ": 1 object" in out, out


def test_readers_refuse_a_message_on_a_channel_never_declared_in_one_line(tmp_path, capsys):
    path = records_file(tmp_path / "undeclared.mcap", message_record(7, b"\x08\x02"))
    for argv in (["plot", str(path)], ["render", str(path), "--out", str(tmp_path / "x.png")],
                 ["replay", str(path), "--addr", "ipc:///nonexistent"]):
        assert "channel 7" in _one_line_refusal(capsys, *argv)


def test_plot_refuses_a_message_of_the_wrong_kind_on_a_topic_in_one_line(tmp_path, capsys):
    path = messages_file(tmp_path / "kind.mcap", [("/coupler/answers/Handshake", encode(SensorMessage()))])
    assert "is a SensorMessage, not a HandshakeMessage" in _one_line_refusal(capsys, "plot", str(path))


@pytest.mark.parametrize("attachment, data", [(MODEL_ATTACHMENT, b"\xff\xfe<mujoco/>"),
                                              (MODEL_ATTACHMENT, b"not xml at all"),
                                              (MODEL_BINARY, b"\x00" * 64)])
def test_render_refuses_a_model_attachment_that_does_not_load_in_one_line(tmp_path, capsys, attachment, data):
    path = messages_file(tmp_path / "model.mcap", [], attachments={attachment: data})
    refusal = _one_line_refusal(capsys, "render", str(path), "--out", str(tmp_path / "x.png"))
    assert f"({attachment})" in refusal


def test_render_refuses_a_malformed_state_in_one_line(demo_recording, tmp_path, capsys):
    recording = Recording(demo_recording)
    recording.read_headers()
    path = messages_file(tmp_path / "state.mcap", [("/coupler/mujoco_state", b"\xff\xff\xff")],
                         attachments={MODEL_BINARY: recording.attachments[MODEL_BINARY]})
    assert "is not a MuJoCo state" in _one_line_refusal(capsys, "render", str(path), "--out", str(tmp_path / "x.png"))


@pytest.mark.parametrize("declared", [1000, 1 << 30])
def test_a_33_kb_chunk_inflating_to_1_gb_is_refused_fast_in_bounded_memory(tmp_path, capsys, declared):
    path = inflating_file(tmp_path / "inflating.mcap", 1 << 30, declared)
    assert path.stat().st_size < 40_000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    assert "chunk" in _one_line_refusal(capsys, "plot", str(path))
    assert time.monotonic() - started < 2.0
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KiB


def test_plot_of_a_recording_declaring_300_objects_draws_a_bounded_few_and_says_what_it_left_out(tmp_path, capsys):
    path = _small_recording(tmp_path / "many.mcap", 300, 5)
    started = time.monotonic()
    assert main(["plot", str(path), "--out", str(tmp_path / "many.png"), "--dpi", "20"]) == 0
    assert time.monotonic() - started < 15.0
    assert "6 objects (left out: 294 objects after the first 6)" in capsys.readouterr().out
