"""What a recording keeps of its scene: its name, time step, start keyframe, cameras and
model, so that a recording is replayed and rendered from any folder, without the original files.

The model is kept compiled, as MuJoCo's binary MJB (`MODEL_BINARY`): it holds
every asset the model loaded (meshes, textures, height fields, included
files) and every value exactly as it was run. MuJoCo's re-saved MJCF text
(`MODEL_ATTACHMENT`) is kept beside it for people and viewers; it rounds
values and refers to asset files it does not hold, so readers use it only
for recordings that carry no MJB.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from coupler.serve.simulation import Simulation

SCENE_METADATA = "coupler.scene"
MODEL_ATTACHMENT = "model.xml"
MODEL_BINARY = "model.mjb"


def scene_metadata(simulation: Simulation, scene: str) -> dict[str, dict[str, str]]:
    handshake = simulation.handshake()
    metadata = {"scene": scene, "time_step": repr(handshake.time_step), "objects": ",".join(handshake.objects)}
    keyframe = getattr(simulation, "start_keyframe", None)
    if keyframe is not None:
        metadata["keyframe"] = str(keyframe)  # its index: the scene starts and resets there
    # The cameras its handshake offered, at their sizes ("" for none): a replay serves the same.
    metadata["cameras"] = ",".join(f"{c.name}={c.width}x{c.height}" for c in handshake.cameras.values())
    return {SCENE_METADATA: metadata}


def scene_attachments(simulation: Simulation) -> dict[str, tuple[str, bytes]]:
    """The MuJoCo model compiled (MJB) and as MJCF text, or nothing for other scenes."""
    model = getattr(simulation, "model", None)
    if model is None:
        return {}
    import mujoco
    import numpy as np

    binary = np.empty(mujoco.mj_sizeModel(model), dtype=np.uint8)
    mujoco.mj_saveModel(model, None, binary)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / MODEL_ATTACHMENT
        mujoco.mj_saveLastXML(str(path), model)
        return {MODEL_BINARY: ("application/x-mujoco-mjb", binary.tobytes()),
                MODEL_ATTACHMENT: ("application/xml", path.read_bytes())}
