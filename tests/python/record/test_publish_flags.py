"""The flags of --publish and `coupler record`: refused values in one line; CURVE from the command line."""

import signal
import subprocess
import sys

from coupler.record.recording import Recording
from coupler.transport.curve_keys import create_key_pair, load_key_pair, load_public_key
from coupler.serve.serve_process import ServeProcess
from peers import address_for, democlient, run
from recorder_process import RecorderProcess


def coupler(*args: str) -> subprocess.CompletedProcess:
    return run([sys.executable, "-m", "coupler.cli", *args], timeout=60)


def test_publishing_on_an_address_other_machines_reach_is_refused_without_allow_remote(tmp_path):
    result = coupler("serve", "--addr", address_for("ipc", tmp_path), "--publish", "tcp://192.0.2.1:5556")
    assert result.returncode == 1
    assert result.stdout.strip().splitlines()[-1].startswith("coupler serve: refusing to bind tcp://192.0.2.1:5556")


def test_a_publish_queue_of_zero_is_refused_naming_the_flag(tmp_path):
    result = coupler("serve", "--publish", "ipc://x", "--publish-hwm", "0")
    assert result.returncode == 2 and "argument --publish-hwm" in result.stdout


def test_a_record_duration_that_is_not_a_number_is_refused_naming_the_flag(tmp_path):
    result = coupler("record", "--addr", "ipc://x", str(tmp_path / "run.mcap"), "--duration", "soon")
    assert result.returncode == 2 and "argument --duration" in result.stdout


def test_a_curve_server_publishes_encrypted_to_a_recorder_with_an_allowed_key(tmp_path):
    keys, allowed = tmp_path / "keys", tmp_path / "allowed"
    create_key_pair(keys, "server")
    create_key_pair(allowed, "client")
    address = f"tcp://127.0.0.1:{address_for('tcp', tmp_path).rsplit(':', 1)[1]}"
    published = address_for("tcp", tmp_path)
    curve = ["--curve-server-key", str(keys / "server.key"), "--curve-key", str(allowed / "client.key_secret")]
    with ServeProcess(["--publish", published, "--curve-secret", str(keys / "server.key_secret"),
                       "--curve-allow", str(allowed)], address=address) as server:
        recorder = RecorderProcess("--addr", published, str(tmp_path / "run.mcap"), *curve)
        try:
            client_keys = {"curve_server_key": load_public_key(keys / "server.key"),
                           "curve_key_pair": load_key_pair(allowed / "client.key_secret")}
            recorder.until_receiving(address, **client_keys)
            result = run([str(democlient()), "--addr", address, "--range", "20", *curve])
            assert result.returncode == 0, result.stdout
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=30)
    output = recorder.output()
    assert "recorded:" in output, output
    assert [m.kind for m in Recording(tmp_path / "run.mcap")].count("Control") > 21, output  # the pick approach, then 21 more
