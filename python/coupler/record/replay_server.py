"""A server of a recording's own scene, for `coupler replay --scene`: `coupler serve` in a
subprocess on an ipc:// address of a temporary folder, stopped on exit."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from coupler.record.recording import Recording
from coupler.record.scene_record import MODEL_ATTACHMENT, MODEL_BINARY, SCENE_METADATA
from coupler.record.world_recording import recorded_handshake_worlds
from coupler.serve.serve_process import ServeProcess
from coupler.wire.errors import Error


def recorded_scene(recording: Recording, folder: Path) -> tuple[str, list[str]]:
    """The scene to serve (the recorded model written to `folder`, or for an older recording without it a shipped
    name) and the flags of `coupler serve` that serve it as recorded: its time step, start keyframe and cameras,
    and as many worlds as a batched server's recording holds."""
    recording.read_headers()
    scene = recording.metadata.get(SCENE_METADATA, {})
    name = scene.get("scene", "")
    if not name:
        raise Error(f"{recording.path} does not name its scene; pass --scene")
    flags = []
    for key, flag in (("time_step", "--step"), ("keyframe", "--keyframe")):
        if key in scene:
            flags += [flag, scene[key]]
    worlds = recorded_handshake_worlds(recording)
    if worlds:
        flags += ["--worlds", str(worlds), "--max-frame-bytes", "0"]  # the recorded frames were taken
    # A recording from before cameras were served has none.
    cameras = [camera for camera in scene.get("cameras", "").split(",") if camera]
    flags += [arg for camera in cameras for arg in ("--camera", camera)] if cameras else ["--no-cameras"]
    # The compiled model, as run, whatever the scene was: it holds its assets, so it serves from any folder.
    for attachment in (MODEL_BINARY, MODEL_ATTACHMENT):
        if attachment in recording.attachments and (attachment == MODEL_BINARY or name.endswith(".xml")
                                                    or os.sep in name):
            model = folder / attachment
            model.write_bytes(recording.attachments[attachment])
            return str(model), flags
    return name, flags


@contextlib.contextmanager
def scene_server(scene: str, flags: list[str]) -> Iterator[str]:
    """Serve `scene` in a subprocess with these flags of `coupler serve`; yields its address."""
    with ServeProcess(["--scene", scene, *flags]) as server:
        yield server.endpoint  # type: ignore[misc]
