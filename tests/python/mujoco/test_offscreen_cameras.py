"""The cameras' rendering thread (coupler.mujoco.offscreen_cameras) when rendering fails: without an OpenGL context
every image asked for fails in one line naming why, and a render that fails is told to the one who asked while the
thread goes on rendering the next."""

from __future__ import annotations

import logging

import pytest

mujoco = pytest.importorskip("mujoco")

from coupler.mujoco import offscreen_cameras  # noqa: E402
from coupler.mujoco.cameras import camera_descriptions  # noqa: E402
from coupler.mujoco.offscreen import available_backends  # noqa: E402
from coupler.mujoco.offscreen_cameras import OffscreenCameras  # noqa: E402
from coupler.mujoco.simulation import MujocoSimulation  # noqa: E402

_SCENE = """
<mujoco>
  <worldbody>
    <light pos="0 0 3" dir="0 0 -1"/>
    <geom type="plane" size="1 1 0.1"/>
    <body name="box" pos="0 0 0.1"><freejoint/><geom type="box" size="0.05 0.05 0.05"/></body>
    <camera name="eye" pos="0 -0.6 0.6" xyaxes="1 0 0 0 0.7 0.7" resolution="16 12"/>
  </worldbody>
</mujoco>
"""
_NO_CONTEXT = "no offscreen OpenGL context: egl: EGL_NOT_INITIALIZED; osmesa: libOSMesa.so.8: cannot open shared object"


def _cameras(simulation: MujocoSimulation, backends: list[str]) -> OffscreenCameras:
    described, _ = camera_descriptions(simulation.model, {})
    return OffscreenCameras(simulation.model, simulation.data, described, backends)


def test_without_an_opengl_context_every_image_asked_for_fails_naming_why_and_it_is_logged_once(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def no_context(backends: list[str], width: int, height: int) -> None:
        raise RuntimeError(_NO_CONTEXT)

    monkeypatch.setattr(offscreen_cameras, "make_context", no_context)
    caplog.set_level(logging.WARNING, logger=offscreen_cameras.__name__)
    cameras = _cameras(MujocoSimulation.from_xml_string(_SCENE), ["egl", "osmesa"])
    try:
        for _ in range(2):
            with pytest.raises(RuntimeError) as failed:
                cameras.render([("eye", ("rgb",))], timeout=10.0)
            assert str(failed.value) == _NO_CONTEXT
    finally:
        cameras.close()
    assert [r.getMessage() for r in caplog.records] == [f"cameras cannot be rendered: {_NO_CONTEXT}"]


def test_a_render_that_fails_is_told_to_the_one_who_asked_and_the_next_is_rendered(
        monkeypatch: pytest.MonkeyPatch) -> None:
    backends, reason = available_backends()
    if not backends:
        pytest.skip(reason)
    render = offscreen_cameras._Renderer.render
    calls: list[object] = []

    def fails_first(self: offscreen_cameras._Renderer, data: mujoco.MjData, wanted: list) -> list:
        calls.append(wanted)
        if len(calls) == 1:
            raise ValueError("the driver lost its device")
        return render(self, data, wanted)

    monkeypatch.setattr(offscreen_cameras._Renderer, "render", fails_first)
    simulation = MujocoSimulation.from_xml_string(_SCENE)
    cameras = _cameras(simulation, backends)
    try:
        with pytest.raises(ValueError, match="^the driver lost its device$"):
            cameras.render([("eye", ("depth",))], timeout=30.0)
        [(camera, kind, width, height, time, depth)] = cameras.render([("eye", ("depth",))], timeout=30.0)
        assert (camera, kind, width, height, time) == ("eye", "depth", 16, 12, simulation.data.time)
        assert depth.shape == (12, 16) and (depth > 0).all()
    finally:
        cameras.close()
