"""A pool of batched coupler servers run as Ray actors, wherever the cluster has room.

    import ray, gymnasium
    from coupler.ray import ServerPool
    from coupler.gym import CouplerVectorEnv

    ray.init(address="auto")
    with ServerPool(num_servers=4, worlds_per_server=64, scene="arm") as pool:
        envs = CouplerVectorEnv(256, task="ArmReach", pool=pool)

Each actor runs `coupler serve --worlds K` on TCP at its node's address as
the cluster knows it, or on 127.0.0.1 when every node of the cluster is on
this machine (the port picked by the system), with CurveZMQ: every server has a key pair of its own
and admits only the client key pair generated for the pool, so the frames
crossing the network are encrypted and no one else can drive the worlds. A
scene given by path must exist at that path on every node.

No secret key stays on disk: a server reads its keys at start and the
folder holding them is removed once it serves (and by the server itself as
it stops, should its actor be killed before); the pool's client keys are
removed as soon as they are read. A server stops with its actor, however
the actor ends (its standard input closes).
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path
from typing import Any

from coupler.serve.serve_process import REMOVE_ON_EXIT, ServeProcess
from coupler.transport.bind_policy import is_loopback
from coupler.transport.curve_keys import create_key_pair, load_key_pair, load_public_key
from coupler.wire.errors import Error
from coupler.wire.missing_extra import needs_extra

with needs_extra("coupler.ray", "ray"):
    import ray

log = logging.getLogger("coupler.ray")

DEFAULT_START_TIMEOUT = 60.0
_STOP_TIMEOUT = 5.0


def _node_address() -> str:
    """This node's address as the cluster knows it."""
    node_id = ray.get_runtime_context().get_node_id()
    for node in ray.nodes():
        if node.get("NodeID") == node_id and node.get("NodeManagerAddress"):
            return str(node["NodeManagerAddress"])
    return str(ray.util.get_node_ip_address())


def _cluster_on_this_machine() -> bool:
    """Whether every live node of the cluster has this driver's node address: all on this machine, so its
    servers are reached on loopback. (Ray names a node started on 127.0.0.1 by the machine's address.)"""
    addresses = {node.get("NodeManagerAddress") for node in ray.nodes() if node.get("Alive")}
    return addresses == {_node_address()}


class _ServerActor:
    """One `coupler serve --worlds K` process on the actor's node, stopped with the actor."""

    def __init__(self, scene: str, worlds: int, threads: int, client_public_key_file: str,
                 host: str | None) -> None:
        self._dir = Path(tempfile.mkdtemp(prefix="coupler-pool-"))
        allowed = self._dir / "allowed"
        allowed.mkdir(mode=0o700)
        (allowed / "pool-client.key").write_text(client_public_key_file)
        _, secret = create_key_pair(self._dir / "server", "server")
        self.public_key = load_public_key(secret)
        host = host or _node_address()
        flags = ["--scene", scene, "--worlds", str(worlds), "--threads", str(threads),
                 "--curve-secret", str(secret), "--curve-allow", str(allowed), REMOVE_ON_EXIT, str(self._dir)]
        if not is_loopback(host):
            flags.append("--allow-remote")  # on purpose: other nodes reach it, CURVE admits the pool alone
        self.server = ServeProcess(flags, address=f"tcp://{host}:0").launch()

    def start(self, timeout: float) -> tuple[str, bytes, str]:
        """(the bound endpoint, the server's public key, the node id) once it serves; Error otherwise."""
        try:
            self.server.wait_until_serving(timeout)
        except Error as error:
            raise Error(f"on node {_node_address()}: {error}") from None
        finally:
            shutil.rmtree(self._dir, ignore_errors=True)  # the server has read its keys, or has stopped
        assert self.server.endpoint is not None
        return self.server.endpoint, self.public_key, ray.get_runtime_context().get_node_id()

    def key_folder(self) -> str:
        """Where the server's keys were written."""
        return str(self._dir)

    def server_pid(self) -> int:
        return self.server.pid

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
    `nodes` are the Ray node ids the servers run on. Servers listen on
    `host` when given; else on 127.0.0.1 when every node of the cluster is on
    this machine, and on each node's own address otherwise. Needs `ray.init()`
    first. Error when a server does not serve within `start_timeout` seconds.
    """

    def __init__(self, num_servers: int, worlds_per_server: int, scene: str = "arm", threads: int = 1,
                 start_timeout: float = DEFAULT_START_TIMEOUT, num_cpus: float | None = None,
                 host: str | None = None) -> None:
        if num_servers < 1 or worlds_per_server < 1 or threads < 1:
            raise Error(f"a pool needs at least one server, world and thread; got {num_servers} servers of "
                        f"{worlds_per_server} worlds on {threads} threads")
        self.worlds = num_servers * worlds_per_server
        self._keys = Path(tempfile.mkdtemp(prefix="coupler-pool-client-"))
        try:
            public, secret = create_key_pair(self._keys, "pool-client")
            client_pair = load_key_pair(secret)
            public_text = public.read_text()
        finally:
            shutil.rmtree(self._keys, ignore_errors=True)  # kept in memory: nothing left if the driver crashes
        actor = ray.remote(num_cpus=threads if num_cpus is None else num_cpus)(_ServerActor).options(
            scheduling_strategy="SPREAD")
        if host is None and _cluster_on_this_machine():
            host = "127.0.0.1"
        self._actors = [actor.remote(scene, worlds_per_server, threads, public_text, host)
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
