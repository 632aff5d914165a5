"""A server on the arm scene that publishes, with a controller swinging the arm, shared by a module's tests."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from coupler.controller.session import Session
from coupler.serve.serve_process import ServeProcess
from moving_arm import MovingArm, swing


@pytest.fixture(scope="module")
def moving_arm(tmp_path_factory) -> Iterator[MovingArm]:
    folder = tmp_path_factory.mktemp("view")
    arm = MovingArm(f"ipc://{folder}/published")
    stop = threading.Event()
    with ServeProcess(["--scene", "arm", "--publish", arm.publish]) as server, Session(server.endpoint) as session:
        thread = threading.Thread(target=swing, args=(session, arm, stop), daemon=True)
        thread.start()
        try:
            yield arm
        finally:
            stop.set()
            thread.join(timeout=10)
