"""A recording as a view plays it: its model and its states in memory, and a playback clock (play, pause,
speed, seek) that says which state to show at each moment.

A recording of several runs, each from a Reset, plays them one after the
other (`coupler.record.run_timeline`), each state showing its own simulated
time.

What a recording cannot give becomes `status`, one line, and the view still
opens: a file cut short is shown up to its last complete record, states that
do not fit the recorded model (another scene's) are left out, and a
recording with no state that fits shows the model at rest.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from coupler.record.mocap_poses import MocapPoses
from coupler.record.recorded_model import recorded_model
from coupler.record.recording import Recording
from coupler.record.run_timeline import RunTimeline
from coupler.view.shown_state import ShownState, StateMismatch, decoded_state, initial_state, world_of

if TYPE_CHECKING:
    import mujoco

MAX_STATES = 2_000_000  # states kept in memory; a longer recording is shown up to there
MIN_SPEED, MAX_SPEED = 0.01, 100.0


class RecordedRun:
    """The model and states of the recording at `path`; coupler.Error (RecordingError) when it is not a
    recording, or carries no model that loads."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        recording = Recording(path)
        self.path = os.fspath(path)
        self.model: mujoco.MjModel = recorded_model(recording)
        times: list[float] = []
        timeline: list[float] = []
        clock = RunTimeline()
        positions: list[np.ndarray] = []
        controls: list[np.ndarray] = []
        mocaps: list[MocapPoses | None] = []
        steps: list[int] = []
        misfits = 0
        misfit: str | None = None
        cut = False
        for message in recording:
            if not message.state or world_of(message.data) != 0:
                continue  # a batched server's recording: the view shows world 0
            if len(times) >= MAX_STATES:
                cut = True
                break
            try:
                state = decoded_state(message.data, self.model)
            except StateMismatch as error:
                misfits += 1
                misfit = misfit or str(error)
                continue
            times.append(state.time)
            timeline.append(clock.position(state.time))
            positions.append(state.qpos)
            controls.append(state.ctrl)
            mocaps.append(state.mocap)
            steps.append(state.step)
        self._times = np.array(times)  # each state's own simulated time
        self.timeline = np.array(timeline)  # where each lies on the playback clock
        self._qpos = positions
        self._ctrl = controls
        self._mocap = mocaps
        self._steps = steps
        notes = []
        if recording.ended_early is not None:
            notes.append(f"{self.path} {recording.ended_early}")
        if cut:
            notes.append(f"{self.path} holds more than {MAX_STATES} states: showing the first {MAX_STATES}")
        if misfits:
            notes.append(f"{misfits} states of {self.path} left out: {misfit}")
        if not times:
            notes.append(f"{self.path} holds no state of its model: showing the model at rest")
        self.notes = notes
        self.status = "; ".join(notes)

    def __len__(self) -> int:
        return len(self.timeline)

    @property
    def start(self) -> float:
        return float(self.timeline[0]) if len(self.timeline) else 0.0

    @property
    def end(self) -> float:
        return float(self.timeline[-1]) if len(self.timeline) else 0.0

    def index_at(self, position: float) -> int:
        """The index of the last state at or before `position` on the timeline (the first one before the start);
        -1 when there is none."""
        if not len(self.timeline):
            return -1
        return max(0, int(np.searchsorted(self.timeline, position, side="right")) - 1)

    def state(self, index: int) -> ShownState:
        """State `index`, with its own simulated time; the model at rest for -1."""
        if index < 0:
            return initial_state(self.model)
        return ShownState(float(self._times[index]), self._steps[index], self._qpos[index], self._ctrl[index],
                          self._mocap[index])

    def at(self, position: float) -> ShownState:
        """The last state at or before `position` on the timeline (the first one before the start)."""
        return self.state(self.index_at(position))


class Playback:
    """Simulated time running at `speed` times the wall clock from `start` to `end`, paused at the end;
    play, pause, speed and seek as a person asks."""

    def __init__(self, start: float, end: float, speed: float = 1.0,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.start, self.end = start, end
        self._monotonic = monotonic
        self._speed = speed
        self._anchor_simulated = start
        self._anchor_wall = monotonic()
        self.playing = end > start

    @property
    def speed(self) -> float:
        return self._speed

    @speed.setter
    def speed(self, speed: float) -> None:
        self._rebase()
        self._speed = min(MAX_SPEED, max(MIN_SPEED, speed))

    def now(self) -> float:
        """The simulated time to show now; reaching the end pauses there."""
        if not self.playing:
            return self._anchor_simulated
        simulated = self._anchor_simulated + (self._monotonic() - self._anchor_wall) * self._speed
        if simulated >= self.end:
            self.seek(self.end)
            self.playing = False
            return self.end
        return simulated

    def _rebase(self) -> None:
        self._anchor_simulated = self.now()
        self._anchor_wall = self._monotonic()

    def play(self) -> None:
        if self.now() >= self.end:
            self.seek(self.start)  # playing from the end starts again
        self._rebase()
        self.playing = True

    def pause(self) -> None:
        self._rebase()
        self.playing = False

    def toggle(self) -> None:
        self.pause() if self.playing else self.play()

    def seek(self, simulated: float) -> None:
        self._anchor_simulated = min(self.end, max(self.start, simulated))
        self._anchor_wall = self._monotonic()
