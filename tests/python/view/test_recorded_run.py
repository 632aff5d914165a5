"""A recording as `coupler view` plays it: its states in order, a clock that plays, pauses, changes speed and
seeks, and a clear line for a file cut short or states from another scene (the view still opens)."""

from __future__ import annotations

import re
import signal

import mujoco
import numpy as np
import pytest

from coupler.record.channels import STATE_TOPIC
from coupler.record.mcap_log import McapLog
from coupler.record.scene_record import MODEL_BINARY
from coupler.record.state_frame import encode_state
from coupler.record.world_states import encode_world_state
from coupler.view.recorded_run import Playback, RecordedRun
from coupler.view.view_source import RecordingSource
from coupler.cli import main
from pendulum_recording import PENDULUM, STEP, two_runs

TWO_HINGES = PENDULUM.replace('<joint name="hinge" axis="0 1 0"/>',
                              '<joint name="hinge" axis="0 1 0"/><joint name="twist" axis="0 0 1"/>')


def _binary(model: mujoco.MjModel) -> bytes:
    buffer = np.empty(mujoco.mj_sizeModel(model), dtype=np.uint8)
    mujoco.mj_saveModel(model, None, buffer)
    return buffer.tobytes()


def _recording(path, model_xml: str, states_xml: str, count: int = 100):
    """A recording carrying `model_xml`'s model and `count` states of `states_xml`'s model (the hinge at
    0.01 rad per step)."""
    model = mujoco.MjModel.from_xml_string(model_xml)
    states = mujoco.MjModel.from_xml_string(states_xml)
    log = McapLog(str(path))
    log.attachment(MODEL_BINARY, "application/x-mujoco-mjb", _binary(model), 0)
    for step in range(count):
        qpos = np.zeros(states.nq)
        qpos[0] = 0.01 * step
        log.message(STATE_TOPIC, encode_state(step * STEP, step, qpos, np.zeros(states.nv), np.zeros(0),
                                              np.zeros(states.nu)), step, step)
    log.finish()
    return path


def test_a_recording_plays_its_states_at_the_time_asked_for(tmp_path):
    run = RecordedRun(_recording(tmp_path / "run.mcap", PENDULUM, PENDULUM))
    assert (len(run), run.start, run.end, run.status) == (100, 0.0, 0.99, "")
    state = run.at(0.505)
    assert (state.step, state.time, state.qpos[0]) == (50, 0.5, 0.5)


def test_states_of_another_scene_are_left_out_saying_so_and_the_model_is_shown_at_rest(tmp_path):
    run = RecordedRun(_recording(tmp_path / "run.mcap", PENDULUM, TWO_HINGES))
    assert len(run) == 0
    assert run.status == (f"100 states of {tmp_path / 'run.mcap'} left out: a state of 2 positions and 1 controls, "
                          "not of the model drawn (1 and 1): it comes from another scene; "
                          f"{tmp_path / 'run.mcap'} holds no state of its model: showing the model at rest")
    assert list(run.at(0.3).qpos) == [0.0]


def test_a_recording_cut_short_is_shown_up_to_its_last_complete_record(tmp_path):
    path = _recording(tmp_path / "run.mcap", PENDULUM, PENDULUM, count=5000)
    whole = path.read_bytes()
    path.write_bytes(whole[:len(whole) // 2])  # inside the second of its two chunks
    run = RecordedRun(path)
    assert 0 < len(run) < 5000
    assert run.status.startswith(f"{path} ends inside a record at byte ")
    assert run.status.endswith(": read up to there")


def test_the_clock_plays_at_its_speed_pauses_and_seeks():
    now = [100.0]
    clock = Playback(0.0, 10.0, speed=2.0, monotonic=lambda: now[0])
    now[0] += 1.0
    assert clock.now() == 2.0
    clock.pause()
    now[0] += 5.0
    assert clock.now() == 2.0
    clock.seek(7.5)
    clock.speed = 0.5
    clock.play()
    now[0] += 2.0
    assert clock.now() == 8.5


def test_the_clock_stops_at_the_end_and_plays_again_from_the_start():
    now = [0.0]
    clock = Playback(1.0, 3.0, monotonic=lambda: now[0])
    now[0] += 10.0
    assert (clock.now(), clock.playing) == (3.0, False)
    clock.play()
    assert clock.now() == 1.0 and clock.playing


@pytest.mark.parametrize("speed", [0.0, 1e9])
def test_the_clock_keeps_its_speed_within_bounds(speed):
    clock = Playback(0.0, 1.0)
    clock.speed = speed
    assert 0 < clock.speed <= 100


def test_viewing_a_recording_cut_short_says_so_in_one_line_and_stays_open(tmp_path, monkeypatch, capsys):
    path = _recording(tmp_path / "run.mcap", PENDULUM, PENDULUM, count=5000)
    whole = path.read_bytes()
    path.write_bytes(whole[:len(whole) // 2])
    monkeypatch.setattr(signal, "signal", lambda *_: None)  # the view's Ctrl-C handling is the test process's
    assert main(["view", str(path), "--web", "--web-addr", "127.0.0.1:0", "--duration", "0.5"]) == 0
    said = capsys.readouterr()
    told = [line for line in said.err.splitlines() if "ends inside a record" in line]
    assert len(told) == 1 and re.fullmatch(rf"coupler view: {re.escape(str(path))} ends inside a record at byte "
                                           rf"\d+ of {len(whole) // 2}: read up to there", told[0]), said.err
    assert said.out.splitlines()[-1].startswith("view: drew ")


def test_a_recording_of_batched_worlds_is_shown_as_world_0s_run(tmp_path):
    model = mujoco.MjModel.from_xml_string(PENDULUM)
    path = tmp_path / "worlds.mcap"
    log = McapLog(str(path))
    log.attachment(MODEL_BINARY, "application/x-mujoco-mjb", _binary(model), 0)
    worlds = [mujoco.MjData(model) for _ in range(2)]
    for step in range(10):
        for world, data in enumerate(worlds):
            data.qpos[0] = (1 + world) * 0.01 * step
            data.time = step * STEP
            log.message(STATE_TOPIC, encode_world_state(world, data, step), step, step)
    log.finish()
    run = RecordedRun(path)
    assert (len(run), run.status) == (10, "")
    assert run.at(0.05).qpos[0] == 0.05


def test_runs_from_a_reset_play_one_after_the_other_each_state_at_its_own_time(tmp_path):
    run = RecordedRun(two_runs(tmp_path / "runs.mcap"))
    assert len(run) == 150 and np.all(np.diff(run.timeline) > 0)
    assert (run.start, run.end) == (0.0, pytest.approx(0.99 + STEP + 0.49))
    first, second = run.at(0.5), run.at(0.99 + STEP + 0.2 + 1e-9)
    assert (first.time, first.qpos[0]) == (0.5, 0.5)
    assert (second.time, second.step, second.qpos[0]) == (pytest.approx(0.2), 20, pytest.approx(-0.2))


def test_a_view_of_runs_from_a_reset_shows_each_state_once_in_the_order_recorded(tmp_path):
    source = RecordingSource(RecordedRun(two_runs(tmp_path / "runs.mcap")))
    shown = []
    for position in np.linspace(0.0, source.run.end, 600):
        source.playback.seek(float(position))
        state = source.next_state(0.0)
        if state is not None:
            shown.append(state.qpos[0])
    assert len(shown) == 150
    assert shown[:100] == pytest.approx([0.01 * s for s in range(100)])
    assert shown[100:] == pytest.approx([-0.01 * s for s in range(50)])

