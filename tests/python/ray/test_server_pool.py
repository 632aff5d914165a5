"""ServerPool on a local Ray cluster of two nodes (both on loopback): servers as actors, reached over CURVE."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import ray

from coupler.gym import CouplerVectorEnv
from coupler.ray import ServerPool
from coupler.transport.client import Client
from coupler.wire.errors import TimeoutError
from coupler.wire.messages import SensorRequestMessage
from peers import free_tcp_address

RAY = str(Path(sys.executable).parent / "ray")
START_TIMEOUT = 120.0
NODE_FLAGS = ["--block", "--node-ip-address", "127.0.0.1", "--num-cpus", "1", "--object-store-memory", "80000000",
              "--disable-usage-stats"]


def _start(command: list[str], log: Path) -> subprocess.Popen:
    """`ray start --block ...`: ours to stop by its pid, which takes the node's processes with it."""
    return subprocess.Popen(command, stdout=log.open("w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)


def _stop(process: subprocess.Popen) -> None:
    """SIGTERM, which `ray start --block` answers by stopping its node; SIGKILL if it has not within 30 s."""
    process.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(30)
    if process.poll() is None:
        process.kill()
        process.wait(10)


@pytest.fixture(scope="module")
def two_node_cluster(tmp_path_factory):
    logs = tmp_path_factory.mktemp("ray")
    port = free_tcp_address().rsplit(":", 1)[1]
    head = _start([RAY, "start", "--head", "--port", port, "--include-dashboard", "false",
                   "--temp-dir", str(logs / "t"), *NODE_FLAGS], logs / "head.log")
    nodes = [head]
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while "will now block" not in (logs / "head.log").read_text():
            assert head.poll() is None, (logs / "head.log").read_text()[-2000:]
            assert time.monotonic() < deadline, "ray head did not start"
            time.sleep(0.5)
        nodes.append(_start([RAY, "start", "--address", f"127.0.0.1:{port}", *NODE_FLAGS], logs / "worker.log"))
        ray.init(address=f"127.0.0.1:{port}", logging_level="ERROR")
        while len([n for n in ray.nodes() if n["Alive"]]) < 2:
            assert nodes[1].poll() is None, (logs / "worker.log").read_text()[-2000:]
            assert time.monotonic() < deadline, "the second ray node did not join"
            time.sleep(0.5)
        yield
    finally:
        ray.shutdown()
        for process in reversed(nodes):
            _stop(process)


@pytest.fixture(scope="module")
def pool(two_node_cluster):
    with ServerPool(num_servers=2, worlds_per_server=2, scene="arm") as made:
        yield made


def test_the_pools_servers_run_on_both_nodes(pool):
    assert len(set(pool.nodes)) == 2


def test_a_vector_env_over_the_pool_steps_the_trajectories_of_local_servers(pool):
    rng = np.random.default_rng(0)
    remote = CouplerVectorEnv(4, scene="arm", task="ArmReach", frame_skip=2, pool=pool)
    local = CouplerVectorEnv(4, scene="arm", task="ArmReach", frame_skip=2)
    try:
        np.testing.assert_array_equal(remote.reset(seed=1)[0], local.reset(seed=1)[0])
        for _ in range(3):
            action = rng.uniform(local.action_space.low, local.action_space.high)
            for mine, theirs in zip(remote.step(action)[:4], local.step(action)[:4]):
                np.testing.assert_array_equal(mine, theirs)
    finally:
        remote.close()
        local.close()


def test_a_client_without_the_pools_keys_gets_no_answer(pool):
    address, _ = pool.endpoints[0]
    with Client(address, timeout=1.0) as stranger, pytest.raises(TimeoutError):
        stranger.request(SensorRequestMessage())
