"""What a result was measured on, recorded next to the figures."""

from __future__ import annotations

import importlib.metadata
import os
import platform
from pathlib import Path

import zmq


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def describe() -> dict[str, str | int]:
    return {
        "machine": platform.node(),  # so a published table says which machine it was measured on
        "cpu": _cpu_model(),
        "logical_cpus": os.cpu_count() or 0,
        "os": platform.platform(),
        "python": platform.python_version(),
        "libzmq": zmq.zmq_version(),  # the one pyzmq runs on; the C++ programs may link another
        "pyzmq": zmq.pyzmq_version(),
        "mujoco": _version("mujoco"),
    }
