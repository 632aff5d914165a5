"""A recording of the C++ demo controller on the arm scene, shared by the record tests."""

import signal
import subprocess
import sys

import pytest

from peers import REPO, address_for, democlient, run, wait_until_serving


@pytest.fixture(scope="session")
def demo_recording(tmp_path_factory) -> object:
    """The C++ demo controller's pick approach on the arm scene, recorded; the server stopped with SIGINT."""
    folder = tmp_path_factory.mktemp("recording")
    address = address_for("ipc", folder)
    recording = folder / "demo.mcap"
    process = subprocess.Popen([sys.executable, "-m", "coupler.cli", "serve", "--addr", address,
                                "--record", str(recording)], cwd=REPO, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        wait_until_serving(address, process)
        result = run([str(democlient()), "--addr", address, "--range", "50"])
        assert result.returncode == 0, result.stdout
    finally:
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=30)
    assert "recorded:" in output and ", 0 dropped" in output, output
    return recording
