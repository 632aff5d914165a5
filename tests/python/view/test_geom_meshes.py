"""The triangles a view draws of each geom span what MuJoCo says the geom spans (its bounding box in its own
frame, `geom_aabb`), sit where the geom sits in its body, and take its material's colour."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from coupler.view.geom_meshes import geom_meshes
from coupler.view.web_view import _plain

MODEL = """
<mujoco>
  <asset>
    <mesh name="wedge" vertex="0 0 0  0.2 0 0  0 0.1 0  0 0 0.3"/>
    <material name="red" rgba="0.9 0.1 0.1 1"/>
  </asset>
  <worldbody>
    <geom name="floor" type="plane" size="2 3 0.1"/>
    <body name="parts" pos="0 0 1">
      <freejoint/>
      <geom name="box" type="box" size="0.1 0.2 0.3" pos="0.5 0 0"/>
      <geom name="sphere" type="sphere" size="0.15" material="red"/>
      <geom name="capsule" type="capsule" fromto="0 0 0 0.3 0.4 0" size="0.05"/>
      <geom name="cylinder" type="cylinder" size="0.07 0.2" euler="30 0 0"/>
      <geom name="ellipsoid" type="ellipsoid" size="0.1 0.2 0.05"/>
      <geom name="wedge" type="mesh" mesh="wedge"/>
      <geom name="hidden" type="box" size="0.1 0.1 0.1" group="3"/>
    </body>
  </worldbody>
</mujoco>
"""
# Polygons inscribed in round surfaces fall short of them by at most this share of their radius.
ROUND = 0.03


@pytest.fixture(scope="module")
def model() -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(MODEL)


def _by_name(model):
    return {mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, mesh.geom): mesh for mesh in geom_meshes(model)}


@pytest.mark.parametrize("name", ["box", "sphere", "capsule", "cylinder", "ellipsoid", "wedge"])
def test_a_geoms_triangles_span_its_bounding_box(model, name):
    mesh = _by_name(model)[name]
    center, half = model.geom_aabb[mesh.geom][:3], model.geom_aabb[mesh.geom][3:]
    low, high = mesh.vertices.min(axis=0), mesh.vertices.max(axis=0)
    np.testing.assert_allclose((low + high) / 2, center, atol=ROUND * half.max())
    np.testing.assert_allclose((high - low) / 2, half, rtol=ROUND, atol=1e-6)


def test_a_geom_sits_where_it_sits_in_its_body_with_its_materials_colour(model):
    meshes = _by_name(model)
    np.testing.assert_allclose(meshes["box"].position, [0.5, 0, 0])
    np.testing.assert_allclose(meshes["cylinder"].wxyz, model.geom("cylinder").quat)
    np.testing.assert_allclose(meshes["sphere"].rgba, [0.9, 0.1, 0.1, 1])
    assert meshes["sphere"].body == model.body("parts").id


def test_a_plane_is_a_thin_slab_of_its_size_whose_top_is_the_plane(model):
    floor = _by_name(model)["floor"]
    low, high = floor.vertices.min(axis=0), floor.vertices.max(axis=0)
    np.testing.assert_allclose([low, high], [[-2, -3, -0.001], [2, 3, 0]], atol=1e-9)


def test_geoms_of_hidden_groups_are_not_drawn(model):
    assert "hidden" not in _by_name(model)


def test_text_in_the_panel_is_shown_as_it_is_not_as_markdown():
    assert _plain("scene '[x](javascript:1)' <b>") == r"scene '\[x\]\(javascript:1\)' \<b\>"
