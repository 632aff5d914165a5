"""ServeProcess: a `coupler serve` subprocess started, awaited until it serves, and stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from coupler.serve.serve_process import ServeProcess, serving_endpoint
from coupler.transport.client import Client
from coupler.wire.errors import Error
from coupler.wire.messages import SensorMessage, SensorRequestMessage


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(code)]


def _gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_it_returns_once_the_server_answers_on_the_endpoint_it_bound():
    with ServeProcess(["--scene", "static"], address="tcp://127.0.0.1:0") as server:
        assert server.endpoint is not None and not server.endpoint.endswith(":0")
        with Client(server.endpoint, timeout=5.0) as client:
            assert isinstance(client.request(SensorRequestMessage()), SensorMessage)


def test_a_server_that_exits_before_serving_is_an_error_naming_its_status_and_output():
    with pytest.raises(Error, match=r"coupler serve exited with status 1 before serving: .*no scene 'no_such_scene'"):
        ServeProcess(["--scene", "no_such_scene"]).start()


def test_a_server_that_does_not_serve_in_time_is_an_error_and_is_stopped():
    server = ServeProcess(command=_python("""
        import time
        print('loading a large model', flush=True)
        time.sleep(60)
    """), start_timeout=0.5)
    with pytest.raises(Error, match=r"did not serve within 0.5 s: loading a large model"):
        server.start()
    assert server.poll() is not None


def test_closing_kills_a_server_that_ignores_sigterm():
    server = ServeProcess(command=_python("""
        import signal, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print("serving scene 'x' (x) on ipc:///nowhere, mode lockstep", flush=True)
        time.sleep(60)
    """), stop_timeout=0.5).start()
    assert server.close() == -signal.SIGKILL


def test_leaving_the_context_stops_the_server_with_sigterm():
    with ServeProcess(["--scene", "static"]) as server:
        pass
    assert server.returncode == 0  # SIGTERM: a clean stop, summary printed
    assert "steps:" in server.output()


def test_closing_stops_the_server_and_removes_its_private_folder():
    server = ServeProcess(["--scene", "static"]).start()
    folder = Path(server.endpoint.removeprefix("ipc://")).parent  # type: ignore[union-attr]
    assert folder.is_dir()
    server.close()
    assert server.poll() is not None
    assert not folder.exists()


def test_the_server_dies_with_its_owner():
    owner = subprocess.Popen(_python("""
        import sys, time
        from coupler.serve.serve_process import ServeProcess
        server = ServeProcess(["--scene", "static"]).start()
        print(server.pid, flush=True)
        time.sleep(60)
    """), stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None
        pid = int(owner.stdout.readline())
    finally:
        owner.kill()
        owner.wait(10)
    assert _gone(pid, 10.0), f"server {pid} outlived its owner"


def test_an_address_among_the_flags_is_refused_naming_the_keyword():
    with pytest.raises(Error, match="as address=, not as --addr"):
        ServeProcess(["--addr", "tcp://127.0.0.1:5555"])


def test_a_server_that_prints_no_serving_line_serves_once_it_answers_the_probe(tmp_path):
    # A server of another kind that binds late, prints nothing, and answers a SensorRequest with an empty state.
    address = f"ipc://{tmp_path / 'quiet.sock'}"
    with ServeProcess(command=_python(f"""
        import time
        from coupler.transport.server import Server
        from coupler.wire.messages import SensorMessage
        time.sleep(0.5)
        with Server({address!r}) as server:
            while True:
                request = server.receive(60.0)
                server.reply(request, SensorMessage(simulated_time=1.5))
    """), address=address, probe=SensorRequestMessage()) as server:
        assert server.endpoint == address
        with Client(address, timeout=5.0) as client:
            assert client.request(SensorRequestMessage()) == SensorMessage(simulated_time=1.5)


def test_a_server_that_speaks_no_protocol_serves_once_the_probe_function_says_so(tmp_path):
    address = f"ipc://{tmp_path / 'raw.sock'}"
    asked: list[str] = []

    def answers(at: str) -> bool:
        asked.append(at)
        return len(asked) == 3

    with ServeProcess(command=_python("import time; time.sleep(60)"), address=address, probe=answers) as server:
        assert server.poll() is None
        assert asked == [address] * 3 and server.endpoint == address


def test_a_probe_for_coupler_serve_is_refused_as_it_prints_its_serving_line():
    with pytest.raises(Error, match="a probe is for a server of another kind"):
        ServeProcess(["--scene", "static"], probe=SensorRequestMessage())


@pytest.mark.parametrize(("line", "endpoint"), [
    ("serving scene 'arm' (arm) on tcp://127.0.0.1:40123, mode lockstep, time step 0.002 s", "tcp://127.0.0.1:40123"),
    ("serving scene 'a on b.xml' (arm) on ipc:///tmp/s, mode free, time step 0.01 s", "ipc:///tmp/s"),
    ("publishing on tcp://127.0.0.1:5556", None),
])
def test_the_serving_line_names_the_endpoint(line, endpoint):
    assert serving_endpoint(line) == endpoint
