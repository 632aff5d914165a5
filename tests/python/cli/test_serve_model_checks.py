"""`coupler serve` refuses at start-up, in one line, a model it cannot compile or that serves nothing."""

from __future__ import annotations

from pathlib import Path


from peers import coupler_server, free_tcp_address, run, server_command

_SCENERY_ONLY = "<mujoco><worldbody><geom type='plane' size='1 1 0.1'/><body name='wall'><geom size='0.1'/></body>" \
                "</worldbody></mujoco>"


def test_a_model_serving_nothing_is_refused_naming_the_way_to_serve_it(tmp_path: Path) -> None:
    path = tmp_path / "scenery.xml"
    path.write_text(_SCENERY_ONLY)
    result = run(server_command(free_tcp_address(), "--scene", str(path)), timeout=60)
    assert result.returncode != 0
    assert "serves nothing" in result.stdout and "--serve-empty" in result.stdout


def test_a_model_serving_nothing_is_served_with_serve_empty(tmp_path: Path) -> None:
    path = tmp_path / "scenery.xml"
    path.write_text(_SCENERY_ONLY)
    address = free_tcp_address()
    with coupler_server(address, "--scene", str(path), "--serve-empty") as process:
        assert process.poll() is None


_PARTLY_SERVABLE = "<mujoco><worldbody><body name='arm'><joint name='j'/><geom size='0.1'/></body>" \
                   "<body><joint name='k'/><geom size='0.1'/></body></worldbody>" \
                   "<actuator><motor name='m' joint='j'/><motor name='n' joint='k'/></actuator></mujoco>"


def test_a_model_with_parts_it_cannot_serve_is_refused_in_one_line_naming_them(tmp_path: Path) -> None:
    path = tmp_path / "partial.xml"
    path.write_text(_PARTLY_SERVABLE)
    result = run(server_command(free_tcp_address(), "--scene", str(path)), timeout=60)
    assert result.returncode != 0
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, result.stdout
    assert "unnamed body #2" in lines[0] and "actuator 'n'" in lines[0] and "--serve-partial" in lines[0]


def test_a_model_with_parts_it_cannot_serve_is_served_with_serve_partial(tmp_path: Path) -> None:
    path = tmp_path / "partial.xml"
    path.write_text(_PARTLY_SERVABLE)
    with coupler_server(free_tcp_address(), "--scene", str(path), "--serve-partial") as process:
        assert process.poll() is None


def test_a_model_that_does_not_compile_ends_the_server_with_one_line_naming_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.xml"
    path.write_text("<mujoco>\n  <worldbody>\n    <body><joint type='twisty'/></body>\n  </worldbody>\n</mujoco>\n")
    result = run(server_command(free_tcp_address(), "--scene", str(path)), timeout=60)
    assert result.returncode != 0
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, result.stdout
    assert str(path) in lines[0] and "line 3" in lines[0]


def test_a_robot_body_the_model_lacks_ends_the_server_with_one_line_listing_the_bodies(tmp_path: Path) -> None:
    path = tmp_path / "partial.xml"
    path.write_text(_PARTLY_SERVABLE)
    result = run(server_command(free_tcp_address(), "--scene", str(path), "--robot", "base"), timeout=60)
    assert result.returncode != 0
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, result.stdout
    assert "no body named 'base'" in lines[0] and "valid names: 'arm'" in lines[0]
