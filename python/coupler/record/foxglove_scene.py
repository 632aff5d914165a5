"""What Foxglove's 3D panel draws of a MuJoCo scene: its geoms as a `foxglove.SceneUpdate` (once) and every
body's pose as `foxglove.FrameTransforms` (after every step), in the schemas of `foxglove-schemas-protobuf`.

Each body is a frame named after it (`body<id>` when it has no name) whose parent is `world`, MuJoCo's
world body; a body's geoms are one entity in its frame, so they move with it. Geoms are Foxglove's
primitives: boxes as cubes, spheres and ellipsoids as spheres, cylinders as cylinders, capsules as a
cylinder and two spheres, planes as thin cubes (an infinite plane as a 20 m square), meshes as triangle
lists. Height fields and SDFs are left out. As in MuJoCo's viewer by default, only geom groups 0 to 2
are drawn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from foxglove_schemas_protobuf.Color_pb2 import Color
from foxglove_schemas_protobuf.FrameTransforms_pb2 import FrameTransforms
from foxglove_schemas_protobuf.SceneEntity_pb2 import SceneEntity
from foxglove_schemas_protobuf.SceneUpdate_pb2 import SceneUpdate

from coupler.record.mocap_poses import MocapPoses, place_mocap

if TYPE_CHECKING:
    import mujoco

WORLD_FRAME = "world"
DRAWN_GROUPS = 3  # geom groups 0..2, those MuJoCo's viewer shows by default
PLANE_THICKNESS = 0.001  # m
INFINITE_PLANE_HALF = 10.0  # m: half the side of the square drawn for a plane of size 0 (infinite)

_PLANE, _SPHERE, _CAPSULE, _ELLIPSOID, _CYLINDER, _BOX, _MESH = 0, 2, 3, 4, 5, 6, 7


def body_frames(model: mujoco.MjModel) -> list[str]:
    """The frame name of every body, by body id (the world body is `world`)."""
    import mujoco

    names = []
    for body in range(model.nbody):
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, body)
        names.append(WORLD_FRAME if body == 0 else (name or f"body{body}"))
    return names


def _set_pose(pose: object, position: np.ndarray, wxyz: np.ndarray) -> None:
    pose.position.x, pose.position.y, pose.position.z = (float(v) for v in position)  # type: ignore[attr-defined]
    w, x, y, z = (float(v) for v in wxyz)
    orientation = pose.orientation  # type: ignore[attr-defined]
    orientation.x, orientation.y, orientation.z, orientation.w = x, y, z, w


def _set_color(color: Color, rgba: np.ndarray) -> None:
    color.r, color.g, color.b, color.a = (float(v) for v in rgba)


def _rotated(wxyz: np.ndarray, vector: np.ndarray) -> np.ndarray:
    import mujoco

    out = np.zeros(3)
    mujoco.mju_rotVecQuat(out, vector, wxyz)
    return out


def _add_geom(entity: SceneEntity, model: mujoco.MjModel, geom: int) -> bool:
    """Add geom `geom` to its body's entity; False for a kind Foxglove has no primitive for."""
    kind = int(model.geom_type[geom])
    size = model.geom_size[geom]
    position, wxyz = model.geom_pos[geom], model.geom_quat[geom]
    material = int(model.geom_matid[geom])
    rgba = model.mat_rgba[material] if material >= 0 else model.geom_rgba[geom]
    if kind in (_BOX, _PLANE):
        cube = entity.cubes.add()
        _set_pose(cube.pose, position, wxyz)
        if kind == _BOX:
            cube.size.x, cube.size.y, cube.size.z = (2 * float(v) for v in size)
        else:
            cube.size.x, cube.size.y = (2 * float(v) if v > 0 else 2 * INFINITE_PLANE_HALF for v in size[:2])
            cube.size.z = PLANE_THICKNESS
        _set_color(cube.color, rgba)
    elif kind in (_SPHERE, _ELLIPSOID):
        sphere = entity.spheres.add()
        _set_pose(sphere.pose, position, wxyz)
        radii = size if kind == _ELLIPSOID else (size[0],) * 3
        sphere.size.x, sphere.size.y, sphere.size.z = (2 * float(v) for v in radii)
        _set_color(sphere.color, rgba)
    elif kind in (_CYLINDER, _CAPSULE):
        cylinder = entity.cylinders.add()
        _set_pose(cylinder.pose, position, wxyz)
        radius, half = float(size[0]), float(size[1])
        cylinder.size.x = cylinder.size.y = 2 * radius
        cylinder.size.z = 2 * half
        cylinder.bottom_scale = cylinder.top_scale = 1.0
        _set_color(cylinder.color, rgba)
        if kind == _CAPSULE:
            axis = _rotated(wxyz, np.array([0.0, 0.0, half]))
            for end in (position + axis, position - axis):
                cap = entity.spheres.add()
                _set_pose(cap.pose, end, wxyz)
                cap.size.x = cap.size.y = cap.size.z = 2 * radius
                _set_color(cap.color, rgba)
    elif kind == _MESH:
        mesh = int(model.geom_dataid[geom])
        triangles = entity.triangles.add()
        _set_pose(triangles.pose, position, wxyz)
        # A compiled mesh's vertices are in its geom's frame.
        first, count = int(model.mesh_vertadr[mesh]), int(model.mesh_vertnum[mesh])
        for x, y, z in model.mesh_vert[first:first + count]:
            point = triangles.points.add()
            point.x, point.y, point.z = float(x), float(y), float(z)
        face, faces = int(model.mesh_faceadr[mesh]), int(model.mesh_facenum[mesh])
        triangles.indices.extend(int(i) for i in model.mesh_face[face:face + faces].ravel())
        _set_color(triangles.color, rgba)
    else:
        return False
    return True


def scene_update(model: mujoco.MjModel, timestamp_ns: int) -> bytes:
    """A serialized SceneUpdate with one entity per body that has drawn geoms, in the body's frame."""
    frames = body_frames(model)
    update = SceneUpdate()
    entities: dict[int, SceneEntity] = {}
    for geom in range(model.ngeom):
        if model.geom_group[geom] >= DRAWN_GROUPS or model.geom_rgba[geom][3] == 0:
            continue
        body = int(model.geom_bodyid[geom])
        entity = entities.get(body)
        if entity is None:
            entity = entities[body] = update.entities.add()
            entity.timestamp.FromNanoseconds(timestamp_ns)
            entity.frame_id = frames[body]
            entity.id = f"{frames[body]} geoms"
            entity.frame_locked = True  # moves with its frame as the transforms arrive
        _add_geom(entity, model, geom)
    return update.SerializeToString()


class BodyTransforms:
    """Every body's pose after a state, as a serialized FrameTransforms (one transform per body but the
    world, parent `world`): MuJoCo's `xpos` and `xquat` of the state's positions."""

    def __init__(self, model: mujoco.MjModel) -> None:
        import mujoco

        self._mujoco = mujoco
        self.model = model
        self.data = mujoco.MjData(model)
        self._message = FrameTransforms()
        for frame in body_frames(model)[1:]:
            transform = self._message.transforms.add()
            transform.parent_frame_id = WORLD_FRAME
            transform.child_frame_id = frame

    def encode(self, qpos: np.ndarray, timestamp_ns: int, mocap: MocapPoses | None = None) -> bytes:
        """The poses with `qpos` as the positions and `mocap` as the mocap bodies' poses (None: where the model
        puts them), stamped `timestamp_ns`."""
        self.data.qpos[:] = qpos
        place_mocap(self.data, mocap)
        self._mujoco.mj_kinematics(self.model, self.data)
        seconds, nanos = divmod(timestamp_ns, 1_000_000_000)
        for transform, position, wxyz in zip(self._message.transforms, self.data.xpos[1:], self.data.xquat[1:]):
            transform.timestamp.seconds, transform.timestamp.nanos = seconds, nanos
            translation, rotation = transform.translation, transform.rotation
            translation.x, translation.y, translation.z = float(position[0]), float(position[1]), float(position[2])
            rotation.w, rotation.x, rotation.y, rotation.z = (float(wxyz[0]), float(wxyz[1]), float(wxyz[2]),
                                                              float(wxyz[3]))
        return self._message.SerializeToString()
