"""`coupler keygen` writes CurveZMQ key pairs that ZeroMQ can use."""

import stat

import pytest
import zmq

from coupler.cli import main
from coupler.transport.curve_keys import create_key_pair, load_key_pair, load_public_key
from coupler.wire.errors import Error


def test_keygen_writes_a_public_and_a_secret_key_file(tmp_path, capsys):
    assert main(["keygen", "controller1", "--dir", str(tmp_path)]) == 0
    assert (tmp_path / "controller1.key").is_file()
    assert stat.S_IMODE((tmp_path / "controller1.key_secret").stat().st_mode) == 0o600
    assert "controller1.key" in capsys.readouterr().out


def test_the_public_key_file_matches_the_secret_key_file(tmp_path):
    public_file, secret_file = create_key_pair(tmp_path, "server")
    public, secret = load_key_pair(secret_file)
    assert load_public_key(public_file) == public
    assert zmq.curve_public(secret) == public


def test_keygen_refuses_to_replace_a_key_pair_without_force(tmp_path, capsys):
    create_key_pair(tmp_path, "server")
    assert main(["keygen", "server", "--dir", str(tmp_path)]) == 1
    assert "pass --force" in capsys.readouterr().err
    assert main(["keygen", "server", "--dir", str(tmp_path), "--force"]) == 0


def test_a_public_key_file_is_not_accepted_as_a_key_pair(tmp_path):
    public_file, _ = create_key_pair(tmp_path, "client")
    with pytest.raises(Error, match="holds no secret key"):
        load_key_pair(public_file)


def test_a_key_name_with_a_path_is_refused(tmp_path):
    with pytest.raises(Error, match="plain file name"):
        create_key_pair(tmp_path, "../escape")
