"""One vocabulary across the `coupler` commands: the server address is --addr, a client's flags are the
same on every client command, plumbing flags work but are not shown, and `coupler --version`."""

from __future__ import annotations

import pytest

import coupler
from coupler import cli

CLIENT_FLAGS = ["--curve-server-key", "--curve-key", "--max-frame-bytes"]
ANSWERED_CLIENT_FLAGS = [*CLIENT_FLAGS, "--timeout", "--heartbeat"]
# The rest of a command line each client command needs besides --addr.
CLIENT_COMMANDS = {
    "info": [],
    "record": ["run.mcap"],
    "replay": ["run.mcap"],
}
HIDDEN = {"serve": ["--stop-on-stdin-eof", "--remove-on-exit"],
          "record": ["--stop-on-stdin-eof", "--nice", "--place-when-told"]}


def _help(capsys, command: str) -> str:
    with pytest.raises(SystemExit) as exited:
        cli.parser().parse_args([command, "--help"])
    assert exited.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", CLIENT_COMMANDS)
def test_every_client_command_takes_the_server_address_as_addr(command):
    args = cli.parser().parse_args([command, "--addr", "ipc:///tmp/server", *CLIENT_COMMANDS[command]])
    assert args.addr == "ipc:///tmp/server"


@pytest.mark.parametrize("command", ["info", "record"])
def test_no_command_takes_the_server_address_as_a_positional_argument(command, capsys):
    with pytest.raises(SystemExit) as exited:
        cli.parser().parse_args([command, "ipc:///tmp/server", *CLIENT_COMMANDS[command]])
    assert exited.value.code == 2
    error = capsys.readouterr().err.splitlines()[-1]
    assert "unrecognized arguments: ipc:///tmp/server" in error or "required: --addr" in error


@pytest.mark.parametrize("command", CLIENT_COMMANDS)
def test_every_client_command_has_the_client_flags(command, capsys):
    shown = _help(capsys, command)
    wanted = CLIENT_FLAGS if command == "record" else ANSWERED_CLIENT_FLAGS  # a subscriber waits for no answer
    assert [flag for flag in wanted if flag not in shown] == []


@pytest.mark.parametrize("command", ["serve", "record"])
def test_the_queue_of_each_subscriber_is_publish_hwm(command):
    extra = ["--addr", "ipc:///tmp/published", "run.mcap"] if command == "record" else []
    args = cli.parser().parse_args([command, *extra, "--publish-hwm", "50"])
    assert args.publish_hwm == 50


@pytest.mark.parametrize(("command", "flag"), [(c, f) for c, flags in HIDDEN.items() for f in flags])
def test_plumbing_flags_are_absent_from_help(command, flag, capsys):
    assert flag not in _help(capsys, command)


@pytest.mark.parametrize(("command", "flag", "value"), [
    ("serve", "--stop-on-stdin-eof", True),
    ("serve", "--remove-on-exit", "/tmp/owned"),
    ("record", "--stop-on-stdin-eof", True),
    ("record", "--nice", 10),
    ("record", "--place-when-told", True),
])
def test_plumbing_flags_still_work(command, flag, value):
    extra = ["--addr", "ipc:///tmp/published", "run.mcap"] if command == "record" else []
    given = [flag] if value is True else [flag, str(value)]
    args = cli.parser().parse_args([command, *extra, *given])
    assert getattr(args, flag.lstrip("-").replace("-", "_")) == value


def test_version_prints_the_packages_version(capsys):
    with pytest.raises(SystemExit) as exited:
        cli.main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"coupler {coupler.__version__}"


def test_serve_fails_like_every_command_with_one_line_and_status_1(capsys):
    assert cli.main(["serve", "--scene", "no_such_scene"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "coupler serve: no scene 'no_such_scene': give one of static, arm, mobile, two_arms or an MJCF file path"]
