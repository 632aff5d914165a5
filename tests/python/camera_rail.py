"""A red cart on a rail across a camera's view, for the tests of served images: where the cart is along its
slide joint is where the red is in the picture."""

from __future__ import annotations

from typing import Any


def rail_scene(width: int | None = None, height: int | None = None, slide: str = "", motor: str = "") -> str:
    """The rail's MJCF: camera "eye" at `width` x `height` pixels (MuJoCo's default size without them), `slide` and
    `motor` extra attributes of the cart's slide joint (damping="0.5") and of its motor (ctrlrange="-5 5")."""
    resolution = f' resolution="{width} {height}"' if width is not None and height is not None else ""
    return f"""
<mujoco model="rail">
  <worldbody>
    <light pos="0 0 3" dir="0 0 -1"/>
    <geom name="floor" type="plane" size="2 2 0.1" rgba="0.3 0.3 0.3 1"/>
    <body name="cart" pos="0 0 0.1">
      <joint name="slide" type="slide" axis="1 0 0" {slide}/>
      <geom name="cart" type="box" size="0.08 0.08 0.08" rgba="0.9 0.1 0.1 1"/>
    </body>
    <camera name="eye" pos="0 -1 0.8" xyaxes="1 0 0 0 0.6 0.8" fovy="60"{resolution}/>
  </worldbody>
  <actuator><motor name="slide" joint="slide" {motor}/></actuator>
</mujoco>
"""


def rgb_and_depth(renderer: Any, data: Any, camera: str = "eye") -> tuple[Any, Any]:
    """What a `mujoco.Renderer` renders of `data` from `camera`: the rgb image, then the depth image (the renderer
    is left rendering depth)."""
    renderer.disable_depth_rendering()
    renderer.update_scene(data, camera)
    rgb = renderer.render().copy()
    renderer.enable_depth_rendering()
    renderer.update_scene(data, camera)
    return rgb, renderer.render().copy()
