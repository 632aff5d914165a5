"""`coupler record` of a server's --publish address: the same recording as --record, replayed identical."""

import signal
import sys

from coupler.record.recording import Recording
from coupler.serve.serve_process import ServeProcess
from peers import address_for, democlient, run
from recorder_process import RecorderProcess


def _record_a_demo_run(tmp_path, *record_flags: str) -> tuple[str, str]:
    """Serve with --publish, record it with `coupler record`, drive the demo, stop the server; the recorder's
    and the server's output."""
    address = address_for("ipc", tmp_path)
    published = f"ipc://{tmp_path}/published"
    with ServeProcess(["--publish", published], address=address) as server:
        recorder = RecorderProcess("--addr", published, str(tmp_path / "run.mcap"), *record_flags)
        try:
            recorder.until_receiving(address)
            result = run([str(democlient()), "--addr", address, "--range", "50"])
            assert result.returncode == 0, result.stdout
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=30)
    return recorder.output(), server.output()


def test_coupler_record_stops_when_the_server_stops_and_its_recording_replays_identical(tmp_path):
    recorder_output, server_output = _record_a_demo_run(tmp_path)
    assert "recorded:" in recorder_output and ", 0 dropped" in recorder_output, recorder_output
    assert "published:" in server_output, server_output
    kinds = [m.kind for m in Recording(tmp_path / "run.mcap")]
    assert kinds.count("Control") > 50 and kinds.count("mujoco_state") >= kinds.count("Control")
    replayed = run([sys.executable, "-m", "coupler.cli", "replay", str(tmp_path / "run.mcap"), "--scene", "recorded"])
    assert replayed.returncode == 0 and "identical, " in replayed.stdout, replayed.stdout


def test_coupler_record_stops_after_the_frames_asked_for(tmp_path):
    recorder_output, _ = _record_a_demo_run(tmp_path, "--max-messages", "30")
    assert "recorded:              30 messages" in recorder_output, recorder_output
    streamed = [m for m in Recording(tmp_path / "run.mcap") if not m.topic.startswith("/coupler/foxglove/")]
    assert len(streamed) == 30  # besides them, the 3D scene derived from the states


def test_coupler_record_of_an_address_it_cannot_use_says_so_in_one_line(tmp_path):
    result = run([sys.executable, "-m", "coupler.cli", "record", "--addr", "nonsense", str(tmp_path / "run.mcap")])
    assert result.returncode == 1
    assert result.stdout.strip() == ("coupler record: address 'nonsense' names no transport: use tcp://HOST:PORT, "
                                     "ipc://PATH or inproc://NAME"), result.stdout
