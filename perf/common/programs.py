"""Where the programs the benchmarks run are: the C++ builds, the Python
environments, and the repository root every process runs from."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from perf.common.errors import BenchmarkError

REPO = Path(__file__).resolve().parents[2]


def _build_dir() -> Path:
    return REPO / os.environ.get("COUPLER_BUILD_DIR", "build/cpp")


def _existing(path: Path, what: str, hint: str) -> Path:
    if not path.exists():
        raise BenchmarkError(f"{what} not found at {path}: {hint}")
    return path


def democlient() -> Path:
    """The C++ demo controller (COUPLER_DEMOCLIENT overrides where it is)."""
    default = _build_dir() / "bin/democlient"
    return _existing(Path(os.environ.get("COUPLER_DEMOCLIENT", default)), "the C++ democlient", "run scripts/setup")


def zmq_pingpong() -> Path:
    """The C++ transport floor program built from perf/floor."""
    return _existing(_build_dir() / "bin/zmq_pingpong", "the C++ floor program zmq_pingpong", "run scripts/setup")


def recorded_server() -> Path:
    """The minimal ROUTER server answering recorded frames, built from perf/floor."""
    return _existing(_build_dir() / "bin/recorded_server", "the recorded-frames server recorded_server",
                     "run scripts/setup")


def shm_round_trip() -> Path:
    """The round trip through shared memory with futex wake-ups, built from perf/floor."""
    return _existing(_build_dir() / "bin/shm_round_trip", "the shared-memory round trip program shm_round_trip",
                     "run scripts/setup")


def python() -> str:
    """The interpreter running the benchmarks, which has coupler installed."""
    return sys.executable


def pclick_python() -> Path:
    """The interpreter of the Click reference environment (COUPLER_PCLICK_PYTHON overrides it)."""
    default = REPO / ".venv-pclick/bin/python"
    return _existing(
        Path(os.environ.get("COUPLER_PCLICK_PYTHON", default)), "the pclick environment", "run scripts/setup"
    )
