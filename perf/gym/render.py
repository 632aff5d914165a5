"""perf.gym's result as markdown: a row per model, N and subject, with the targets judged at the largest N."""

from __future__ import annotations

from typing import Any

from perf.common.markdown import number, table

# At N = 64 on Gymnasium's ant: coupler's steps/s over the better of Gymnasium's sync and async vector
# environments, and its steps per CPU second over the in-process limit's.
TARGET_ENVS = 64
TARGET_VS_GYMNASIUM = 1.3
TARGET_VS_INPROCESS = 0.75


def _ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}×"


def rows_table(result: dict[str, Any]) -> str:
    headers = ["model", "N", "subject", "env steps/s (median)", "min – max", "CPU µs / env step", "cores used",
               "vs best Gymnasium", "vs in-process per core"]
    cells = [[row["model"], str(row["envs"]), row["subject"], number(row["env_steps_per_s"], 0),
              f"{number(row['min'], 0)} – {number(row['max'], 0)}", number(row["cpu_us_per_env_step"]),
              f"{row['cores_used']:.2f}", _ratio(row["vs_best_gymnasium"]), _ratio(row["vs_inprocess_per_core"])]
             for row in result["rows"]]
    return table(headers, cells, [False, True, False, True, True, True, True, True, True])


def verdicts(result: dict[str, Any]) -> list[str]:
    """One line per target: the figure behind it and whether it is met, or that this run did not measure it."""
    lines = []
    for subject in ("coupler", "coupler-2threads", "coupler-2servers"):
        row = next((r for r in result["rows"] if (r["model"], r["envs"], r["subject"]) == ("ant", TARGET_ENVS,
                                                                                           subject)), None)
        if row is None:
            lines.append(f"- {subject}, ant, N = {TARGET_ENVS}: not measured by this run")
            continue
        for key, target, what in (("vs_best_gymnasium", TARGET_VS_GYMNASIUM, "the better of Gymnasium sync/async"),
                                  ("vs_inprocess_per_core", TARGET_VS_INPROCESS, "the in-process limit per core")):
            value = row[key]
            verdict = "not measured" if value is None else ("met" if value >= target else "missed")
            lines.append(f"- {subject}, ant, N = {TARGET_ENVS}: ≥ {target:g}× {what}: {_ratio(value)}, {verdict}")
    return lines


def render(result: dict[str, Any]) -> str:
    settings = result["settings"]
    return "\n".join([
        "## Vector environments: environment steps per second",
        "",
        f"{result['measured_at']}, {result['host']['cpu']} ({result['host']['logical_cpus']} logical CPUs), "
        f"frame skip 5, {settings['repeats']} interleaved repeats of {settings['env_steps']} env steps each"
        f"{' (quick)' if settings.get('quick') else ''}.",
        "",
        rows_table(result),
        "",
        *verdicts(result),
        "",
        "coupler: `gymnasium.make_vec(\"coupler/Scene-v0\", num_envs=N, scene=MODEL, frame_skip=5)` (one batched "
        "server, `--threads 1`; coupler-2threads: `--threads 2`; coupler-2servers: its worlds on two servers); "
        "ray-1server, ray-2servers: a `coupler.ray.ServerPool` of one or two servers on a local Ray cluster "
        "of two one-CPU nodes (TCP with CURVE); sync and async: "
        "`gymnasium.make_vec(ID, num_envs=N, vectorization_mode=...)`, ID `\"Ant-v5\"` or `\"HalfCheetah-v5\"`; task: "
        "`gymnasium.make_vec(TASK, num_envs=N)`, TASK `\"coupler/Ant-v5\"` or `\"coupler/HalfCheetah-v5\"` "
        "(observations, rewards and ends equal to "
        "Gymnasium's); inprocess: the same model's N "
        "`mjData` stepped one after the other in the benchmark's process, no environment (the limit). CPU is "
        "that of the benchmark's process and every process it started (servers, workers); cores used is CPU "
        "over wall time. Ratios are medians of per-repeat ratios; per core: the limit's CPU per env step over "
        "the subject's.",
    ])
