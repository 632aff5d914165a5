"""An existing recording is never destroyed before recording has started: the file is written beside its
target and put in place only then; an existing target is refused without --overwrite; no link is followed;
a recording with nothing in it is never reported as a success."""

import errno
import os
import socket

import pytest

from coupler.cli import main
from coupler.record.publisher import FramePublisher
from coupler.record.recording import Recording
from coupler.record.recording_target import RecordingTarget
from coupler.record.stream_recorder import StopWhen, StreamRecorder
from coupler.wire.codec import encode
from coupler.wire.errors import Error
from coupler.wire.messages import ControlMessage
from hostile_recordings import messages_file

GOOD = b"a recording worth keeping"


def _kept(path) -> bool:
    """The file is as it was and nothing was left beside it."""
    return path.read_bytes() == GOOD and [p.name for p in path.parent.iterdir()] == [path.name]


@pytest.fixture
def existing(tmp_path):
    folder = tmp_path / "recordings"
    folder.mkdir()
    path = folder / "run.mcap"
    path.write_bytes(GOOD)
    return path


def test_serve_record_whose_address_is_in_use_leaves_an_existing_recording_as_it_was(existing, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        address = f"tcp://127.0.0.1:{taken.getsockname()[1]}"
        assert main(["serve", "--scene", "static", "--addr", address, "--record", str(existing), "--overwrite"]) == 1
    assert "Address already in use" in capsys.readouterr().err
    assert _kept(existing)


def test_serve_record_refuses_an_existing_file_without_overwrite(existing, capsys):
    assert main(["serve", "--scene", "static", "--addr", "ipc:///nonexistent/x", "--record", str(existing)]) == 1
    assert "exists: pass --overwrite to replace it" in capsys.readouterr().err
    assert _kept(existing)


@pytest.mark.parametrize("command", [["serve", "--scene", "static", "--addr", "ipc:///nonexistent/x", "--record"],
                                     ["record", "--addr", "ipc:///nonexistent/x"]], ids=["serve", "record"])
@pytest.mark.parametrize("target, why", [("recordings", "it is a directory"), ("nodir/run.mcap", "no folder")])
def test_a_target_that_cannot_be_a_recording_is_refused_in_one_line_naming_why(
        existing, capsys, command, target, why):
    path = existing.parent.parent / target
    assert main([*command, str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"cannot record to '{path}': {why}" in err, err
    assert _kept(existing)


@pytest.mark.parametrize("address", ["tpc://127.0.0.1:5556", "tcp://127.0.0.1:99999", "tcp://127.0.0.1:70000"])
def test_record_of_a_misspelt_or_impossible_address_fails_at_once_in_one_line_leaving_the_file(
        existing, capsys, address):
    assert main(["record", "--addr", address, str(existing), "--overwrite"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("coupler record: ") and "\n" not in err and address in err, err
    assert _kept(existing)


def test_record_that_receives_nothing_fails_and_leaves_an_existing_file_as_it_was(existing, capsys):
    address = f"ipc://{existing.parent.parent}/nobody"
    assert main(["record", "--addr", address, str(existing), "--overwrite", "--duration", "0.3", "--quiet"]) == 1
    assert "recorded:              nothing (received no frame from" in capsys.readouterr().out
    assert _kept(existing)


def _record_one_control(tmp_path, target, overwrite: bool) -> StreamRecorder:
    publisher = FramePublisher()
    try:
        endpoint = publisher.bind(f"ipc://{tmp_path}/published")
        recorder = StreamRecorder(endpoint, target, overwrite=overwrite)
        assert publisher.wait_for_subscribers(1, 5.0)
        publisher.on_request(encode(ControlMessage()), b"", 0.0)
        publisher.send_end()
        recorder.run(StopWhen(duration=5.0))
        recorder.close()
    finally:
        publisher.close()
    return recorder


def test_recording_through_a_link_at_the_target_replaces_the_link_and_never_writes_the_file_it_points_to(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_bytes(GOOD)
    target = tmp_path / "run.mcap"
    target.symlink_to(victim)
    recorder = _record_one_control(tmp_path, target, overwrite=True)
    assert recorder.failed is None and recorder.placed
    assert victim.read_bytes() == GOOD
    assert not target.is_symlink() and [m.kind for m in Recording(target)] == ["Control"]
    assert oct(target.stat().st_mode & 0o777) == oct(0o644 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_dangling_link_at_the_target_is_refused_without_overwrite(tmp_path):
    target = tmp_path / "run.mcap"
    target.symlink_to(tmp_path / "nowhere")
    with pytest.raises(Exception, match="exists: pass --overwrite"):
        StreamRecorder("ipc:///nonexistent/x", target)
    assert not (tmp_path / "nowhere").exists()


def test_replay_of_a_recording_with_no_steps_fails_saying_nothing_was_replayed(tmp_path, capsys):
    empty = messages_file(tmp_path / "empty.mcap", [])
    assert main(["replay", str(empty), "--addr", f"ipc://{tmp_path}/nobody", "--timeout", "1"]) == 1
    assert "holds no Control answered: nothing was replayed" in capsys.readouterr().err


def test_a_target_that_appears_while_recording_starts_is_left_as_it_is_and_the_recording_kept_beside_it(tmp_path):
    path = tmp_path / "run.mcap"
    target = RecordingTarget(path)
    target.file.write(b"the new run")
    target.file.flush()
    path.write_bytes(GOOD)  # another program's file, made after the check
    with pytest.raises(Error, match="appeared while recording started: left as it is; the recording is in"):
        target.place()
    assert path.read_bytes() == GOOD and target.partial.read_bytes() == b"the new run"
    target.file.close()


def test_on_a_file_system_without_hard_links_the_recording_is_moved_into_place(tmp_path, monkeypatch):
    def no_links(*args, **kwargs):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    target = RecordingTarget(tmp_path / "run.mcap")
    target.file.write(b"the new run")
    target.file.flush()
    target.place()
    target.file.close()
    assert [p.name for p in tmp_path.iterdir()] == ["run.mcap"]
    assert (tmp_path / "run.mcap").read_bytes() == b"the new run"


def test_a_recording_that_cannot_be_placed_is_told_in_one_line(tmp_path, monkeypatch):
    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(os, "link", read_only)
    target = RecordingTarget(tmp_path / "run.mcap")
    with pytest.raises(Error, match=r"^cannot record to '.*run.mcap': Read-only file system$"):
        target.place()
    target.discard()
    target.file.close()
    assert list(tmp_path.iterdir()) == []
