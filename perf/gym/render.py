"""perf.gym's result as markdown: a row per model, N and subject, the targets judged on them (perf.gym.targets),
how the subjects were run and the command that measures them again."""

from __future__ import annotations

from typing import Any

from perf.common import paired
from perf.common.markdown import number, table
from perf.gym import targets


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
            "process's; vs best EnvPool: per repeat against the faster of envpool and envpool-async.")


def ray_note(result: dict[str, Any]) -> str | None:
    """Where the Ray pools' servers ran, for a run that measured them."""
    ray = result.get("ray")
    if ray is None:
        return None
    placed = "; ".join(f"{point}: {nodes} node{'s' if nodes != 1 else ''}"
                       for point, nodes in ray["servers_on_nodes"].items())
    return (f"ray-1server, ray-2servers, ray-4servers: a `coupler.ray.ServerPool` of one, two or four servers "
            f"(`coupler serve --worlds N/servers --threads 1`, TCP with CURVE) on a local Ray cluster "
            f"(`coupler.ray.LocalCluster`) of {ray['nodes']} nodes of {ray['cpus_per_node']} CPU each, its "
            f"actors spread over the nodes, driven by one `CouplerVectorEnv(N, scene=MODEL, frame_skip=5, "
            f"pool=pool)`. The nodes the servers ran on: {placed}.")


def _took(result: dict[str, Any]) -> str:
    seconds = result.get("duration_s")
    return "" if seconds is None else f" The run took {seconds:.0f} s ({seconds / 60:.1f} min)."


def _command(result: dict[str, Any]) -> list[str]:
    command = result.get("command")
    return [] if command is None else [f"Measured by `{command}` (from the repository root, in its venv; "
                                       "`--out perf/latest` publishes the result).", ""]


def _targets(result: dict[str, Any]) -> list[str]:
    """The targets' table, but for the Ray pool's run, which measures none of their rows."""
    if result["settings"].get("form") == "ray":
        return []
    return [
        targets.render(targets.evaluate(result)),
        "",
        "Targets: ratios taken repeat by repeat (the blocks of a repeat ran back to back), their median with the "
        "lowest and highest repeat's; N = 256 against N = 64: the ratio of medians, its spread as wide as the two "
        f"allow. A figure whose spread crosses its target, or whose middle repeats lie more than "
        f"{paired.MOST_MIDDLE_SPREAD * 100:.0f} % apart, is not judged (\"{paired.NOISY}\"); figures never fail a run.",
        "",
    ]


def render(result: dict[str, Any]) -> str:
    settings = result["settings"]
    return "\n".join([
        "## Vector environments: environment steps per second",
        "",
        f"{result['measured_at']}, {result['host']['cpu']} ({result['host']['logical_cpus']} logical CPUs), "
        f"frame skip 5, {settings['repeats']} interleaved repeats of {settings['env_steps']} env steps each"
        f"{' (quick)' if settings.get('quick') else ''}.{_took(result)}",
        "",
        *_command(result),
        rows_table(result),
        "",
        *_targets(result),
        *([envpool_note(result), ""] if _with_envpool(result) else []),
        *([note, ""] if (note := ray_note(result)) is not None else []),
        "task: `gymnasium.make_vec(\"coupler/\" + ID, num_envs=N)`, ID `\"Ant-v5\"`, `\"HalfCheetah-v5\"` or "
        "`\"Humanoid-v5\"`: coupler's task equal to Gymnasium's environment (observations, rewards and ends), "
        "one batched server stepping its worlds on a thread per CPU; task-2servers: `servers=2`, the CPUs' "
        "threads shared between them. coupler: `gymnasium.make_vec(\"coupler/Scene-v0\", num_envs=N, "
        "scene=MODEL, frame_skip=5)` (one batched server, `threads=1`; coupler-2threads: `threads=2`; "
        "coupler-2servers: its worlds on two servers). sync and async: `gymnasium.make_vec(ID, num_envs=N, "
        "vectorization_mode=...)`. inprocess: the same model's N `mjData` stepped one after the other in the "
        "benchmark's process, no environment (the limit: its rate on one core, × the CPUs on all of them). CPU "
        "is that of the benchmark's process and every process it started (servers, workers); cores used is CPU "
        "over wall time. Ratios in the table are medians of per-repeat ratios; per core: the limit's CPU per "
        "env step over the subject's.",
    ])
