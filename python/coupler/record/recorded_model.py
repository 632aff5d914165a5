"""The MuJoCo model a recording carries, loaded for rendering: the compiled MJB where there is one, else
the MJCF text older recordings carry; a RecordingError naming the problem for one that does not load."""

from __future__ import annotations

from typing import TYPE_CHECKING

from coupler.record.recording import Recording, RecordingError
from coupler.record.scene_record import MODEL_ATTACHMENT, MODEL_BINARY

if TYPE_CHECKING:
    import mujoco

_REASON_LIMIT = 300  # characters of MuJoCo's reason kept: it may quote the attachment


def _reason(error: Exception) -> str:
    reason = " ".join(str(error).split())
    return reason if len(reason) <= _REASON_LIMIT else reason[:_REASON_LIMIT] + "..."


def recorded_model(recording: Recording) -> mujoco.MjModel:
    """The model of `recording` (its headers read); RecordingError when it carries none or one that does not load."""
    import mujoco

    recording.read_headers()
    binary = recording.attachments.get(MODEL_BINARY)
    if binary is not None:
        try:
            return mujoco.MjModel.from_binary_path(MODEL_BINARY, {MODEL_BINARY: binary})
        except ValueError as error:
            raise RecordingError(f"the model {recording.path} carries ({MODEL_BINARY}) does not load in "
                                 f"MuJoCo {mujoco.__version__}: {_reason(error)}") from None
    xml = recording.attachments.get(MODEL_ATTACHMENT)
    if xml is None:
        raise RecordingError(f"{recording.path} carries no model ({MODEL_BINARY}): it was not recorded from a "
                             "MuJoCo scene")
    try:
        return mujoco.MjModel.from_xml_string(xml.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise RecordingError(f"the model {recording.path} carries ({MODEL_ATTACHMENT}) is not MJCF MuJoCo "
                             f"loads: {_reason(error)}") from None
