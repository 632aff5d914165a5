"""A hostile MJCF file is refused in one line before it can hang, exhaust or confuse the server: files that are
not regular, models that compile beyond the announced time and memory, time steps `--step` would refuse, and
names with newlines or escape sequences (escaped wherever they are printed)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

pytest.importorskip("mujoco")

from coupler.cli import main  # noqa: E402
from coupler.cli.info import describe  # noqa: E402
from coupler.mujoco.bounded_compile import check_compiles  # noqa: E402
from coupler.scenes import load_scene  # noqa: E402
from coupler.wire.errors import Error  # noqa: E402
from peers import coupler_server  # noqa: E402

_BODY = "<body name='b'><joint axis='0 1 0'/><geom size='0.1' mass='1'/></body>"


def _model(folder: Path, text: str, name: str = "model.xml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("where", ["mesh", "meshdir", "include"])
def test_a_model_naming_a_fifo_is_refused_before_anything_opens_it(tmp_path, where):
    meshes = tmp_path / "meshes"
    meshes.mkdir()
    os.mkfifo(meshes / "part.stl")
    os.mkfifo(tmp_path / "part.xml")
    body = {
        "mesh": "<asset><mesh name='m' file='meshes/part.stl'/></asset>",
        "meshdir": "<compiler meshdir='meshes'/><asset><mesh name='m' file='part.stl'/></asset>",
        "include": "<include file='part.xml'/>",
    }[where]
    model = _model(tmp_path, f"<mujoco>{body}<worldbody>{_BODY}</worldbody></mujoco>")
    started = time.monotonic()
    with pytest.raises(Error, match=r"which is not a regular file \(a FIFO, a device or a folder\): refused"):
        load_scene(str(model))
    assert time.monotonic() - started < 5.0


def test_a_model_that_needs_more_memory_than_announced_is_refused_in_one_line(tmp_path):
    # 291 bytes declaring a 40000x40000 height field: 6 GB to compile.
    model = _model(tmp_path, "<mujoco><asset><hfield name='h' nrow='40000' ncol='40000' size='1 1 1 1'/></asset>"
                             f"<worldbody><geom type='hfield' hfield='h'/>{_BODY}</worldbody></mujoco>")
    with pytest.raises(Error, match=r"did not compile within 4 GiB of memory: refused"):
        load_scene(str(model))


def test_a_model_that_compiles_longer_than_the_bound_is_refused_once_it_is_up(tmp_path):
    model = _model(tmp_path, "<mujoco><worldbody><flexcomp name='f' type='grid' count='400 400 1' "
                             f"spacing='0.01 0.01 0.01' radius='0.001' dim='2'/>{_BODY}</worldbody></mujoco>")
    started = time.monotonic()
    with pytest.raises(Error, match=r"did not compile within 0.3 s: refused"):
        check_compiles(model, seconds=0.3)
    assert time.monotonic() - started < 3.0


@pytest.mark.parametrize("time_step", ["nan", "1e-300", "-1"])
def test_a_model_time_step_that_step_would_refuse_is_refused_in_one_line(tmp_path, capsys, time_step):
    model = _model(tmp_path, f"<mujoco><option timestep='{time_step}'/><worldbody>{_BODY}</worldbody></mujoco>")
    assert main(["serve", "--scene", str(model), "--addr", f"ipc://{tmp_path / 's.sock'}"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"has a time step of {time_step} s: coupler serves time steps from" in err[0], err


_EVIL = "b&#10;serving scene 'x' () on tcp://10.0.0.1:5555, mode&#27;[31m"


def test_names_with_newlines_and_escape_sequences_are_escaped_in_the_serving_line_and_in_info(tmp_path):
    model = _model(tmp_path, f"<mujoco><worldbody><body name=\"{_EVIL}\"><joint name='j&#10;k' axis='0 1 0'/>"
                             "<geom size='0.1' mass='1'/></body></worldbody>"
                             "<actuator><motor name='m&#27;[2J' joint='j&#10;k'/></actuator></mujoco>")
    address = f"ipc://{tmp_path / 's.sock'}"
    with coupler_server(address, "--scene", str(model)) as process:
        assert process.endpoint == address
        described = describe(load_scene(str(model)).handshake())
    serving = next(line for line in process.output().splitlines() if line.startswith("serving scene"))
    assert "b\\nserving scene 'x' () on tcp://10.0.0.1:5555, mode\\x1b[31m" in serving
    assert "\x1b" not in process.output() and "\x1b" not in described
    assert "j\\nk" in described and "b\\n" in described
    assert not any(line.startswith("serving scene") for line in described.splitlines())
