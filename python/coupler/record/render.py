"""Pictures of a recording: its MuJoCo states rendered offscreen by MuJoCo's renderer, from the model
the recording carries, as an MP4 video (H.264 through imageio's ffmpeg), an animated GIF or a PNG strip
of frames.

Offscreen rendering needs an OpenGL: EGL (Mesa's software renderer does on a machine without a GPU)
or OSMesa; MUJOCO_GL chooses, and is set to egl when unset.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from coupler._proto.coupler_record_pb2 import MujocoState
from coupler.record.recording import Recording
from coupler.record.scene_record import MODEL_ATTACHMENT
from coupler.wire.errors import Error

FORMATS = (".mp4", ".gif", ".png")
# H.264 in yuv420p needs even sizes; ffmpeg's writer scales a frame up to the next multiple of this.
MP4_BLOCK = 2


def _states(recording: Recording, every: float, start: float, end: float | None) -> Iterator[MujocoState]:
    """The recorded states at least `every` simulated seconds apart, from `start` to `end`."""
    due = start
    for message in recording:
        if not message.state:
            continue
        state = MujocoState.FromString(message.data)
        if state.time + 1e-12 < due:
            continue
        if end is not None and state.time > end:
            return
        due = state.time + every
        yield state


def render(recording_path: str | os.PathLike[str], out: str | os.PathLike[str], camera: str | None = None,
           fps: float = 25.0, width: int = 480, height: int = 360, start: float = 0.0, end: float | None = None,
           max_frames: int = 250) -> int:
    """Render `recording_path`'s states to `out` (.mp4 or .gif: a video or animation at `fps` frames per
    simulated second; .png: the frames side by side); return the number of frames. coupler.Error names what is
    missing."""
    suffix = Path(out).suffix.lower()
    if suffix not in FORMATS:
        raise Error(f"cannot write '{out}': the formats are {', '.join(FORMATS)}")
    os.environ.setdefault("MUJOCO_GL", "egl")
    import mujoco
    from PIL import Image

    recording = Recording(recording_path)
    recording.read_headers()
    xml = recording.attachments.get(MODEL_ATTACHMENT)
    if xml is None:
        raise Error(f"{recording_path} carries no model ({MODEL_ATTACHMENT}): it was not recorded from a MuJoCo scene")
    model = mujoco.MjModel.from_xml_string(xml.decode())
    if camera is not None and mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, camera) < 0:
        names = [model.camera(i).name for i in range(model.ncam)]
        raise Error(f"no camera '{camera}' in the model; it has: {', '.join(names) or 'none'}")
    data = mujoco.MjData(model)
    frames: list[np.ndarray] = []
    # The offscreen buffer is the model's (640x480 unless it says): as large as the frames asked for.
    model.vis.global_.offwidth = max(model.vis.global_.offwidth, width)
    model.vis.global_.offheight = max(model.vis.global_.offheight, height)
    with mujoco.Renderer(model, height, width) as renderer:
        for state in _states(recording, 1.0 / fps, start, end):
            if len(frames) >= max_frames:
                break
            if len(state.qpos) != model.nq or len(state.qvel) != model.nv:
                raise Error(f"the recorded state (nq {len(state.qpos)}) does not fit the recorded model (nq {model.nq})")
            data.time = state.time
            data.qpos[:] = state.qpos
            data.qvel[:] = state.qvel
            data.act[:] = state.act
            data.ctrl[:] = state.ctrl
            mujoco.mj_forward(model, data)
            renderer.update_scene(data, camera=camera if camera is not None else -1)
            frames.append(renderer.render().copy())
    if not frames:
        raise Error(f"{recording_path} holds no MuJoCo state in the time asked for: nothing to render")
    if suffix == ".mp4":
        _write_mp4(out, frames, fps)
        return len(frames)
    images = [Image.fromarray(frame) for frame in frames]
    if suffix == ".gif":
        images[0].save(out, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0,
                       optimize=True)
    else:
        Image.fromarray(np.concatenate(frames, axis=1)).save(out)
    return len(frames)


def _write_mp4(out: str | os.PathLike[str], frames: list[np.ndarray], fps: float) -> None:
    import imageio.v2 as imageio

    try:
        with imageio.get_writer(os.fspath(out), format="FFMPEG", mode="I", fps=fps, codec="libx264",
                                macro_block_size=MP4_BLOCK, ffmpeg_log_level="error") as writer:
            for frame in frames:
                writer.append_data(frame)
    except (OSError, RuntimeError) as error:
        raise Error(f"cannot write '{out}': {error}") from None
