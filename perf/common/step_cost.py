"""The cost of one physics step of a scene, measured alone: no transport, no
codec, no server loop. perf.rtt sets the unpaced lockstep rate against
1 / (transport floor + this), the most any server could hold."""

from __future__ import annotations

import time

import numpy as np

from perf.common.errors import BenchmarkError

WARM_UP_STEPS = 200
BATCH_STEPS = 100


def step_cost_us(scene: str, batches: int = 30) -> float | None:
    """Median over `batches` batches of the mean time of one mj_step (us) of a demo.server scene,
    from its keyframe with its initial controls; None for a scene without physics (static)."""
    from coupler.mujoco.simulation import MujocoSimulation
    from coupler.scenes import load_scene
    from coupler.wire.errors import Error

    try:
        simulation = load_scene(scene, None)
    except Error as error:  # load_scene's refusal of an unknown scene
        raise BenchmarkError(str(error)) from None
    if not isinstance(simulation, MujocoSimulation):
        return None
    # The same call the server makes per Control, so Python's call overhead is in both.
    simulation.step(WARM_UP_STEPS)
    per_batch = np.empty(batches)
    for i in range(batches):
        started = time.perf_counter()
        for _ in range(BATCH_STEPS):
            simulation.step()
        per_batch[i] = (time.perf_counter() - started) / BATCH_STEPS
    return float(np.median(per_batch) * 1e6)
