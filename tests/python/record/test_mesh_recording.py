"""A recording of a scene with mesh assets, an included file and `fromto` capsules is self-contained: it
replays identical and renders from any folder after the scene's files are gone, with every value exactly
as it was run."""

import shutil
import signal
import subprocess
import sys

from coupler.cli import main
from coupler.controller.session import Session
from coupler.serve.serve_process import ServeProcess
from peers import address_for

# A slider pushing a box whose shape is a mesh file beside the model (meshdir), with a damping of more digits
# than MuJoCo's re-saved MJCF keeps, carrying a pole from an included file whose `fromto` capsules MuJoCo's
# re-saved MJCF rounds (stepped from that text it differs from the first step): only the model as run
# replays identical.
MODEL = """<mujoco>
  <compiler meshdir="meshes"/>
  <option timestep="0.002"/>
  <asset><mesh name="cube" file="cube.obj"/></asset>
  <worldbody>
    <body name="cart">
      <joint name="slide" type="slide" axis="1 0 0" damping="0.12345678901234567"/>
      <geom type="mesh" mesh="cube" mass="0.3141592653589793"/>
      <include file="pole.xml"/>
    </body>
  </worldbody>
  <actuator>
    <motor name="slide" joint="slide" gear="1.2345678901234567"/>
    <motor name="pole_motor" joint="hinge" gear="0.3"/>
  </actuator>
  <sensor><jointpos name="slide" joint="slide"/></sensor>
</mujoco>
"""
POLE = """<mujoco>
  <body name="pole" pos="0 0 0.1">
    <joint name="hinge" type="hinge" axis="0.3 1 0.2" damping="0.01"/>
    <geom type="capsule" fromto="0 0 0 0.13 0.07 0.31" size="0.02" mass="0.2"/>
    <geom type="capsule" fromto="0.13 0.07 0.31 -0.05 0.11 0.37" size="0.015" mass="0.05"/>
  </body>
</mujoco>
"""
CUBE = "".join(f"v {x} {y} {z}\n" for x in (-0.1, 0.1) for y in (-0.1, 0.1) for z in (-0.1, 0.1)) + """\
f 1 3 4 2
f 5 6 8 7
f 1 2 6 5
f 3 7 8 4
f 1 5 7 3
f 2 4 8 6
"""


def _record_mesh_scene(folder, recording) -> None:
    (folder / "meshes").mkdir(parents=True)
    (folder / "meshes" / "cube.obj").write_text(CUBE)
    (folder / "pole.xml").write_text(POLE)
    (folder / "scene.xml").write_text(MODEL)
    address = address_for("ipc", folder)
    with ServeProcess(["--scene", str(folder / "scene.xml"), "--record", str(recording)], address=address) as server:
        with Session(address, timeout=5.0) as session:
            controls = session.controls()
            for i in range(40):
                controls["cart"][:] = 0.7 * (i % 7)
                session.step(controls)
        server.send_signal(signal.SIGINT)
        server.wait(30)


def test_a_mesh_scene_recording_replays_identical_and_renders_from_another_folder_without_the_scene(
        tmp_path, monkeypatch, capsys):
    recording = tmp_path / "run.mcap"
    _record_mesh_scene(tmp_path / "scene", recording)
    shutil.rmtree(tmp_path / "scene")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["replay", str(recording), "--scene", "recorded"]) == 0
    assert "identical, 40 steps" in capsys.readouterr().out
    # Rendering in a process of its own: OpenGL's platform is chosen once per process, at MuJoCo's first renderer.
    rendered = subprocess.run([sys.executable, "-m", "coupler.cli", "render", str(recording), "--out", "strip.png",
                               "--fps", "10", "--width", "32", "--height", "24"], cwd=elsewhere, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    assert rendered.returncode == 0 and (elsewhere / "strip.png").is_file(), rendered.stdout
