"""A pool of batched coupler servers run as Ray actors, wherever the cluster has room.

    import ray, gymnasium
    from coupler.ray import ServerPool
    from coupler.gym import CouplerVectorEnv

    ray.init(address="auto")
    with ServerPool(num_servers=4, worlds_per_server=64, scene="arm") as pool:
        envs = CouplerVectorEnv(256, task="ArmReach", pool=pool)

Each actor runs `coupler serve --worlds K` on TCP at its node's address (the
port picked by the system), with CurveZMQ: every server has a key pair of
its own and admits only the client key pair generated for the pool, so the
frames crossing the network are encrypted and no one else can drive the
worlds. A scene given by path must exist at that path on every node.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path
from typing import Any

from coupler.serve.serve_process import ServeProcess
from coupler.transport.bind_policy import is_loopback
from coupler.transport.curve_keys import create_key_pair, load_key_pair, load_public_key
from coupler.wire.errors import Error
from coupler.wire.missing_extra import needs_extra

with needs_extra("coupler.ray", "ray"):
    import ray

log = logging.getLogger("coupler.ray")

DEFAULT_START_TIMEOUT = 60.0
_STOP_TIMEOUT = 5.0


class _ServerActor:
    """One `coupler serve --worlds K` process on the actor's node, stopped with the actor."""

    def __init__(self, scene: str, worlds: int, threads: int, client_public_key_file: str) -> None:
        self._dir = Path(tempfile.mkdtemp(prefix="coupler-pool-"))
        allowed = self._dir / "allowed"
        allowed.mkdir(mode=0o700)
        (allowed / "pool-client.key").write_text(client_public_key_file)
        _, secret = create_key_pair(self._dir / "server", "server")
        self.public_key = load_public_key(secret)
        host = ray.util.get_node_ip_address()
        flags = ["--scene", scene, "--worlds", str(worlds), "--threads", str(threads),
                 "--curve-secret", str(secret), "--curve-allow", str(allowed)]
        if not is_loopback(host):
            flags.append("--allow-remote")  # on purpose: other nodes reach it, CURVE admits the pool alone
        self.server = ServeProcess(flags, address=f"tcp://{host}:0").launch()

    def start(self, timeout: float) -> tuple[str, bytes, str]:
        """(the bound endpoint, the server's public key, the node id) once it serves; Error otherwise."""
        try:
            self.server.wait_until_serving(timeout)
        except Error as error:
            raise Error(f"on node {ray.util.get_node_ip_address()}: {error}") from None
        assert self.server.endpoint is not None
        return self.server.endpoint, self.public_key, ray.get_runtime_context().get_node_id()

    def stop(self) -> None:
        self.server.close()
        shutil.rmtree(self._dir, ignore_errors=True)


class ServerPool:
    """`num_servers` batched servers of `worlds_per_server` worlds each, one Ray actor apiece.

    Actors are spread over the cluster's nodes (Ray's SPREAD strategy), each
    asking for `num_cpus` CPUs (default: `threads`) and stepping its worlds
    on `threads` threads.
    `endpoints` lists, per server, its address and the transport keywords a
    client needs (CURVE keys); `CouplerVectorEnv(pool=...)` takes the pool.
    `nodes` are the Ray node ids the servers run on. Needs `ray.init()`
    first. Error when a server does not serve within `start_timeout` seconds.
    """

    def __init__(self, num_servers: int, worlds_per_server: int, scene: str = "arm", threads: int = 1,
                 start_timeout: float = DEFAULT_START_TIMEOUT, num_cpus: float | None = None) -> None:
        if num_servers < 1 or worlds_per_server < 1 or threads < 1:
            raise Error(f"a pool needs at least one server, world and thread; got {num_servers} servers of "
                        f"{worlds_per_server} worlds on {threads} threads")
        self.worlds = num_servers * worlds_per_server
        self._keys = Path(tempfile.mkdtemp(prefix="coupler-pool-client-"))
        public, secret = create_key_pair(self._keys, "pool-client")
        client_pair = load_key_pair(secret)
        actor = ray.remote(num_cpus=threads if num_cpus is None else num_cpus)(_ServerActor).options(
            scheduling_strategy="SPREAD")
        self._actors = [actor.remote(scene, worlds_per_server, threads, public.read_text())
                        for _ in range(num_servers)]
        try:
            started = ray.get([a.start.remote(start_timeout) for a in self._actors], timeout=start_timeout + 30)
        except BaseException:
            self.close()
            raise
        self.endpoints: list[tuple[str, dict[str, Any]]] = [
            (endpoint, {"curve_server_key": key, "curve_key_pair": client_pair}) for endpoint, key, _ in started
        ]
        self.nodes = [node for _, _, node in started]

    def close(self) -> None:
        """Stop every server and its actor."""
        actors, self._actors = self._actors, []
        if actors:
            try:
                ray.get([a.stop.remote() for a in actors], timeout=_STOP_TIMEOUT * 3)
            except Exception as error:  # an actor already gone: nothing left to stop
                log.warning("stopping the pool's servers: %s", error)
            for a in actors:
                ray.kill(a)
        shutil.rmtree(self._keys, ignore_errors=True)

    def __enter__(self) -> ServerPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


__all__ = ["ServerPool"]
