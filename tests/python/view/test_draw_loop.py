"""The loop a front end draws in: at most `fps` frames a second however fast states come, each new status said
once, until stopped."""

from __future__ import annotations

import threading

import numpy as np

from coupler.view.draw_loop import run_draw_loop
from coupler.view.shown_state import ShownState


class _Flood:
    """A source with a new state at every look, and a status that changes once."""

    name = "flood"
    scene_changes = 0
    playback = None
    model = None

    def __init__(self) -> None:
        self.looks = 0
        self.status = "starting"

    def next_state(self, timeout: float) -> ShownState:
        self.looks += 1
        if self.looks == 3:
            self.status = "live"
        return ShownState(0.001 * self.looks, self.looks, np.zeros(1), np.zeros(0))


def test_states_coming_faster_than_the_frame_rate_are_drawn_at_the_frame_rate():
    drawn: list[int] = []
    said: list[str] = []
    counts = run_draw_loop(_Flood(), lambda state: drawn.append(state.step), fps=50.0, stop=threading.Event(),
                           on_status=said.append, duration=0.4)
    assert 10 <= counts.frames <= 22 and counts.frames == len(drawn)
    assert said == ["starting", "live"]


def test_the_loop_ends_when_the_front_end_says_so():
    passes = iter([True, True, False])
    counts = run_draw_loop(_Flood(), lambda state: None, fps=1000.0, stop=threading.Event(),
                           each_pass=lambda: next(passes))
    assert counts.frames == 3
