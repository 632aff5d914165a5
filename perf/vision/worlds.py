"""What a vector environment's images cost: N worlds of the arm scene, each step bringing every world's rgb image
of one camera through `coupler/Scene-v0`'s vector env, against the bound of rendering those N images alone with
`mujoco.Renderer` plus stepping the N worlds without images, all measured in the same run, rounds taking turns.

    python -m perf.vision.worlds                 # 64 worlds, 64x64 rgb; 5 rounds of 1 step (64 images a side)
    python -m perf.vision.worlds --quick         # 2 worlds, 2 rounds of 1 step: a few seconds, for CI

The ratio is the vector env's throughput (steps per second) over the bound's, 1 / (render time of N images +
step time of N worlds); the target: >= 0.9. The bound is like for like: one `mujoco.Renderer`, made before any
timing and warmed up, renders the same camera at the same size with the same (MuJoCo's default) flags as the
server, N images per step, of the scene's start state (the worlds' own start).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

from perf.common import host, results
from perf.common.arguments import add_output_flags, positive
from perf.common.errors import BenchmarkError
from perf.common.spread import Spread
from perf.vision.render import worlds_markdown
from perf.vision.measure import CAMERA, parse_size

# The renderer alone needs its OpenGL chosen before MuJoCo is imported: the server's own choice, EGL.
os.environ.setdefault("MUJOCO_GL", "egl")

import gymnasium  # noqa: E402
import mujoco  # noqa: E402
import numpy as np  # noqa: E402

import coupler.gym  # noqa: E402,F401  registers the ids
from coupler.scenes import scene_path  # noqa: E402

WARM_UP = 1  # steps (and renders of N images) before timing: shaders compiled, buffers allocated
QUICK = {"worlds": 2, "rounds": 2, "steps": 1}


def _per_call(call: Callable[[], object], count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        call()
    return (time.perf_counter() - started) / count * 1e3


def _summary(values: list[float]) -> dict:
    spread = Spread.of(values)  # the median every perf tool reports: a value some round measured
    assert spread is not None
    return {"median": spread.median, "low": spread.low, "high": spread.high}


def measure(worlds: int, size: tuple[int, int], rounds: int, steps: int) -> dict:
    width, height = size
    model = mujoco.MjModel.from_xml_path(str(scene_path("arm")))
    model.vis.global_.offwidth = max(model.vis.global_.offwidth, width)
    model.vis.global_.offheight = max(model.vis.global_.offheight, height)
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_forward(model, data)
    renderer = mujoco.Renderer(model, height, width)
    serve_flags = ["--camera", f"{CAMERA}={width}x{height}"]
    plain = gymnasium.make_vec("coupler/Scene-v0", num_envs=worlds, scene="arm", serve_flags=serve_flags,
                               timeout=120.0)
    seeing = gymnasium.make_vec("coupler/Scene-v0", num_envs=worlds, scene="arm", serve_flags=serve_flags,
                                cameras=[CAMERA], timeout=120.0)
    try:
        actions = np.zeros(plain.action_space.shape)
        plain.reset(seed=0)
        observation, _ = seeing.reset(seed=0)
        if observation[f"{CAMERA}/rgb"].shape != (worlds, height, width, 3):
            raise BenchmarkError(f"the vector env's images have shape {observation[f'{CAMERA}/rgb'].shape}")
        # Like for like: at the start, the bound's image is every world's, pixel for pixel (same camera, size,
        # flags and state); a difference would mean the two sides render different pictures.
        renderer.update_scene(data, CAMERA)
        if not np.array_equal(renderer.render(), observation[f"{CAMERA}/rgb"][0]):
            raise BenchmarkError("mujoco.Renderer's image of the start differs from the vector env's: the bound "
                                 "would not render the same picture")

        def alone() -> None:
            for _ in range(worlds):
                renderer.update_scene(data, CAMERA)
                renderer.render()

        _per_call(alone, WARM_UP)
        _per_call(lambda: plain.step(actions), WARM_UP)
        _per_call(lambda: seeing.step(actions), WARM_UP)
        render_ms, step_ms, seeing_ms, ratios = [], [], [], []
        for _ in range(rounds):
            # In mirrored order (alone, without, with, with, without, alone): a load that rises or falls through
            # the round weighs on both sides alike.
            first = [_per_call(alone, steps), _per_call(lambda: plain.step(actions), steps)]
            seen = [_per_call(lambda: seeing.step(actions), steps) for _ in range(2)]
            last = [_per_call(lambda: plain.step(actions), steps), _per_call(alone, steps)]
            render_ms.append((first[0] + last[1]) / 2)
            step_ms.append((first[1] + last[0]) / 2)
            seeing_ms.append(sum(seen) / 2)
            ratios.append((render_ms[-1] + step_ms[-1]) / seeing_ms[-1])
    finally:
        plain.close()
        seeing.close()
        renderer.close()
    return {"size": f"{width}x{height}", "render_ms": _summary(render_ms), "step_ms": _summary(step_ms),
            "vector_env_ms": _summary(seeing_ms), "ratio": _summary(ratios),
            "rounds": {"render_ms": render_ms, "step_ms": step_ms, "vector_env_ms": seeing_ms, "ratio": ratios}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perf.vision.worlds", description=__doc__.split("\n\n")[0])
    parser.add_argument("--worlds", type=positive(int), default=64,
                        help="worlds of the vector env, and images rendered alone per step (default: %(default)s)")
    parser.add_argument("--size", type=parse_size, default=(64, 64),
                        help="the camera's WxH (default: 64x64)")
    parser.add_argument("--rounds", type=positive(int), default=5,
                        help="rounds, each side once per round (default: %(default)s)")
    parser.add_argument("--steps", type=positive(int), default=1,
                        help="vector-env steps (and renders of every world's image) timed per side and round "
                             "(default: %(default)s)")
    parser.add_argument("--quick", action="store_true",
                        help=f"a few seconds, for CI: {QUICK['worlds']} worlds, {QUICK['rounds']} rounds of "
                             f"{QUICK['steps']} steps (overrides --worlds, --rounds and --steps)")
    add_output_flags(parser, "vision_worlds", plot=False)
    args = parser.parse_args(argv)
    if args.quick:
        args.worlds, args.rounds, args.steps = QUICK["worlds"], QUICK["rounds"], QUICK["steps"]
    started = time.monotonic()
    result: dict = {"benchmark": "vision_worlds", "host": host.describe(), "measured_at": results.measured_now(),
                    "worlds": args.worlds, "rounds": args.rounds, "steps": args.steps,
                    "settings": {"quick": args.quick}}
    try:
        result["row"] = measure(args.worlds, args.size, args.rounds, args.steps)
        result["duration_s"] = time.monotonic() - started
    except BenchmarkError as error:
        print(f"perf.vision.worlds: {error}", file=sys.stderr)
        return 1
    text = worlds_markdown(result)
    results.publish(args.out, result, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
