"""A recording of the C++ demo controller on the arm scene, shared by the record tests."""

import signal

import pytest

from coupler.serve.serve_process import ServeProcess
from peers import address_for, democlient, run


@pytest.fixture(scope="session")
def demo_recording(tmp_path_factory) -> object:
    """The C++ demo controller's pick approach on the arm scene, recorded; the server stopped with SIGINT."""
    folder = tmp_path_factory.mktemp("recording")
    address = address_for("ipc", folder)
    recording = folder / "demo.mcap"
    with ServeProcess(["--record", str(recording)], address=address) as server:
        try:
            result = run([str(democlient()), "--addr", address, "--range", "50"])
            assert result.returncode == 0, result.stdout
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=30)
    output = server.output()
    assert "recorded:" in output and ", 0 dropped" in output, output
    return recording
