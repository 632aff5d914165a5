"""`coupler serve --worlds N --threads T`: flags that cannot go together end in one line naming them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SERVE = [sys.executable, "-m", "coupler.cli", "serve", "--addr", "tcp://127.0.0.1:0"]
TIMEOUT = 60.0


def _refusal(flags: list[str]) -> tuple[int, list[str]]:
    result = subprocess.run([*SERVE, *flags], capture_output=True, text=True, timeout=TIMEOUT,
                            cwd=Path(__file__).resolve().parents[3])
    assert "Traceback" not in result.stderr + result.stdout
    lines = [line for line in (result.stderr + result.stdout).splitlines()
             if line.strip() and not line.startswith((" ", "usage:"))]
    return result.returncode, lines


@pytest.mark.parametrize("flags, named", [
    (["--worlds", "0"], "--worlds"),
    (["--worlds", "many"], "--worlds"),
    (["--worlds", "2", "--threads", "0"], "--threads"),
    (["--threads", "2"], "--threads"),
    (["--worlds", "2", "--mode", "free"], "--worlds needs --mode lockstep"),
    (["--worlds", "2", "--controllers", "2"], "--worlds takes one controller"),
    (["--world-data", "cfrc_ext"], "--world-data is sent with the answers of --worlds"),
])
def test_a_bad_world_flag_is_refused_in_one_line_naming_it(flags, named):
    code, lines = _refusal(flags)
    assert code == 2
    assert len(lines) == 1 and named in lines[0], lines


def test_worlds_of_a_scene_that_is_not_mujocos_are_refused_in_one_line():
    code, lines = _refusal(["--worlds", "2", "--scene", "static"])
    assert code == 1
    assert len(lines) == 1 and "--worlds needs a MuJoCo scene" in lines[0], lines


def test_world_data_that_is_not_an_array_of_mjdata_is_refused_in_one_line_naming_it():
    code, lines = _refusal(["--worlds", "2", "--scene", "arm", "--world-data", "qpos,no_such_array"])
    assert code == 1
    assert len(lines) == 1 and "mjData has no array of numbers named 'no_such_array'" in lines[0], lines


def test_worlds_whose_control_exceeds_the_servers_frame_limit_are_refused_naming_the_flag_to_raise():
    code, lines = _refusal(["--worlds", "200", "--scene", "arm", "--max-frame-bytes", "4096"])
    assert code == 1
    assert len(lines) == 1 and "beyond --max-frame-bytes 4096: raise it to at least" in lines[0], lines
