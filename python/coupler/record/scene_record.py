"""What a recording keeps of its scene: its name, time step, start keyframe and model, so
that a recording is replayed and rendered without the original files."""

from __future__ import annotations

import tempfile
from pathlib import Path

from coupler.serve.simulation import Simulation

SCENE_METADATA = "coupler.scene"
MODEL_ATTACHMENT = "model.xml"


def scene_metadata(simulation: Simulation, scene: str) -> dict[str, dict[str, str]]:
    handshake = simulation.handshake()
    metadata = {"scene": scene, "time_step": repr(handshake.time_step), "objects": ",".join(handshake.objects)}
    keyframe = getattr(simulation, "start_keyframe", None)
    if keyframe is not None:
        metadata["keyframe"] = str(keyframe)  # its index: the scene starts and resets there
    return {SCENE_METADATA: metadata}


def scene_attachments(simulation: Simulation) -> dict[str, tuple[str, bytes]]:
    """The MuJoCo model as MJCF text (as MuJoCo saves the model just loaded), or nothing for other scenes."""
    model = getattr(simulation, "model", None)
    if model is None:
        return {}
    import mujoco

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / MODEL_ATTACHMENT
        mujoco.mj_saveLastXML(str(path), model)
        return {MODEL_ATTACHMENT: ("application/xml", path.read_bytes())}
