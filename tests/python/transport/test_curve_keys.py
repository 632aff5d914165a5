"""`coupler keygen` writes CurveZMQ key pairs that ZeroMQ can use."""

import os
import stat

import pytest
import zmq
import zmq.auth

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


def test_keygen_into_a_path_that_is_a_file_is_refused_in_one_line(tmp_path, capsys):
    (tmp_path / "keys").write_text("not a directory")
    assert main(["keygen", "server", "--dir", str(tmp_path / "keys")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"{tmp_path / 'keys'} exists and is not a directory") and "\n" not in err


def test_a_key_pair_that_cannot_be_written_leaves_no_file_behind(tmp_path, monkeypatch):
    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space left"):
        create_key_pair(tmp_path, "server")
    assert list(tmp_path.iterdir()) == []


def test_keygen_that_the_machine_refuses_says_why_in_one_line(tmp_path, monkeypatch, capsys):
    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    assert main(["keygen", "server", "--dir", str(tmp_path)]) == 1
    assert capsys.readouterr().err == "coupler keygen: [Errno 28] No space left on device\n"


@pytest.fixture
def open_umask():
    """umask 000 for the test: every mode must come from the code, not from the umask."""
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_keygen_under_umask_000_makes_the_directory_0700_the_public_key_0644_and_the_secret_0600(tmp_path, open_umask):
    directory = tmp_path / "keys"
    public_file, secret_file = create_key_pair(directory, "server")
    assert (mode(directory), mode(public_file), mode(secret_file)) == (0o700, 0o644, 0o600)


def test_keygen_takes_write_access_to_an_existing_directory_from_group_and_others(tmp_path, open_umask):
    directory = tmp_path / "allowed"
    directory.mkdir(mode=0o777)
    create_key_pair(directory, "controller")
    assert mode(directory) == 0o755


def test_the_secret_key_file_is_0600_from_its_creation(tmp_path, open_umask, monkeypatch):
    modes_at_write = []
    real_fdopen = os.fdopen

    def recording_fdopen(handle, *args, **kwargs):
        modes_at_write.append(stat.S_IMODE(os.fstat(handle).st_mode))
        return real_fdopen(handle, *args, **kwargs)

    monkeypatch.setattr(os, "fdopen", recording_fdopen)
    create_key_pair(tmp_path, "server")
    assert modes_at_write and modes_at_write[0] == 0o600


def test_replacing_a_key_pair_with_force_leaves_no_looser_mode_behind(tmp_path, open_umask):
    _, secret_file = create_key_pair(tmp_path, "server")
    secret_file.chmod(0o666)
    _, secret_file = create_key_pair(tmp_path, "server", overwrite=True)
    assert mode(secret_file) == 0o600


def test_key_files_are_read_by_pyzmq_zmq_auth(tmp_path):
    public_file, secret_file = create_key_pair(tmp_path, "server")
    public, secret = zmq.auth.load_certificate(secret_file)
    assert zmq.auth.load_certificate(public_file) == (public, None)
    assert zmq.curve_public(secret) == public


@pytest.mark.parametrize("loose_mode", [0o640, 0o644, 0o666, 0o604])
def test_a_secret_key_that_group_or_others_may_read_is_refused(tmp_path, loose_mode):
    _, secret_file = create_key_pair(tmp_path, "server")
    secret_file.chmod(loose_mode)
    with pytest.raises(Error, match=rf"mode 0{loose_mode:o}.*chmod 600"):
        load_key_pair(secret_file)
