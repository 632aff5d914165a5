"""WorldBatch: N worlds of one MuJoCo model, each stepping as a single served scene does, on several threads."""

from __future__ import annotations

import numpy as np
import pytest

from coupler import _native
from coupler.limits import MAX_STEPS_PER_CONTROL
from coupler.mujoco.simulation import MujocoSimulation
from coupler.mujoco.world_batch import WorldBatch
from coupler.scenes import SCENES_DIR
from coupler.serve.long_control import LONG_CONTROL_STEPS
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import ErrorCode
from coupler.wire.world_frames import WorldControl
from batch_steps import frame_of, run_batch
from mocap_scenes import MOCAP_PENDULUM
from walker_scene import walker

WORLDS = 4


def _arm() -> MujocoSimulation:
    return MujocoSimulation(SCENES_DIR / "arm.xml")


def _control(controls: np.ndarray | None = None, steps: int = 0, resets: list[int] | None = None,
             qpos: np.ndarray | None = None) -> WorldControl:
    return WorldControl(worlds=WORLDS, controls=np.zeros(0) if controls is None else controls.ravel(), steps=steps,
                        resets=np.array(resets or [], dtype=np.int64),
                        qpos=np.zeros(0) if qpos is None else qpos.ravel(), qvel=np.zeros(0))


def _outputs(batch: WorldBatch) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((batch.count, batch.sensor_width)), np.zeros(batch.count)


def _random_controls(batch: WorldBatch, rng: np.random.Generator) -> np.ndarray:
    controls = rng.uniform(-1.0, 1.0, size=(batch.count, batch.control_width))
    events = batch.first.flat.controls.events_on.size
    controls[:, batch.control_width - events:] = rng.integers(0, 2, size=(batch.count, events))
    return controls


@pytest.fixture
def batch():
    made = WorldBatch(_arm(), WORLDS, threads=2)
    yield made
    made.close()


def test_every_world_starts_as_world_0_started(batch):
    sensors, times = _outputs(batch)
    run_batch(batch, _control(), sensors, times)
    for row in sensors[1:]:
        np.testing.assert_array_equal(row, sensors[0])
    assert times.tolist() == [0.0] * WORLDS


def test_worlds_on_two_threads_follow_the_trajectories_of_single_simulations_bit_for_bit(batch):
    singles = [_arm() for _ in range(WORLDS)]
    sensors, times = _outputs(batch)
    expected = np.zeros_like(sensors)
    rng = np.random.default_rng(0)
    flat = batch.first.flat.controls
    value_count = flat.values.size
    every_object, every_event = np.ones(len(flat.objects), bool), np.ones(flat.events_on.size, bool)
    for _ in range(5):
        controls = _random_controls(batch, rng)
        run_batch(batch, _control(controls, steps=3), sensors, times)
        for i, single in enumerate(singles):
            single.apply_values(controls[i, :value_count], every_object, every_event, controls[i, value_count:] != 0)
            single.step(3)
            single.sensor_values(expected[i])
        np.testing.assert_array_equal(sensors, expected)
    assert times == pytest.approx([5 * 3 * 0.002] * WORLDS)


def test_a_reset_world_restarts_from_the_given_qpos_while_the_others_step(batch):
    sensors, times = _outputs(batch)
    controls = np.zeros((WORLDS, batch.control_width))
    run_batch(batch, _control(controls, steps=2), sensors, times)
    qpos = batch.first.data.qpos.copy()
    qpos[0] = 0.5
    run_batch(batch, _control(controls, steps=2, resets=[2], qpos=qpos), sensors, times)
    assert times.tolist() == pytest.approx([0.008, 0.008, 0.0, 0.008])
    assert batch.worlds[2].data.qpos[0] == 0.5


def test_a_control_mujoco_would_zero_is_refused_before_any_world_changes(batch):
    sensors, times = _outputs(batch)
    controls = np.zeros((WORLDS, batch.control_width))
    controls[3, 0] = 1e300
    before = batch.worlds[0].data.ctrl.copy()
    with pytest.raises(ProtocolError, match="in world 3 is 1e\\+300") as raised:
        run_batch(batch, _control(controls), sensors, times)
    assert raised.value.code == ErrorCode.CONTROL_MISMATCH
    assert [world.data.time for world in batch.worlds] == [0.0] * WORLDS
    np.testing.assert_array_equal(batch.worlds[0].data.ctrl, before)


def test_the_worlds_are_shared_out_among_at_most_one_thread_per_world():
    batch = WorldBatch(_arm(), 3, threads=8)
    try:
        assert batch.threads == 3
    finally:
        batch.close()


def test_a_control_taken_in_chunks_ends_bit_for_bit_where_one_run_ends_its_resets_done_once(batch, make_address):
    whole = WorldBatch(_arm(), WORLDS, threads=2)
    try:
        controls = _random_controls(batch, np.random.default_rng(1))
        qpos = batch.first.data.qpos.copy()
        qpos[0] = 0.5
        steps = LONG_CONTROL_STEPS + 150
        control = _control(controls, steps=steps, resets=[1], qpos=qpos)
        expected, expected_times = _outputs(whole)
        run_batch(whole, control, expected, expected_times)
        sensors, times = _outputs(batch)
        path = batch.hot_path(sensors, times, MAX_STEPS_PER_CONTROL)
        assert path.start_chunks(frame_of(control)).long_steps == steps
        with _native.Server(make_address("inproc")) as server:
            runs = 0
            outcome = None
            while runs < 100 and (outcome is None or not outcome.long_done):
                # Its chunks, taken as the path's own: no request comes. A run returns at a first clamp too.
                outcome = path.run(server, b"", 5.0)
                assert not outcome.failure
                runs += 1
        assert outcome.long_done
        np.testing.assert_array_equal(sensors, expected)
        time = steps * 0.002
        assert times.tolist() == expected_times.tolist() == pytest.approx([time, 0.0, time, time])
    finally:
        whole.close()


def test_a_batch_the_machines_available_memory_cannot_hold_is_refused_in_one_line_before_it_is_made(monkeypatch):
    from coupler.mujoco import world_batch
    from coupler.wire.errors import Error

    monkeypatch.setattr(world_batch, "available_bytes", lambda: 10 << 20)  # 10 MiB: about 20 arm worlds
    made: list[object] = []
    real = world_batch.MujocoSimulation
    monkeypatch.setattr(world_batch, "MujocoSimulation", lambda model, **kw: made.append(model) or real(model, **kw))
    with pytest.raises(Error, match=r"--worlds 1000 needs about 0\.\d GiB \(about \d+ kB a world.*; this machine "
                                    r"has 0\.0 GiB available: serve fewer worlds"):
        WorldBatch(_arm(), 1000)
    assert len(made) == world_batch.PROBE_WORLDS  # only the worlds measured were made


def test_the_available_memory_is_read_from_meminfo(tmp_path):
    from coupler.mujoco.world_memory import available_bytes

    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       32000000 kB\nMemAvailable:   2048 kB\n")
    assert available_bytes(meminfo) == 2048 * 1024
    assert available_bytes(tmp_path / "missing") is None


def test_world_data_is_read_right_after_the_step_as_mj_step_and_mj_rne_post_constraint_leave_it():
    import mujoco

    names = ("xpos", "cfrc_ext", "qfrc_actuator")
    made = WorldBatch(_arm(), WORLDS, threads=2, data_names=names)
    try:
        single = _arm()
        model, data = single.model, mujoco.MjData(single.model)
        mujoco.mj_resetDataKeyframe(model, data, 0)
        mujoco.mj_forward(model, data)
        sensors, times = _outputs(made)
        run_batch(made, _control(), sensors, times)
        rng = np.random.default_rng(3)
        for _ in range(5):
            controls = _random_controls(made, rng)
            controls[:] = controls[0]  # every world as the one stepped here
            run_batch(made, _control(controls, steps=3), sensors, times)
            single.apply_values(controls[0, : single.flat.controls.values.size],
                                np.ones(len(single.flat.controls.objects), dtype=bool),
                                np.ones(single.flat.controls.events_on.size, dtype=bool),
                                controls[0, single.flat.controls.values.size:] != 0)
            data.ctrl[:] = single.data.ctrl
            mujoco.mj_step(model, data, nstep=3)
            mujoco.mj_rnePostConstraint(model, data)
            expected = np.concatenate([getattr(data, name).ravel() for name in names])
            for row in made.world_data:
                np.testing.assert_array_equal(row, expected)
    finally:
        made.close()


def test_worlds_count_at_least_their_data_buffer_when_reused_memory_hides_their_cost(monkeypatch):
    from coupler.mujoco import world_batch
    from coupler.wire.errors import Error

    monkeypatch.setattr(world_batch, "available_bytes", lambda: 10 << 20)
    monkeypatch.setattr(world_batch, "resident_bytes", lambda: 1 << 30)  # freed memory reused: no growth seen
    with pytest.raises(Error, match=r"--worlds 1000 needs about 0\.\d GiB"):
        WorldBatch(_arm(), 1000)


# A free body on a motored leg, on a floor: its readings are body poses, velocities and actuator forces, which
# the position, velocity and actuation stages of mj_forward compute; Euler's steps may start at mj_step2, RK4's
# past the position and velocity stages.
@pytest.mark.parametrize("integrator", ["Euler", "RK4"])
def test_worlds_settled_by_the_stages_their_readings_need_read_as_a_scene_alone_does(tmp_path, integrator):
    from coupler.mujoco.flat import gathered_arrays
    from coupler.mujoco.readings_stages import readings_stages, settling

    scene = tmp_path / "walker.xml"
    scene.write_text(walker(integrator))
    made = WorldBatch(MujocoSimulation(scene), WORLDS, threads=2)
    try:
        arrays = gathered_arrays(made.first.layout, made.first.flat)
        assert readings_stages(arrays) == ("mj_fwdPosition", "mj_fwdVelocity", "mj_fwdActuation")
        assert settling(made.first.model, arrays) == (("mj_fwdPosition", "mj_sensorPos", "mj_fwdVelocity",
                                                       "mj_sensorVel", "mj_fwdActuation"), True)
        singles = [MujocoSimulation(scene) for _ in range(WORLDS)]
        sensors, times = _outputs(made)
        expected = np.zeros_like(sensors)
        flat = made.first.flat.controls
        every_object, every_event = np.ones(len(flat.objects), bool), np.ones(flat.events_on.size, bool)
        rng = np.random.default_rng(5)
        for _ in range(20):
            controls = rng.uniform(-1.0, 1.0, size=(made.count, made.control_width))
            run_batch(made, WorldControl(worlds=WORLDS, controls=controls.ravel(), steps=4,
                                         resets=np.zeros(0, np.int64), qpos=np.zeros(0), qvel=np.zeros(0)),
                      sensors, times)
            for i, single in enumerate(singles):
                single.apply_values(controls[i], every_object, every_event, np.zeros(0, bool))
                single.step(4)
                single.sensor_values(expected[i])  # as mj_forward leaves them (test_settling_stages.py)
            np.testing.assert_array_equal(sensors, expected)
    finally:
        made.close()


def test_a_reading_of_an_array_no_early_stage_computes_takes_all_of_mj_forward():
    from coupler.mujoco.readings_stages import readings_stages

    assert readings_stages(frozenset({"qpos", "qvel"})) == ()
    assert readings_stages(frozenset({"qpos", "xquat"})) == ("mj_fwdPosition",)
    assert readings_stages(frozenset({"qvel", "cvel", "xpos"})) == ("mj_fwdPosition", "mj_fwdVelocity")
    assert readings_stages(frozenset({"qpos", "sensordata", "xpos"})) is None


def test_worlds_with_a_mocap_body_step_as_single_scenes_from_a_first_control_that_only_resets():
    batch = WorldBatch(MujocoSimulation.from_xml_string(MOCAP_PENDULUM), 3, threads=2)
    singles = [MujocoSimulation.from_xml_string(MOCAP_PENDULUM) for _ in range(3)]
    sensors, times = _outputs(batch)
    every_object = np.ones(len(batch.first.flat.controls.objects), dtype=bool)
    rng = np.random.default_rng(5)
    try:
        run_batch(batch, WorldControl(worlds=3, controls=np.zeros(0), steps=0, resets=np.array([1], dtype=np.int64),
                                      qpos=np.zeros(0), qvel=np.zeros(0)), sensors, times)
        for _ in range(4):
            rows = rng.uniform(-1.0, 1.0, size=(3, batch.control_width))
            run_batch(batch, WorldControl(worlds=3, controls=rows.ravel(), steps=3,
                                          resets=np.zeros(0, dtype=np.int64), qpos=np.zeros(0), qvel=np.zeros(0)),
                      sensors, times)
            for single, world, row, read in zip(singles, batch.worlds, rows, sensors):
                single.apply_values(row, every_object, np.zeros(0, dtype=bool), np.zeros(0, dtype=bool))
                single.step(3)
                expected = np.zeros_like(read)
                single.sensor_values(expected)
                np.testing.assert_array_equal(read, expected)
                np.testing.assert_array_equal(world.data.mocap_quat, single.data.mocap_quat)
    finally:
        batch.close()
