"""A server of a recording's own scene, for `coupler replay --scene`: `coupler serve` in a
subprocess on an ipc:// address of a temporary folder, stopped on exit."""

from __future__ import annotations

import contextlib
import os
import selectors
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from coupler.record.recording import Recording
from coupler.record.scene_record import MODEL_ATTACHMENT, SCENE_METADATA
from coupler.wire.errors import Error

START_TIMEOUT = 30.0  # seconds for the server to load its scene and bind


def recorded_scene(recording: Recording, folder: Path) -> tuple[str, str | None]:
    """The scene to serve (a shipped name, or the recorded model written to `folder`) and its time step."""
    recording.read_headers()
    scene = recording.metadata.get(SCENE_METADATA, {})
    name = scene.get("scene", "")
    if not name:
        raise Error(f"{recording.path} does not name its scene; pass --scene")
    if MODEL_ATTACHMENT in recording.attachments and (name.endswith(".xml") or os.sep in name):
        model = folder / MODEL_ATTACHMENT
        model.write_bytes(recording.attachments[MODEL_ATTACHMENT])
        name = str(model)
    return name, scene.get("time_step")


@contextlib.contextmanager
def scene_server(scene: str, time_step: str | None) -> Iterator[str]:
    """Serve `scene` in a subprocess; yields its address."""
    with tempfile.TemporaryDirectory(prefix="coupler-replay-") as folder:
        address = f"ipc://{folder}/replay"
        command = [sys.executable, "-m", "coupler.cli", "serve", "--scene", scene, "--addr", address]
        if time_step is not None:
            command += ["--step", time_step]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            _wait_until_serving(process)
            yield address
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


def _wait_until_serving(process: subprocess.Popen) -> None:
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + START_TIMEOUT
    seen: list[str] = []
    while time.monotonic() < deadline:
        if not selector.select(max(0.0, deadline - time.monotonic())):
            break
        line = process.stdout.readline()
        if not line:
            break
        seen.append(line.strip())
        if line.startswith("serving scene"):
            return
    raise Error(f"the replay server did not start within {START_TIMEOUT:.0f} s: {' / '.join(seen[-3:])[:500]}")
