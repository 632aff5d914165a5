"""Coupler servers on a Ray cluster (needs the `ray` extra): `ServerPool` runs batched servers as actors,
and `coupler.gym.CouplerVectorEnv(pool=...)` drives them as one vector environment."""

from coupler.ray.server_pool import ServerPool

__all__ = ["ServerPool"]
