"""Coupler servers on a Ray cluster (needs the `ray` extra): `ServerPool` runs batched servers as actors,
and `coupler.gym.CouplerVectorEnv(pool=...)` drives them as one vector environment; `LocalCluster` is a
cluster of several nodes on this machine, to try it on."""

from coupler.ray.local_cluster import LocalCluster
from coupler.ray.server_pool import ServerPool

__all__ = ["LocalCluster", "ServerPool"]
