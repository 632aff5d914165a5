"""The model's cameras as the "images" extension offers them: names, sizes, kinds and intrinsics.

Intrinsics follow MuJoCo's projection: a camera looks along its frame's -z
axis with y up, and OpenGL's pixel centres sit half a pixel in from the
edges, so pixels are counted from the centre of the top-left one. A camera
given by `fovy` has square pixels and its optical axis through the picture's
centre: fy = fx = (height / 2) / tan(fovy / 2), cx = (width - 1) / 2,
cy = (height - 1) / 2. A camera given by `focal`, `sensorsize` and
`principal` (lengths on the sensor) maps its sensor onto the whole picture:
fx = width focal_x / sensor_x, fy = height focal_y / sensor_y,
cx = (width - 1) / 2 - width principal_x / sensor_x,
cy = (height - 1) / 2 - height principal_y / sensor_y (MuJoCo's frustum of
such a camera, checked by projecting points).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
import mujoco

from coupler.mujoco.camera_size import DEFAULT_HEIGHT, DEFAULT_WIDTH, MAX_HEIGHT, MAX_WIDTH, CameraSize
from coupler.wire.errors import Error
from coupler.wire.messages import IMAGE_KINDS, CameraDescription
from coupler.wire.name_list import valid_names
from coupler.wire.peer_text import shown

def _intrinsics(model: mujoco.MjModel, camera: int, width: int, height: int) -> tuple[float, float, float, float]:
    """fx, fy, cx, cy in pixels of `camera` rendered at width x height."""
    sensor_x, sensor_y = (float(v) for v in model.cam_sensorsize[camera])
    if sensor_y:  # given by focal, sensorsize and principal
        focal_x, focal_y, principal_x, principal_y = (float(v) for v in model.cam_intrinsic[camera])
        return (width * focal_x / sensor_x, height * focal_y / sensor_y,
                (width - 1) / 2 - width * principal_x / sensor_x, (height - 1) / 2 - height * principal_y / sensor_y)
    focal = (height / 2) / math.tan(math.radians(float(model.cam_fovy[camera])) / 2)
    return focal, focal, (width - 1) / 2, (height - 1) / 2


def camera_descriptions(model: mujoco.MjModel, sizes: Mapping[str, CameraSize] = {}) -> tuple[
        list[CameraDescription], list[str]]:
    """The model's named cameras as the handshake describes them, and one line per camera left out, saying why.

    coupler.Error for a size given for a camera the model does not have.
    """
    names = [model.camera(i).name for i in range(model.ncam)]
    for name in sizes:
        if name not in names:
            raise Error(f"--camera {shown(name)}: the model has no camera of that name; "
                        f"{valid_names([n for n in names if n])}")
    extent = model.stat.extent
    near = float(model.vis.map.znear * extent)
    far = float(model.vis.map.zfar * extent)
    described: list[CameraDescription] = []
    left_out: list[str] = []
    for i, name in enumerate(names):
        if not name:
            left_out.append(f"camera {i} has no name to ask for it by")
            continue
        if model.cam_projection[i] != mujoco.mjtProjection.mjPROJ_PERSPECTIVE:
            left_out.append(f"camera {shown(name)!r} is orthographic: only perspective cameras are served")
            continue
        width, height = (int(v) for v in model.cam_resolution[i])
        if name in sizes:
            width, height = sizes[name].width, sizes[name].height
        elif (width, height) == (1, 1):
            width, height = DEFAULT_WIDTH, DEFAULT_HEIGHT
        if width > MAX_WIDTH or height > MAX_HEIGHT:
            left_out.append(f"camera {shown(name)!r} is {width}x{height}, above {MAX_WIDTH}x{MAX_HEIGHT}: "
                            "--camera NAME=WxH serves it smaller")
            continue
        fx, fy, cx, cy = _intrinsics(model, i, width, height)
        body = model.body(int(model.cam_bodyid[i])).name or "world"
        described.append(CameraDescription(
            name=name, width=width, height=height, kinds=list(IMAGE_KINDS), fx=fx, fy=fy, cx=cx, cy=cy,
            near=near, far=far, body=body,
            position=[float(v) for v in model.cam_pos[i]], quaternion=[float(v) for v in model.cam_quat[i]]))
    return described, left_out

