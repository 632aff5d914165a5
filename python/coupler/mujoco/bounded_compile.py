"""Compiling an MJCF model within announced bounds of time and memory, before the server compiles it for good.

A model is anyone's text: a 291-byte file declaring a 40000x40000 height
field takes 6 GB, a 400x400 flexcomp compiles for minutes. The model is
first compiled in a forked child under an address-space limit
(RLIMIT_AS: `COMPILE_BYTES` beyond what the process already maps) and a
time limit (`COMPILE_SECONDS`, then the child is killed); only a model that
compiled there is compiled by the server itself. Compiling twice costs the
time of one compile of a model that passes: milliseconds for most scenes.
Where fork or resource limits are missing (not POSIX), nothing is bounded.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import mujoco

try:
    import resource
except ImportError:  # not POSIX: nothing is bounded
    resource = None  # type: ignore[assignment]

from coupler.mujoco.warning_log import route_mujoco_warnings
from coupler.wire.errors import Error
from coupler.wire.peer_text import shown

COMPILE_SECONDS = 60.0
COMPILE_BYTES = 4 << 30
_MESSAGE_BYTES = 2000
_POLL = 0.005
_REFUSED = 2  # the child's exit status when MuJoCo refused the model (not a bound)


def _mapped_bytes() -> int:
    with open("/proc/self/statm", "rb") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _compile_in_child(path: Path, max_bytes: int, write_fd: int) -> None:
    """The forked child: compile under the memory limit, tell the parent how it failed, never return."""
    code = 0
    try:
        limit = _mapped_bytes() + max_bytes
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        mujoco.MjModel.from_xml_path(str(path))
    except ValueError:
        code = _REFUSED  # MuJoCo refused the model cleanly: the server's own compile names why
    except BaseException as error:  # noqa: BLE001 - out of memory shows as RuntimeError, MemoryError, FatalError
        code = 1
        try:
            os.write(write_fd, " ".join(f"{type(error).__name__}: {error}".split()).encode()[:_MESSAGE_BYTES])
        except BaseException:  # noqa: BLE001
            pass
    os._exit(code)


def check_compiles(path: Path, seconds: float = COMPILE_SECONDS, max_bytes: int = COMPILE_BYTES) -> None:
    """Error unless MuJoCo compiles `path` within `seconds` and `max_bytes` more memory (in a child process).

    A model MuJoCo refuses is not an error here: the server's own compile
    names the problem as it always has.
    """
    if resource is None or not hasattr(os, "fork") or not Path("/proc/self/statm").exists():
        return
    route_mujoco_warnings()  # the child's warnings too: never MUJOCO_LOG.TXT
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _compile_in_child(path, max_bytes, write_fd)
    os.close(write_fd)
    try:
        deadline = time.monotonic() + seconds
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise Error(f"scene file '{shown(str(path))}' did not compile within {seconds:g} s: refused (a "
                            "model must compile within that time)")
            time.sleep(_POLL)
        message = os.read(read_fd, _MESSAGE_BYTES).decode(errors="replace")
    finally:
        os.close(read_fd)
    if os.WIFSIGNALED(status):
        raise Error(f"scene file '{shown(str(path))}' crashed MuJoCo's compiler (signal {os.WTERMSIG(status)}): refused")
    if os.WEXITSTATUS(status) == 1:
        raise Error(f"scene file '{shown(str(path))}' did not compile within {max_bytes >> 30} GiB of memory: refused "
                    f"({shown(message)})")
