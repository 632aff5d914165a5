"""`coupler view`'s flags: where the browser view may listen (loopback unless --allow-remote, as `serve --addr`)."""

from __future__ import annotations

import pytest

from coupler.cli import main
from coupler.cli.view import web_host_and_port
from coupler.wire.errors import Error


@pytest.mark.parametrize(("text", "host", "port"), [("127.0.0.1:8080", "127.0.0.1", 8080),
                                                    ("localhost:0", "localhost", 0), ("[::1]:9000", "::1", 9000)])
def test_a_loopback_address_is_served_without_a_warning(text, host, port):
    assert web_host_and_port(text, allow_remote=False) == (host, port, None)


def test_an_address_reachable_from_other_machines_is_refused_without_allow_remote():
    with pytest.raises(Error) as raised:
        web_host_and_port("0.0.0.0:8080", allow_remote=False)
    assert str(raised.value) == ("refusing --web-addr 0.0.0.0:8080: it is reachable from other machines; use "
                                 "127.0.0.1:PORT, or pass --allow-remote to listen there on purpose")


def test_an_address_reachable_from_other_machines_is_served_with_allow_remote_and_a_warning():
    host, port, warning = web_host_and_port("0.0.0.0:8080", allow_remote=True)
    assert (host, port) == ("0.0.0.0", 8080)
    assert warning == ("--web-addr 0.0.0.0:8080 is reachable from other machines and the page has no authentication: "
                       "anyone who can reach it sees the run")


@pytest.mark.parametrize("text", ["8080", "127.0.0.1", "127.0.0.1:http", "127.0.0.1:70000", ":8080"])
def test_an_address_that_is_not_host_and_port_is_one_clear_error(text):
    with pytest.raises(Error, match=r"^--web-addr '.*' is not HOST:PORT with a port from 0 to 65535, e\.g\. "
                                    r"127\.0\.0\.1:8080$"):
        web_host_and_port(text, allow_remote=False)


def test_the_native_viewer_without_a_display_says_to_use_the_browser(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert main(["view", "--addr", "ipc:///tmp/nobody", "--native"]) == 1
    assert capsys.readouterr().err == ("coupler view: no display to open MuJoCo's viewer on ($DISPLAY is not set): use "
                                       "--web for the browser view\n")


def test_foxglove_of_a_recording_says_to_open_it_in_foxglove(capsys):
    assert main(["view", "run.mcap", "--foxglove"]) == 1
    assert capsys.readouterr().err == ("coupler view: --foxglove serves a live stream; open the recording run.mcap in "
                                       "Foxglove itself (Open local file): it holds the same channels\n")


def test_a_foxglove_address_reachable_from_other_machines_is_refused_naming_its_flag(capsys):
    assert main(["view", "--addr", "ipc:///tmp/nobody", "--foxglove", "--foxglove-addr", "0.0.0.0:8765"]) == 1
    assert capsys.readouterr().err == ("coupler view: refusing --foxglove-addr 0.0.0.0:8765: it is reachable from other "
                                       "machines; use 127.0.0.1:PORT, or pass --allow-remote to listen there on "
                                       "purpose\n")


def test_an_address_given_as_the_recording_is_refused_naming_addr(capsys):
    assert main(["view", "tcp://127.0.0.1:5556", "--web"]) == 1
    assert capsys.readouterr().err == ("coupler view: 'tcp://127.0.0.1:5556' is an address: a live server's publish "
                                       "address goes in --addr (coupler view --addr ADDRESS)\n")


@pytest.mark.parametrize(("args", "problem"), [
    ([], "nothing to watch: give a live server's publish address (--addr) or a recording"),
    (["run.mcap", "--addr", "ipc:///tmp/nobody"], "watch either a live server (--addr) or a recording, not both"),
], ids=["neither", "both"])
def test_view_watches_exactly_one_of_a_live_server_and_a_recording(args, problem, capsys):
    assert main(["view", *args, "--web"]) == 1
    assert capsys.readouterr().err == f"coupler view: {problem}\n"
