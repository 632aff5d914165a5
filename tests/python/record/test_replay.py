"""`coupler serve --record` of a demo run, replayed with `coupler replay`: identical; a tampered recording diverges."""

import subprocess
import sys

from mcap.writer import Writer

from coupler._proto import coupler_pb2
from coupler.record.recording import Recording
from coupler.serve.serve_process import ServeProcess
from peers import address_for, run


def coupler(*args: str) -> subprocess.CompletedProcess:
    return run([sys.executable, "-m", "coupler.cli", *args])


def test_the_recording_holds_every_request_and_answer_and_a_state_per_step(demo_recording):
    messages = list(Recording(demo_recording))
    kinds = [m.kind for m in messages]
    controls = kinds.count("Control")
    assert controls > 50
    assert kinds.count("Sensor") == controls + kinds.count("SensorRequest")
    assert kinds.count("mujoco_state") >= controls
    assert "HandshakeInit" in kinds and "Handshake" in kinds


def test_replaying_a_demo_recording_against_its_recorded_scene_is_identical(demo_recording):
    result = coupler("replay", str(demo_recording), "--scene", "recorded")
    assert result.returncode == 0, result.stdout
    assert "identical, " in result.stdout


def _tampered(recording, out):
    """A copy of `recording` whose 20th Sensor answer has one angle changed."""
    with open(out, "wb") as stream:
        writer = Writer(stream)
        writer.start(profile="protobuf", library="test")
        channels: dict[str, int] = {}
        schema = writer.register_schema("coupler.v1.SensorMessage", "protobuf", b"")
        sensors = 0
        for message in Recording(recording):
            if message.topic not in channels:
                channels[message.topic] = writer.register_channel(message.topic, "protobuf", schema)
            data = message.data
            if message.kind == "Sensor":
                sensors += 1
                if sensors == 20:
                    sensor = coupler_pb2.SensorMessage.FromString(data)
                    sensor.objects["arm"].angleSensors[1] += 1e-9
                    data = sensor.SerializeToString()
            writer.add_message(channels[message.topic], message.log_time, data, message.publish_time)
        writer.finish()


def test_replaying_a_tampered_recording_reports_the_first_divergence_and_fails(demo_recording, tmp_path):
    tampered = tmp_path / "tampered.mcap"
    _tampered(demo_recording, tampered)
    address = address_for("ipc", tmp_path)
    with ServeProcess(address=address):
        result = coupler("replay", str(tampered), "--addr", address)
    assert result.returncode == 1, result.stdout
    assert "diverged at step" in result.stdout
    assert "object 'arm'" in result.stdout and "angleSensors[1]" in result.stdout


def test_a_recording_of_a_scene_started_at_a_keyframe_replays_from_that_keyframe(tmp_path):
    import signal

    from coupler.controller.session import Session

    scene = tmp_path / "arm.xml"
    scene.write_text("""
<mujoco>
  <worldbody>
    <body name="arm"><joint name="wrist" axis="0 1 0" damping="0.5"/><geom type="capsule" fromto="0 0 0 0.3 0 0"
      size="0.03"/></body>
  </worldbody>
  <actuator><position name="wrist" joint="wrist" kp="5"/></actuator>
  <keyframe><key name="rest"/><key name="raised" qpos="0.4" qvel="0.3" ctrl="0.5"/></keyframe>
</mujoco>""")
    recording = tmp_path / "keyframe.mcap"
    address = address_for("ipc", tmp_path)
    with ServeProcess(["--scene", str(scene), "--keyframe", "raised", "--record", str(recording)],
                      address=address) as server:
        with Session(address, timeout=5.0) as session:
            controls = session.controls()
            for k in range(5):
                controls.set("arm", "wrist", 0.1 * k)
                session.step(controls)
            session.reset()
            session.step(controls)
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
    # The model file itself: MuJoCo's saved copy in the recording may round its numbers in the last digit.
    result = coupler("replay", str(recording), "--scene", str(scene))
    assert result.returncode == 0, result.stdout
    assert "identical, " in result.stdout
