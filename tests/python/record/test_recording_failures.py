"""Recordings that fail say so: a writer killed while serving, a publisher refusing the recorder's keys, a
file that cannot grow."""

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

from coupler.cli import main
from coupler.controller.session import Session
from coupler.record.publisher import FramePublisher
from coupler.record.recording import Recording
from coupler.serve.serve_process import ServeProcess
from coupler.transport.curve_keys import create_key_pair, load_key_pair, load_public_keys
from coupler.transport.options import TransportOptions
from coupler.wire.codec import encode
from coupler.wire.messages import ErrorMessage
from peers import REPO, address_for


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def test_a_writer_killed_while_serving_is_said_at_once_serving_goes_on_and_the_server_exits_1_saying_what_is_missing(
        tmp_path):
    address = address_for("ipc", tmp_path)
    recording = tmp_path / "run.mcap"
    with ServeProcess(["--scene", "arm", "--record", str(recording)], address=address) as server:
        with Session(address, timeout=5.0) as session:
            controls = session.controls()
            for _ in range(20):
                session.step(controls)
            [writer] = _children(server.pid)
            os.kill(writer, signal.SIGKILL)
            deadline = time.monotonic() + 3.0
            while "writer process killed by SIGKILL" not in server.output() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert "writer process killed by SIGKILL" in server.output()
            for _ in range(30):
                session.step(controls)  # still served
        server.send_signal(signal.SIGINT)
        assert server.wait(30) == 1
    assert "recorded:              INCOMPLETE: the writer process killed by SIGKILL;" in server.output()
    missing = int(server.output().split("lacks at least the last ")[1].split()[0])
    assert missing >= 90  # 30 Controls, their states and answers (and the goodbye)


def test_record_refused_by_a_curve_publisher_exits_1_at_once_naming_the_keys(tmp_path, capsys):
    create_key_pair(tmp_path / "server", "server")
    create_key_pair(tmp_path / "allowed", "ok")
    create_key_pair(tmp_path / "other", "other")
    publisher = FramePublisher()
    try:
        endpoint = publisher.bind("tcp://127.0.0.1:0", 10, TransportOptions(
            curve_key_pair=load_key_pair(tmp_path / "server" / "server.key_secret"),
            curve_allowed_clients=tuple(load_public_keys(tmp_path / "allowed"))))
        started = time.monotonic()
        status = main(["record", "--addr", endpoint, str(tmp_path / "run.mcap"), "--quiet", "--duration", "20",
                       "--curve-server-key", str(tmp_path / "server" / "server.key"),
                       "--curve-key", str(tmp_path / "other" / "other.key_secret")])
    finally:
        publisher.close()
    assert status == 1 and time.monotonic() - started < 10
    assert "the publisher refused this subscriber's key" in capsys.readouterr().out
    assert not (tmp_path / "run.mcap").exists()


def test_a_full_disk_stops_writing_and_the_summary_counts_only_what_the_file_holds(tmp_path):
    publisher = FramePublisher()
    limit = 600_000  # bytes the writer may write (RLIMIT_FSIZE): a full disk

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    try:
        endpoint = publisher.bind(f"ipc://{tmp_path}/published", 100_000)
        writer = subprocess.Popen([sys.executable, "-m", "coupler.cli", "record", "--addr", endpoint,
                                   str(tmp_path / "run.mcap"), "--quiet"], cwd=REPO, preexec_fn=limited,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert publisher.wait_for_subscribers(1, 30.0)
        for _ in range(400):  # 4 MB that do not compress
            publisher.on_answer(encode(ErrorMessage(code=1, text=os.urandom(5000).hex())), b"", time.time(), None)
        time.sleep(0.5)
        publisher.send_end()
        output, _ = writer.communicate(timeout=60)
    finally:
        publisher.close()
    assert writer.returncode == 1, output
    assert "before writing failed" in output and "File too large" in output, output
    in_file = int(output.split("recorded:")[1].split(" messages in")[0])
    assert 0 < in_file == len(list(Recording(tmp_path / "run.mcap")))
