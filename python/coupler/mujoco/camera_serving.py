"""A MuJoCo scene's cameras made servable: announced in its handshake (the "images" extension) and rendered
on request (`coupler.mujoco.offscreen_cameras`)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence

from coupler.mujoco.offscreen_cameras import OffscreenCameras
from coupler.mujoco.cameras import MAX_HEIGHT, MAX_WIDTH, CameraSize, camera_descriptions
from coupler.mujoco.offscreen import available_backends
from coupler.mujoco.simulation import MujocoSimulation
from coupler.wire.messages import EXTENSION_IMAGES, ServerInfo
from coupler.wire.peer_text import shown

log = logging.getLogger(__name__)


def serve_cameras(simulation: MujocoSimulation, sizes: Sequence[CameraSize] = ()) -> str | None:
    """Announce `simulation`'s cameras in its handshake and render them when asked; the line saying so (or why
    they are not served), None for a model without cameras. coupler.Error for a size of a camera it lacks."""
    cameras, left_out = camera_descriptions(simulation.model, {size.camera: size for size in sizes})
    for problem in left_out:
        log.warning("camera not served: %s", problem)
    if not cameras:
        simulation.images_unavailable = "this scene has no camera to serve"
        return None
    backends, reason = available_backends()
    if not backends:
        simulation.images_unavailable = f"this server renders no cameras: {reason}"
        return f"cameras not served: {reason}"
    handshake = simulation.layout.handshake
    extensions = list(handshake.server.extensions) if handshake.server is not None else []
    simulation.layout.handshake = dataclasses.replace(
        handshake, cameras={camera.name: camera for camera in cameras}, max_image_width=MAX_WIDTH,
        max_image_height=MAX_HEIGHT, server=ServerInfo(extensions=[*extensions, EXTENSION_IMAGES]))
    simulation.images = OffscreenCameras(simulation.model, simulation.data, cameras, backends)
    named = ", ".join(f"{shown(c.name)} ({c.width}x{c.height})" for c in cameras)
    return f"cameras: {named}, rendered offscreen with {backends[0].upper()}"
