"""EnvPool stepped in timed blocks, run by the python of EnvPool's own venv (.venv-envpool) for perf.gym.

EnvPool pins its own dependencies, so it never shares a process (or a venv) with coupler: perf.gym runs
this file as a child, which builds one EnvPool, resets it and prints a JSON line saying it is ready; then
each line {"env_steps": S} on stdin steps the pool S environment steps with uniform random actions in
[-1, 1] (drawn beforehand, outside the timing) and answers a JSON line of the block's wall and CPU seconds.
EOF on stdin ends it. Imports nothing of coupler, only the standard library, NumPy and EnvPool.

Sync mode (batch = N) steps every environment each call; async mode (batch < N) sends the actions of the
`batch` environments that came back first and receives the next `batch` done, so EnvPool's threads never
wait for the slowest environment of the step.

    .venv-envpool/bin/python perf/gym/envpool_peer.py --task Ant-v5 --envs 64 --batch 32 --threads 2
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from importlib import metadata


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Step an EnvPool in blocks asked for on stdin, answering JSON "
                                     "lines of wall and CPU seconds on stdout.")
    parser.add_argument("--task", required=True, help="EnvPool task id, such as Ant-v5 (required)")
    parser.add_argument("--envs", type=int, required=True, help="number of environments, num_envs (required)")
    parser.add_argument("--batch", type=int, default=None,
                        help="batch_size: the environments each step returns; less than --envs is EnvPool's "
                             "async mode (default: --envs, sync)")
    parser.add_argument("--threads", type=int, default=1, help="num_threads of EnvPool's pool (default: 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the pool and of the actions (default: 0)")
    return parser.parse_args(argv)


def _answer(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    batch = args.batch or args.envs
    import envpool
    import numpy as np

    pool = envpool.make(args.task, env_type="gymnasium", num_envs=args.envs, batch_size=batch,
                        num_threads=args.threads, seed=args.seed)
    size = int(pool.action_space.shape[0])
    rng = np.random.default_rng(args.seed)
    if batch == args.envs:
        pool.reset()
        ids = np.arange(args.envs, dtype=np.int32)
    else:
        pool.async_reset()
        ids = pool.recv()[-1]["env_id"]
    _answer({"ready": True, "envpool": metadata.version("envpool"), "numpy": np.__version__,
             "gymnasium": metadata.version("gymnasium"), "action_size": size,
             "frame_skip": int(getattr(pool.spec.config, "frame_skip", 0))})
    for line in sys.stdin:
        request = json.loads(line)
        calls = max(1, -(-int(request["env_steps"]) // batch))
        actions = rng.uniform(-1.0, 1.0, size=(calls, batch, size))
        cpu, started = time.process_time(), time.perf_counter()
        if batch == args.envs:
            for action in actions:
                pool.step(action, ids)
        else:
            for action in actions:
                pool.send(action, ids)
                ids = pool.recv()[-1]["env_id"]
        wall = time.perf_counter() - started
        _answer({"env_steps": calls * batch, "wall_s": wall, "cpu_s": time.process_time() - cpu})
    pool.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
