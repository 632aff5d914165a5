"""`coupler serve --worlds N --record` records every world: a MuJoCo state per world after each step, and
`coupler plot`, `render` and `replay` read world K of it (`--world K`, world 0 by default), each world equal
to MuJoCo stepped directly with that world's controls."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np
import pytest
from mcap.writer import Writer
from PIL import Image

from coupler.cli import main
from coupler.controller.session import Session
from coupler.controller.world_session import WorldSession
from coupler.record.recording import Recording
from coupler.record.series import series
from coupler.record.world_recording import WorldRecording
from coupler.serve.serve_process import ServeProcess
from coupler.wire.world_frames import encode_world_sensors, read_world_sensors

# Two motors on two hinges: ctrl is the value sent (gear 1), so MuJoCo can be driven directly with it.
TWO_LINKS = """
<mujoco model="two_links">
  <option timestep="0.01"/>
  <worldbody>
    <light pos="0 0 3"/>
    <geom type="plane" size="1 1 0.1"/>
    <body name="arm" pos="0 0 0.5">
      <joint name="shoulder" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="forearm" pos="0.3 0 0">
        <joint name="elbow" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.03"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="shoulder_motor" joint="shoulder"/>
    <motor name="elbow_motor" joint="elbow"/>
  </actuator>
</mujoco>
"""
WORLDS = 2
STEPS = 2  # per Control
# Per Control, each world's two motor values; world 1 is reset instead of stepped by the last Control.
CONTROLS = [np.array([[0.5, -0.2], [-0.3, 0.4]]), np.array([[0.1, 0.3], [0.6, -0.5]]),
            np.array([[-0.4, 0.2], [0.2, 0.1]]), np.array([[0.3, 0.3], [0.0, 0.0]])]
RESETS = [[], [], [], [1]]
WIDTH, HEIGHT = 48, 36


@dataclass(frozen=True)
class WorldsRun:
    scene: Path
    recording: Path
    model: mujoco.MjModel
    qpos: list[list[np.ndarray]]  # per world, MuJoCo's qpos after each Control, stepped directly


def _stepped_directly(model: mujoco.MjModel, world: int) -> list[np.ndarray]:
    data = mujoco.MjData(model)
    states = []
    for controls, resets in zip(CONTROLS, RESETS):
        if world in resets:
            mujoco.mj_resetData(model, data)
        else:
            data.ctrl[:] = controls[world]
            for _ in range(STEPS):
                mujoco.mj_step(model, data)
        states.append(data.qpos.copy())
    return states


@pytest.fixture(scope="module")
def worlds_run(tmp_path_factory) -> WorldsRun:
    folder = tmp_path_factory.mktemp("worlds_recording")
    scene = folder / "two_links.xml"
    scene.write_text(TWO_LINKS)
    recording = folder / "run.mcap"
    with ServeProcess(["--scene", str(scene), "--worlds", str(WORLDS), "--record", str(recording)]) as server:
        worlds = WorldSession(Session(server.endpoint))
        try:
            for controls, resets in zip(CONTROLS, RESETS):
                worlds.send(controls, STEPS, resets)
                worlds.receive()
        finally:
            worlds.session.close()
    model = mujoco.MjModel.from_xml_path(str(scene))
    return WorldsRun(scene, recording, model, [_stepped_directly(model, world) for world in range(WORLDS)])


def _states(recording: Path, world: int) -> list[np.ndarray]:
    from coupler._proto.coupler_record_pb2 import MujocoState

    return [np.array(MujocoState.FromString(m.data).qpos) for m in WorldRecording(recording, world) if m.state]


@pytest.mark.parametrize("world", range(WORLDS))
def test_each_worlds_recorded_states_are_mujoco_stepped_directly_with_its_controls(worlds_run, world):
    recorded = _states(worlds_run.recording, world)
    assert len(recorded) == len(CONTROLS)
    for got, expected in zip(recorded, worlds_run.qpos[world]):
        np.testing.assert_array_equal(got, expected)


def test_the_worlds_runs_differ(worlds_run):
    assert not np.array_equal(_states(worlds_run.recording, 0)[-1], _states(worlds_run.recording, 1)[-2])


@pytest.mark.parametrize("world", range(WORLDS))
def test_each_worlds_series_are_its_controls_and_joint_angles(worlds_run, world):
    arm = series(WorldRecording(worlds_run.recording, world))["arm"]
    stepped = [k for k, resets in enumerate(RESETS) if world not in resets]  # a reset world has no Control
    assert arm.control_values == [CONTROLS[k][world].tolist() for k in stepped]
    assert arm.angle_values == [worlds_run.qpos[world][k].tolist() for k in stepped]


def test_plot_of_a_world_writes_its_figure(worlds_run, tmp_path, capsys):
    out = tmp_path / "world1.png"
    assert main(["plot", str(worlds_run.recording), "--world", "1", "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out and out.stat().st_size > 0


def test_render_of_a_world_draws_its_states_as_mujoco_does(worlds_run, tmp_path):
    out = tmp_path / "world1.png"
    assert main(["render", str(worlds_run.recording), "--world", "1", "--out", str(out), "--fps", "50",
                 "--width", str(WIDTH), "--height", str(HEIGHT)]) == 0
    strip = np.asarray(Image.open(out).convert("RGB"))
    frames = np.split(strip, strip.shape[1] // WIDTH, axis=1)
    # States 0.02 s apart, one frame each; the reset's state, which starts world 1's next run, follows the last.
    assert len(frames) == len(worlds_run.qpos[1]) == 4
    data = mujoco.MjData(worlds_run.model)
    with mujoco.Renderer(worlds_run.model, HEIGHT, WIDTH) as renderer:
        for frame, qpos in zip(frames, worlds_run.qpos[1]):
            data.qpos[:] = qpos
            mujoco.mj_forward(worlds_run.model, data)
            renderer.update_scene(data)
            np.testing.assert_array_equal(frame, renderer.render())


def test_replay_of_every_world_against_the_recorded_scene_is_identical(worlds_run, capsys):
    assert main(["replay", str(worlds_run.recording), "--scene", "recorded"]) == 0
    assert f"identical, {len(CONTROLS)} steps" in capsys.readouterr().out


def _tampered(recording: Path, out: Path, world: int) -> None:
    """A copy of `recording` (its messages alone) whose second answer for every world has one reading of `world`
    changed."""
    with open(out, "wb") as stream:
        writer = Writer(stream)
        writer.start(profile="protobuf", library="test")
        channels: dict[str, int] = {}
        schema = writer.register_schema("coupler.v1.SensorMessage", "protobuf", b"")
        answers = 0
        for message in Recording(recording):
            if message.topic not in channels:
                channels[message.topic] = writer.register_channel(message.topic, "protobuf", schema)
            data = message.data
            if message.kind == "Sensor":
                answers += 1
                if answers == 2:
                    sensors, times = read_world_sensors(data)
                    sensors = sensors.copy()  # the answer's arrays are read-only views of its frame
                    sensors[world * (sensors.size // WORLDS)] += 1e-9
                    data = encode_world_sensors(sensors, times)
            writer.add_message(channels[message.topic], message.log_time, data, message.publish_time)
        writer.finish()


@pytest.mark.parametrize("world", range(WORLDS))
def test_replay_of_one_world_reports_a_divergence_of_that_world_alone(worlds_run, tmp_path, capsys, world):
    tampered = tmp_path / "tampered.mcap"
    _tampered(worlds_run.recording, tampered, 1)
    with ServeProcess(["--scene", str(worlds_run.scene), "--worlds", str(WORLDS)]) as server:
        status = main(["replay", str(tampered), "--addr", server.endpoint, "--world", str(world)])
    out = capsys.readouterr().out
    if world == 1:
        assert status == 1 and "diverged at step 2 (Sensor answer): world 1, object 'arm'" in out
    else:
        assert status == 0 and f"identical, {len(CONTROLS)} steps" in out


@pytest.mark.parametrize("command", ["plot", "render", "replay"])
def test_a_world_the_recording_does_not_hold_is_refused_in_one_line_naming_its_worlds(worlds_run, tmp_path, capsys,
                                                                                      command):
    extra = {"plot": [], "render": ["--out", str(tmp_path / "r.png")], "replay": ["--scene", "recorded"]}[command]
    assert main([command, str(worlds_run.recording), "--world", "2", *extra]) == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "--world 2" in error and "holds worlds 0 to 1" in error


def test_foxglove_body_poses_are_world_zeros_alone(worlds_run):
    from coupler.record.channels import TRANSFORMS_TOPIC

    transforms = [m for m in Recording(worlds_run.recording) if m.topic == TRANSFORMS_TOPIC]
    assert len(transforms) == len(_states(worlds_run.recording, 0)) == len(CONTROLS)
