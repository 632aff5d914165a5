"""ServerPool on a local Ray cluster of two nodes (both on loopback): servers as actors, reached over CURVE."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
import ray

from coupler.gym import CouplerVectorEnv
from coupler.ray import LocalCluster, ServerPool
from coupler.transport.client import Client
from coupler.wire.errors import TimeoutError
from coupler.wire.messages import SensorRequestMessage


@pytest.fixture(scope="module")
def two_node_cluster():
    with LocalCluster(nodes=2, cpus_per_node=1) as cluster:
        ray.init(address=cluster.address, logging_level="ERROR")
        try:
            deadline = time.monotonic() + 60.0
            while len([node for node in ray.nodes() if node["Alive"]]) < 2:
                assert time.monotonic() < deadline, "the second ray node did not join"
                time.sleep(0.5)
            yield
        finally:
            ray.shutdown()


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


def test_under_a_cluster_on_loopback_the_servers_listen_on_loopback(pool):
    assert [address.rsplit(":", 1)[0] for address, _ in pool.endpoints] == ["tcp://127.0.0.1"] * 2


def test_no_secret_key_stays_on_disk_while_the_pool_serves(pool):
    folders = ray.get([actor.key_folder.remote() for actor in pool._actors])
    assert len(folders) == 2
    assert not [folder for folder in folders if Path(folder).exists()]
    assert not pool._keys.exists()


def test_the_server_of_a_killed_actor_stops(two_node_cluster):
    with ServerPool(num_servers=1, worlds_per_server=1, scene="arm", num_cpus=0) as small:  # beside the pool
        actor = small._actors[0]
        server = ray.get(actor.server_pid.remote())
        ray.kill(actor)
        deadline = time.monotonic() + 10.0
        while _running(server) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(server)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")
