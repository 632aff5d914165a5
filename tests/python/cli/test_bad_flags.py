"""Every bad value on the command line of `coupler serve`, `python -m demo.client` and the
C++ democlient ends in one line naming the flag, exit code 2 (or 1 for what only shows
once the value is used), and never a traceback."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from coupler import limits
from peers import democlient

SERVE = [sys.executable, "-m", "coupler.cli", "serve"]
DEMO_CLIENT = [sys.executable, "-m", "demo.client"]
TIMEOUT = 60.0


def run_flags(program: list[str], flags: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*program, *flags], capture_output=True, text=True, timeout=TIMEOUT, cwd=Path(__file__).resolve().parents[3])


def assert_refused_in_one_line(result: subprocess.CompletedProcess[str], names: str, codes: tuple[int, ...] = (2,)) -> None:
    output = result.stderr + result.stdout
    assert result.returncode in codes, output
    assert "Traceback" not in output
    # argparse puts its usage lines (indented, after "usage:") before the one line of the error.
    error_lines = [line for line in result.stderr.splitlines()
                   if line.strip() and not line.startswith((" ", "usage:"))]
    assert len(error_lines) == 1, result.stderr
    assert names in error_lines[0], result.stderr


SERVE_BAD_FLAGS = [
    ["--max-frame-bytes", "99999999999999999999"],
    ["--max-frame-bytes", "-1"],
    ["--controllers", "1000000"],
    ["--controllers", "0"],
    ["--stop-after", "-5"],
    ["--stop-after", "nan"],
    ["--speed", "nan", "--mode", "free"],
    ["--speed", "inf", "--mode", "free"],
    ["--speed", "0", "--mode", "free"],
    ["--step", "inf"],
    ["--step", "nan"],
    ["--step", "1e-300"],
    ["--step", "-0.001"],
    ["--session-timeout", "nan"],
    ["--session-timeout", "-1"],
    ["--heartbeat", "nan"],
    ["--heartbeat", "inf"],
    ["--heartbeat", "1e-9"],
]


@pytest.mark.parametrize("flags", SERVE_BAD_FLAGS, ids=" ".join)
def test_serve_refuses_a_bad_number_in_one_line_naming_the_flag(flags: list[str]) -> None:
    assert_refused_in_one_line(run_flags(SERVE, flags), flags[0])


# Flags whose values, or whose combination, serve cannot take; the text the refusal names, and its exit status.
SERVE_BAD_COMBINATIONS = [
    (["--realtime", "--mode", "free"], "--realtime applies to --mode lockstep", 2),
    (["--camera", "overview"], "--camera takes NAME=WIDTHxHEIGHT", 2),
    (["--camera", "overview=64x0"], "--camera", 2),
    (["--scene", "arm", "--camera", "overview=64x48", "--no-cameras"], "--camera with --no-cameras", 1),
]


@pytest.mark.parametrize("flags, named, code", SERVE_BAD_COMBINATIONS,
                         ids=[" ".join(flags) for flags, _, _ in SERVE_BAD_COMBINATIONS])
def test_serve_refuses_flags_it_cannot_take_together_in_one_line_naming_them(flags, named, code, tmp_path) -> None:
    result = run_flags(SERVE, [*flags, "--addr", f"ipc://{tmp_path / 's'}"])
    assert_refused_in_one_line(result, named, codes=(code,))


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:99999", "tcp://127.0.0.1:", "ws://0.0.0.0:5555",
                                     "udp://127.0.0.1:5555"])
def test_serve_refuses_a_bad_address_in_one_line_naming_it(address: str) -> None:
    assert_refused_in_one_line(run_flags(SERVE, ["--scene", "static", "--addr", address]), address, codes=(1,))


def test_serve_refuses_an_mjcf_file_with_a_syntax_error_in_one_line_naming_file_and_line(tmp_path: Path) -> None:
    scene = tmp_path / "broken.xml"
    scene.write_text("<mujoco>\n  <worldbody>\n    <body name='a'>\n  </worldbody>\n</mujoco>\n")
    result = run_flags(SERVE, ["--scene", str(scene), "--addr", f"ipc://{tmp_path / 's'}"])
    assert_refused_in_one_line(result, str(scene), codes=(1,))
    assert "line" in result.stderr.lower()


DEMO_CLIENT_BAD_FLAGS = [
    ["--timeout", "nan"],
    ["--timeout", "inf"],
    ["--timeout", "0"],
    ["--range", "-1"],
    ["--range", "99999999999999999999"],
    ["--max-frame-bytes", "99999999999999999999"],
    ["--heartbeat", "nan"],
]


@pytest.mark.parametrize("flags", DEMO_CLIENT_BAD_FLAGS, ids=" ".join)
def test_demo_client_refuses_a_bad_number_in_one_line_naming_the_flag(flags: list[str]) -> None:
    assert_refused_in_one_line(run_flags(DEMO_CLIENT, flags), flags[0])


@pytest.mark.parametrize("flags", DEMO_CLIENT_BAD_FLAGS + [["--timeout", "1e-9"], ["--heartbeat", "-1"]], ids=" ".join)
def test_democlient_refuses_a_bad_number_in_one_line_naming_the_flag(flags: list[str]) -> None:
    assert_refused_in_one_line(run_flags([str(democlient())], flags), flags[0])


# Just beyond the widest value each flag takes, and the range the refusal names.
BEYOND_THE_WIDEST = [
    ("--timeout", str(limits.MAX_TIMEOUT * 2), f"from {limits.MIN_TIMEOUT:g} to {limits.MAX_TIMEOUT:g}"),
    ("--heartbeat", str(limits.MAX_HEARTBEAT * 2), f"from {limits.MIN_HEARTBEAT:g} to {limits.MAX_HEARTBEAT:g}"),
    ("--range", str(limits.MAX_RANGE + 1), f"from 0 to {limits.MAX_RANGE}"),
    ("--max-frame-bytes", str(limits.LARGEST_FRAME_LIMIT + 1), f"from 0 to {limits.LARGEST_FRAME_LIMIT}"),
]


@pytest.mark.parametrize("flag, value, bounds", BEYOND_THE_WIDEST, ids=lambda x: x if x.startswith("--") else "")
def test_both_demo_clients_refuse_a_value_just_beyond_the_widest_naming_the_same_bounds(flag, value, bounds) -> None:
    for program in (DEMO_CLIENT, [str(democlient())]):
        result = run_flags(program, [flag, value])
        assert_refused_in_one_line(result, flag)
        assert bounds in result.stderr, result.stderr


def test_democlient_timeout_counts_seconds(tmp_path: Path) -> None:
    # Nobody serves this path, so the client waits out its whole timeout: one second, where a
    # count of milliseconds would give up after one millisecond.
    started = time.monotonic()
    result = run_flags([str(democlient())], ["--addr", f"ipc://{tmp_path / 'nobody'}", "--timeout", "1"])
    waited = time.monotonic() - started
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert waited >= 0.9, f"gave up after {waited:.3f} s"
