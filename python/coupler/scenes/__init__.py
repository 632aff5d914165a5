"""The scenes shipped with coupler, and loading a scene by name or MJCF path.

MJCF scenes are files beside this module (`arm`, `two_arms`, `mobile`);
`static` is a scene without physics (`coupler.scenes.static`). Any other
MJCF file is loaded by its path. MuJoCo scenes need the `sim` extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from coupler.serve.simulation import Simulation
from coupler.wire.errors import Error
from coupler.wire.missing_extra import MissingExtra

SCENES_DIR = Path(__file__).resolve().parent


def scene_names() -> list[str]:
    """The names `load_scene` takes besides a path: `static` and every shipped MJCF scene."""
    return ["static"] + sorted(p.stem for p in SCENES_DIR.glob("*.xml"))


def scene_path(name: str) -> Path:
    """The MJCF file of a shipped scene; coupler.Error naming the choices for an unknown name."""
    path = SCENES_DIR / f"{name}.xml"
    if not path.is_file():
        raise Error(f"no scene '{name}': give one of {', '.join(scene_names())} or an MJCF file path")
    return path


def load_scene(scene: str, time_step: float | None = None, robots: Sequence[str] = (),
               keyframe: str | None = None) -> Simulation:
    """The static scene, a shipped scene by name, or any MJCF file by path, ready to serve.

    `time_step` overrides the model's own; `robots` names bodies each served
    as one robot with its subtree (`coupler serve --robot`); `keyframe` (a
    name, or an index when no keyframe has that name) is the state the scene
    starts and resets at. coupler.Error names the problem: an unknown scene,
    a missing file, MuJoCo not installed, a body the scene does not have, a
    keyframe the model does not have (listing those it has).
    """
    if scene == "static":
        from coupler.scenes.static import TIME_STEP, StaticScene

        if robots:
            raise Error("scene 'static' has no bodies to serve as robots (--robot takes a MuJoCo scene's body)")
        if keyframe is not None:
            raise Error(f"scene 'static' has no keyframes (--keyframe {keyframe!r})")
        return StaticScene(time_step or TIME_STEP)
    path = Path(scene)
    if not path.suffix:
        path = scene_path(scene)
    elif not path.is_file():
        raise Error(f"no scene file '{scene}': give one of {', '.join(scene_names())} or an MJCF file path")
    try:
        from coupler.mujoco.bounded_compile import check_compiles
        from coupler.mujoco.model_files import check_model_files
        from coupler.mujoco.simulation import MujocoSimulation
    except ModuleNotFoundError as error:
        if error.name != "mujoco":
            raise
        raise MissingExtra(f"scene '{scene}'", "sim", error) from None
    if path.suffix:
        # Anyone's model: the files it names and the cost of compiling it are checked first (shipped scenes are not).
        check_model_files(path)
        check_compiles(path)
    try:
        return MujocoSimulation(path, time_step=time_step, robots=robots, keyframe=keyframe)
    except ValueError as error:  # MuJoCo's parse and compile errors: several lines naming line and element
        raise Error(f"scene file '{path}' does not load: {one_line(str(error))}") from None


def one_line(message: str, limit: int = 400) -> str:
    """MuJoCo's multi-line message as one line of at most `limit` characters."""
    joined = "; ".join(part.strip() for part in message.splitlines() if part.strip())
    return joined if len(joined) <= limit else joined[:limit] + "..."
