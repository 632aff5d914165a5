"""What a front end draws from: a live stream or a recording played back, behind one interface."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from coupler.view.live_stream import LiveStream
from coupler.view.recorded_run import Playback, RecordedRun
from coupler.view.shown_state import ShownState

if TYPE_CHECKING:
    import mujoco


class ViewSource(Protocol):
    name: str  # what is viewed, for the page and messages
    status: str  # one line: what is going on (empty when all is well)
    scene_changes: int  # grows when the model changed: the front end draws the new one
    playback: Playback | None  # a recording's clock, None for a live stream

    @property
    def model(self) -> mujoco.MjModel: ...

    def next_state(self, timeout: float) -> ShownState | None:
        """The state to show now when it changed, else None; a live stream waits up to `timeout` seconds for one."""


class LiveSource:
    """The newest state of a publishing server's stream (its scene already received: `LiveStream.wait_for_scene`)."""

    playback = None

    def __init__(self, stream: LiveStream) -> None:
        self.stream = stream
        self.name = stream.shown_address

    @property
    def model(self) -> mujoco.MjModel:
        assert self.stream.scene is not None
        return self.stream.scene.model

    @property
    def status(self) -> str:
        return self.stream.status

    @property
    def scene_changes(self) -> int:
        return self.stream.scene_changes

    def next_state(self, timeout: float) -> ShownState | None:
        return self.stream.poll(timeout)


class RecordingSource:
    """A recording's states as its playback clock reaches them."""

    scene_changes = 0

    def __init__(self, run: RecordedRun, speed: float = 1.0) -> None:
        self.run = run
        self.name = run.path
        self.status = run.status
        self.playback = Playback(run.start, run.end, speed)
        self._shown: int | None = None  # the index of the state shown last

    @property
    def model(self) -> mujoco.MjModel:
        return self.run.model

    def next_state(self, timeout: float) -> ShownState | None:
        index = self.run.index_at(self.playback.now())
        if index == self._shown:
            return None
        self._shown = index
        return self.run.state(index)
