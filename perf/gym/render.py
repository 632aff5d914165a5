"""perf.gym's result as markdown: a row per model, N and subject, with the targets judged at the largest N."""

from __future__ import annotations

from typing import Any

from perf.common.markdown import number, table

# At N = 64 on Gymnasium's ant: coupler's steps/s over the better of Gymnasium's sync and async vector
# environments, and its steps per CPU second over the in-process limit's.
TARGET_ENVS = 64
TARGET_VS_GYMNASIUM = 1.3
TARGET_VS_INPROCESS = 0.75
# Against EnvPool, the throughput peer (its better of sync and async mode, per repeat): coupler's rate on Ant
# and on Humanoid at N = 64, its share of the in-process limit on every core, its rate at N = 256 against its
# own at 64 (no per-environment cost that grows), and against Gymnasium's better vector mode.
ENVPOOL_TARGETS = (  # (model, key, target, what)
    ("ant", "vs_best_envpool", 1.2, "EnvPool's better mode"),
    ("ant", "vs_inprocess_all_cores", 0.85, "the in-process limit × cores"),
    ("humanoid", "vs_best_envpool", 1.0, "EnvPool's better mode"),
    ("ant", "vs_best_gymnasium", 2.5, "the better of Gymnasium sync/async"),
)
LARGE_ENVS, TARGET_LARGE_VS_TARGET_ENVS = 256, 0.9
# The coupler subjects judged against EnvPool: the task equal to Gymnasium's environment when it was measured,
# else the fastest of these (by median) at that model and N.
COUPLER_CONTENDERS = ("coupler", "coupler-2threads", "coupler-2servers")


def _ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}×"


def _with_envpool(result: dict[str, Any]) -> bool:
    """Whether the result is of a run that knew of EnvPool (results from before it have none of its columns)."""
    return "envpool" in result


def rows_table(result: dict[str, Any]) -> str:
    headers = ["model", "N", "subject", "env steps/s (median)", "min – max", "CPU µs / env step", "cores used",
               "vs best Gymnasium", "vs in-process per core"]
    cells = [[row["model"], str(row["envs"]), row["subject"], number(row["env_steps_per_s"], 0),
              f"{number(row['min'], 0)} – {number(row['max'], 0)}", number(row["cpu_us_per_env_step"]),
              f"{row['cores_used']:.2f}", _ratio(row["vs_best_gymnasium"]), _ratio(row["vs_inprocess_per_core"])]
             for row in result["rows"]]
    if _with_envpool(result):
        headers += ["vs best EnvPool", "vs in-process × cores"]
        for row, line in zip(result["rows"], cells):
            line += [_ratio(row.get("vs_best_envpool")), _ratio(row.get("vs_inprocess_all_cores"))]
    return table(headers, cells, [False, True, False] + [True] * (len(headers) - 3))


def _contender(result: dict[str, Any], model: str, envs: int) -> dict[str, Any] | None:
    """The coupler row judged against EnvPool at this model and N (COUPLER_CONTENDERS), or None."""
    rows = [r for r in result["rows"] if (r["model"], r["envs"]) == (model, envs)]
    task = next((r for r in rows if r["subject"] == "task"), None)
    if task is not None:
        return task
    candidates = [r for r in rows if r["subject"] in COUPLER_CONTENDERS]
    return max(candidates, key=lambda r: r["env_steps_per_s"], default=None)


def _verdict(value: float | None, target: float) -> str:
    return "not measured" if value is None else ("met" if value >= target else "missed")


def envpool_verdicts(result: dict[str, Any]) -> list[str]:
    """One line per target against EnvPool (ENVPOOL_TARGETS and N = 256 against N = 64), judged on the
    coupler row of _contender."""
    lines = []
    for model, key, target, what in ENVPOOL_TARGETS:
        row = _contender(result, model, TARGET_ENVS)
        if row is None:
            lines.append(f"- coupler, {model}, N = {TARGET_ENVS}: ≥ {target:g}× {what}: not measured by this run")
            continue
        value = row.get(key)
        lines.append(f"- coupler ({row['subject']}), {model}, N = {TARGET_ENVS}: ≥ {target:g}× {what}: "
                     f"{_ratio(value)}, {_verdict(value, target)}")
    for model in ("ant", "humanoid"):
        # The subject judged at N = 64, at N = 256 too: the same environment at both sizes.
        small = _contender(result, model, TARGET_ENVS)
        large = None if small is None else next(
            (r for r in result["rows"] if (r["model"], r["envs"], r["subject"]) == (model, LARGE_ENVS,
                                                                                    small["subject"])), None)
        what = f"≥ {TARGET_LARGE_VS_TARGET_ENVS:g}× its env steps/s at N = {TARGET_ENVS}"
        if small is None or large is None:
            lines.append(f"- coupler, {model}, N = {LARGE_ENVS}: {what}: not measured by this run")
            continue
        value = large["env_steps_per_s"] / small["env_steps_per_s"]
        # CPU per env step does not move with the machine's load between the two sizes' runs, steps/s does.
        cpu = small["cpu_us_per_env_step"] / large["cpu_us_per_env_step"]
        lines.append(f"- coupler ({large['subject']}), {model}, N = {LARGE_ENVS}: {what}: {_ratio(value)} "
                     f"(CPU per env step: {_ratio(cpu)}), {_verdict(value, TARGET_LARGE_VS_TARGET_ENVS)}")
    return lines


def envpool_note(result: dict[str, Any]) -> str:
    """How EnvPool was run, or why it was not."""
    peer = result.get("envpool")
    if peer is None:
        return "EnvPool: not asked for by this run."
    if "missing" in peer:
        return f"EnvPool: not measured: {peer['missing']}."
    return (f"envpool, envpool-async: EnvPool {peer['envpool']} (NumPy {peer['numpy']}, Gymnasium "
            f"{peer['gymnasium']}) in a venv of its own (`.venv-envpool`, made by `scripts/setup`), its "
            "`envpool.make(ID, env_type=\"gymnasium\", num_envs=N, batch_size=B, num_threads=CPUs)` stepped "
            f"in a child process (`perf/gym/envpool_peer.py`) with uniform random actions, frame skip "
            f"{peer['frame_skip']}; envpool: sync mode, B = N; envpool-async: B = N / 2, `send` to the "
            "environments `recv` returned. Its blocks take turns with the others'; wall and CPU are its "
            "process's. coupler is judged by the task equal to Gymnasium's environment where measured, else by "
            "the fastest of coupler, coupler-2threads and coupler-2servers; per repeat against the better "
            "of envpool and envpool-async; × cores: against the in-process limit's rate times the CPUs.")


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
        *(envpool_verdicts(result) if _with_envpool(result) else []),
        "",
        *([envpool_note(result), ""] if _with_envpool(result) else []),
        "coupler: `gymnasium.make_vec(\"coupler/Scene-v0\", num_envs=N, scene=MODEL, frame_skip=5)` (one batched "
        "server, `--threads 1`; coupler-2threads: `--threads 2`; coupler-2servers: its worlds on two servers); "
        "ray-1server, ray-2servers: a `coupler.ray.ServerPool` of one or two servers on a local Ray cluster "
        "of two one-CPU nodes (TCP with CURVE); sync and async: "
        "`gymnasium.make_vec(ID, num_envs=N, vectorization_mode=...)`, ID `\"Ant-v5\"`, `\"HalfCheetah-v5\"` or "
        "`\"Humanoid-v5\"`; task: `gymnasium.make_vec(\"coupler/\" + ID, num_envs=N)` where coupler has that task "
        "(observations, rewards and ends equal to Gymnasium's); inprocess: the same model's N "
        "`mjData` stepped one after the other in the benchmark's process, no environment (the limit). CPU is "
        "that of the benchmark's process and every process it started (servers, workers); cores used is CPU "
        "over wall time. Ratios are medians of per-repeat ratios; per core: the limit's CPU per env step over "
        "the subject's.",
    ])
