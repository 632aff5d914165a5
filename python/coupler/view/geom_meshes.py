"""The triangles of a MuJoCo model's geoms, each in its body's frame, for a 3D front end that draws meshes.

Boxes, spheres, ellipsoids, capsules, cylinders, planes and meshes are drawn; height fields and SDFs are
left out. As in MuJoCo's viewer by default, only geom groups 0 to 2 are drawn, and no fully transparent geom.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import trimesh.creation

from coupler.record.foxglove_scene import DRAWN_GROUPS, INFINITE_PLANE_HALF, PLANE_THICKNESS

if TYPE_CHECKING:
    import mujoco

_PLANE, _SPHERE, _CAPSULE, _ELLIPSOID, _CYLINDER, _BOX, _MESH = 0, 2, 3, 4, 5, 6, 7
_SPHERE_SUBDIVISIONS = 2  # an icosphere of 320 triangles: round enough at a robot's scale, cheap to draw
_CYLINDER_SECTIONS = 24


@dataclass(frozen=True)
class GeomMesh:
    """A geom's triangles in its own frame, and where that frame sits in its body's."""

    geom: int
    body: int
    vertices: np.ndarray  # (V, 3) float32
    faces: np.ndarray  # (F, 3) uint32
    rgba: np.ndarray  # 4 floats from 0 to 1
    position: np.ndarray  # in the body's frame
    wxyz: np.ndarray


def _primitive(model: mujoco.MjModel, geom: int) -> tuple[np.ndarray, np.ndarray] | None:
    kind = int(model.geom_type[geom])
    size = model.geom_size[geom]
    if kind == _BOX:
        mesh = trimesh.creation.box(extents=2 * size)
    elif kind == _PLANE:
        half = [float(v) if v > 0 else INFINITE_PLANE_HALF for v in size[:2]]
        mesh = trimesh.creation.box(extents=(2 * half[0], 2 * half[1], PLANE_THICKNESS))
        mesh.apply_translation((0.0, 0.0, -PLANE_THICKNESS / 2))  # its top face is the plane
    elif kind == _SPHERE:
        mesh = trimesh.creation.icosphere(subdivisions=_SPHERE_SUBDIVISIONS, radius=float(size[0]))
    elif kind == _ELLIPSOID:
        mesh = trimesh.creation.icosphere(subdivisions=_SPHERE_SUBDIVISIONS, radius=1.0)
        mesh.apply_scale(size)
    elif kind == _CAPSULE:
        mesh = trimesh.creation.capsule(height=2 * float(size[1]), radius=float(size[0]),
                                        count=(_CYLINDER_SECTIONS, _CYLINDER_SECTIONS))
    elif kind == _CYLINDER:
        mesh = trimesh.creation.cylinder(radius=float(size[0]), height=2 * float(size[1]),
                                         sections=_CYLINDER_SECTIONS)
    elif kind == _MESH:
        # A compiled mesh's vertices are in its geom's frame.
        mesh_id = int(model.geom_dataid[geom])
        first, count = int(model.mesh_vertadr[mesh_id]), int(model.mesh_vertnum[mesh_id])
        face, faces = int(model.mesh_faceadr[mesh_id]), int(model.mesh_facenum[mesh_id])
        return model.mesh_vert[first:first + count].copy(), model.mesh_face[face:face + faces].copy()
    else:
        return None
    return np.asarray(mesh.vertices), np.asarray(mesh.faces)


def geom_meshes(model: mujoco.MjModel) -> list[GeomMesh]:
    """Every drawn geom of `model` as triangles, in geom order."""
    meshes = []
    for geom in range(model.ngeom):
        if model.geom_group[geom] >= DRAWN_GROUPS or model.geom_rgba[geom][3] == 0:
            continue
        triangles = _primitive(model, geom)
        if triangles is None:
            continue
        material = int(model.geom_matid[geom])
        rgba = model.mat_rgba[material] if material >= 0 else model.geom_rgba[geom]
        meshes.append(GeomMesh(geom, int(model.geom_bodyid[geom]), triangles[0].astype(np.float32),
                               triangles[1].astype(np.uint32), np.array(rgba, dtype=float),
                               model.geom_pos[geom].copy(), model.geom_quat[geom].copy()))
    return meshes
