"""Pictures of a recording: its MuJoCo states rendered offscreen by MuJoCo's renderer, from the model
the recording carries, as an MP4 video (H.264 through imageio's ffmpeg), an animated GIF or a PNG strip
of frames.

Offscreen rendering needs an OpenGL: EGL (Mesa's software renderer does on a machine without a GPU)
or OSMesa; MUJOCO_GL chooses, and is set to egl when unset.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from google.protobuf.message import DecodeError

from coupler._proto.coupler_record_pb2 import MujocoState
from coupler.record.mocap_poses import MocapMismatch, mocap_poses, place_mocap
from coupler.record.recording import Recording, RecordingError
from coupler.record.recorded_model import recorded_model
from coupler.record.run_timeline import RunTimeline
from coupler.record.world_recording import WorldRecording
from coupler.wire.errors import Error
from coupler.wire.peer_text import shown

if TYPE_CHECKING:
    import mujoco

FORMATS = (".mp4", ".gif", ".png")
# H.264 in yuv420p needs even sizes; ffmpeg's writer scales a frame up to the next multiple of this.
MP4_BLOCK = 2


@dataclass(frozen=True)
class Rendered:
    frames: int
    ended_early: str | None  # where a recording cut short ended, None when it is complete

    def __str__(self) -> str:
        return f"{self.frames} frames"


def _states(recording: Recording, every: float, start: float, end: float | None) -> Iterator[MujocoState]:
    """The recorded states at least `every` simulated seconds apart, from `start` to `end` on the clock that plays
    the recording's runs one after the other (`RunTimeline`)."""
    due = start
    clock = RunTimeline()
    for number, message in enumerate(recording):
        if not message.state:
            continue
        try:
            state = MujocoState.FromString(message.data)
        except DecodeError:
            raise RecordingError(f"message {number} of the recording, on {message.topic}, is not a MuJoCo "
                                 "state") from None
        position = clock.position(state.time)
        if position + 1e-12 < due:
            continue
        if end is not None and position > end:
            return
        due = position + every
        yield state


def set_state(model: mujoco.MjModel, data: mujoco.MjData, state: MujocoState) -> None:
    """Set mjData `data` to the recorded `state`, its mocap bodies' poses included when it holds them (a recording
    made before they were kept leaves them where the model puts them); RecordingError when it does not fit `model`."""
    sizes = (len(state.qpos), len(state.qvel), len(state.act), len(state.ctrl))
    if sizes != (model.nq, model.nv, model.na, model.nu):
        raise RecordingError(f"a recorded state (nq, nv, na, nu {sizes}) does not fit the recorded model "
                             f"({(model.nq, model.nv, model.na, model.nu)})")
    try:
        mocap = mocap_poses(state, model)
    except MocapMismatch as error:
        raise RecordingError(f"{error}: it does not fit the recorded model") from None
    data.time = state.time
    data.qpos[:] = state.qpos
    data.qvel[:] = state.qvel
    data.act[:] = state.act
    data.ctrl[:] = state.ctrl
    place_mocap(data, mocap)


def render(recording_path: str | os.PathLike[str], out: str | os.PathLike[str], camera: str | None = None,
           fps: float = 25.0, width: int = 480, height: int = 360, start: float = 0.0, end: float | None = None,
           max_frames: int = 250, world: int = 0) -> Rendered:
    """Render `recording_path`'s states of world `world` (see `coupler.record.world_recording`) to `out` (.mp4
    or .gif: a video or animation at `fps` frames per simulated second; .png: the frames side by side); the
    number of frames, and where a file cut short ended. coupler.Error names what is missing."""
    suffix = Path(out).suffix.lower()
    if suffix not in FORMATS:
        raise Error(f"cannot write '{out}': the formats are {', '.join(FORMATS)}")
    os.environ.setdefault("MUJOCO_GL", "egl")
    import mujoco
    from PIL import Image

    recording = WorldRecording(recording_path, world)
    model = recorded_model(recording)
    if camera is not None and mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, camera) < 0:
        names = [model.camera(i).name for i in range(model.ncam)]
        raise Error(f"no camera {shown(camera)!r} in the model; it has: {shown(', '.join(names)) or 'none'}")
    data = mujoco.MjData(model)
    frames: list[np.ndarray] = []
    # The offscreen buffer is the model's (640x480 unless it says): as large as the frames asked for.
    model.vis.global_.offwidth = max(model.vis.global_.offwidth, width)
    model.vis.global_.offheight = max(model.vis.global_.offheight, height)
    with contextlib.ExitStack() as stack:
        renderer = None  # made at the first state: a file without a usable one needs no OpenGL to be refused
        for state in _states(recording, 1.0 / fps, start, end):
            if len(frames) >= max_frames:
                break
            set_state(model, data, state)
            if renderer is None:
                renderer = stack.enter_context(mujoco.Renderer(model, height, width))
            mujoco.mj_forward(model, data)
            renderer.update_scene(data, camera=camera if camera is not None else -1)
            frames.append(renderer.render().copy())
    if not frames:
        raise Error(f"{recording_path} holds no MuJoCo state in the time asked for: nothing to render")
    if suffix == ".mp4":
        _write_mp4(out, frames, fps)
        return Rendered(len(frames), recording.ended_early)
    images = [Image.fromarray(frame) for frame in frames]
    if suffix == ".gif":
        images[0].save(out, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0,
                       optimize=True)
    else:
        Image.fromarray(np.concatenate(frames, axis=1)).save(out)
    return Rendered(len(frames), recording.ended_early)


def _write_mp4(out: str | os.PathLike[str], frames: list[np.ndarray], fps: float) -> None:
    import imageio.v2 as imageio

    try:
        with imageio.get_writer(os.fspath(out), format="FFMPEG", mode="I", fps=fps, codec="libx264",
                                macro_block_size=MP4_BLOCK, ffmpeg_log_level="error") as writer:
            for frame in frames:
                writer.append_data(frame)
    except (OSError, RuntimeError) as error:
        raise Error(f"cannot write '{out}': {error}") from None
