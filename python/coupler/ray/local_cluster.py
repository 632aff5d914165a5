"""A Ray cluster of several nodes on this machine, on loopback: for trying a pool, its tests and benchmarks.

    with LocalCluster(nodes=2, cpus_per_node=1) as cluster:
        ray.init(address=cluster.address)

Each node is a `ray start --block` process of its own (the first the head),
stopped by its pid when the block ends, which takes the node's processes
with it; nothing else on the machine is touched.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from coupler.wire.errors import Error

log = logging.getLogger("coupler.ray")

DEFAULT_START_TIMEOUT = 120.0
_STOP_TIMEOUT = 30.0
_POLL = 0.5
_BLOCKING = "will now block"  # what `ray start --block` prints once its node runs
# The least object store Ray accepts: the pool moves no objects worth speaking of.
_OBJECT_STORE_BYTES = 80_000_000
_ATTEMPTS = 3


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalCluster:
    """`nodes` Ray nodes of `cpus_per_node` CPUs on 127.0.0.1; `address` is the head's, for `ray.init`.

    Error with the end of a node's output when it exits or has not started
    within `start_timeout` seconds.
    """

    def __init__(self, nodes: int = 2, cpus_per_node: int = 1, start_timeout: float = DEFAULT_START_TIMEOUT) -> None:
        if nodes < 1 or cpus_per_node < 1:
            raise Error(f"a cluster needs at least one node of one CPU; got {nodes} of {cpus_per_node}")
        ray = str(Path(sys.executable).parent / "ray")
        self._dir = Path(tempfile.mkdtemp(prefix="coupler-ray-"))
        self.address = ""
        flags = ["--block", "--node-ip-address", "127.0.0.1", "--num-cpus", str(cpus_per_node),
                 "--object-store-memory", str(_OBJECT_STORE_BYTES), "--disable-usage-stats"]
        self._nodes: list[tuple[subprocess.Popen[bytes], Path]] = []
        try:
            deadline = time.monotonic() + start_timeout
            for k in range(nodes):
                self._start_node(ray, flags, k, deadline)
        except BaseException:
            self.close()
            raise

    def _start_node(self, ray: str, flags: list[str], k: int, deadline: float) -> None:
        """Start node k (0: the head), again up to _ATTEMPTS times when it exits while starting.

        Ray gives a starting node a fixed time to reach its head; on a loaded
        machine it can miss it, and a second try usually does not.
        """
        for attempt in range(1, _ATTEMPTS + 1):
            if k == 0:
                self.address = f"127.0.0.1:{_free_port()}"
                command = [ray, "start", "--head", "--port", self.address.rsplit(":", 1)[1], "--include-dashboard",
                           "false", "--temp-dir", str(self._dir / "ray"), *flags]
            else:
                command = [ray, "start", "--address", self.address, *flags]
            name = f"node{k}-{attempt}"
            output = self._dir / f"{name}.log"
            with output.open("wb") as sink:
                process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            self._nodes.append((process, output))
            while _BLOCKING not in output.read_text(errors="replace"):
                if process.poll() is not None or time.monotonic() > deadline:
                    break
                time.sleep(_POLL)
            else:
                return
            tail = output.read_text(errors="replace")[-1500:].encode("unicode_escape").decode("ascii")
            if process.poll() is None or attempt == _ATTEMPTS:
                problem = "did not start in time" if process.poll() is None else f"exited with {process.returncode}"
                raise Error(f"ray node {k} {problem}: {tail}")
            log.warning("ray node %d exited while starting (attempt %d of %d); starting it again", k, attempt,
                        _ATTEMPTS)

    def close(self) -> None:
        """Stop every node (SIGTERM, which `ray start --block` answers by stopping its node; SIGKILL past 30 s)."""
        for process, _ in reversed(self._nodes):
            process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(_STOP_TIMEOUT)
            if process.poll() is None:
                log.warning("ray node %d did not stop within %s s of SIGTERM; killing it", process.pid, _STOP_TIMEOUT)
                process.kill()
                process.wait(_STOP_TIMEOUT)
        self._nodes = []
        shutil.rmtree(self._dir, ignore_errors=True)

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
