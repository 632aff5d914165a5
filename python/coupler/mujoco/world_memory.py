"""Whether a batch of worlds fits in the machine's memory, asked before it is made.

Each world is an `mjData` (about 0.5 MB for the arm scene) and its arrays:
65,536 arm worlds need tens of gigabytes, and running out half way ends in
a MuJoCo fatal error, or in the kernel's OOM killer. The cost of a world is
measured on the first few made (resident memory before and after, as
/proc/self/statm counts it) and the rest are made only if the machine's
available memory (MemAvailable in /proc/meminfo) holds them. Where /proc is
missing (not Linux) nothing is checked.
"""

from __future__ import annotations

from pathlib import Path

from coupler.wire.errors import Error

# Worlds made and measured before the rest are counted: enough that a page's rounding does not matter.
PROBE_WORLDS = 16
_MEMINFO = Path("/proc/meminfo")


def available_bytes(meminfo: Path = _MEMINFO) -> int | None:
    """The machine's MemAvailable in bytes; None where it cannot be read."""
    try:
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_worlds_fit(count: int, made: int, per_world: float, available: int | None) -> None:
    """Error when the `count` - `made` worlds still to make, at `per_world` bytes each, exceed `available`."""
    if available is None:
        return
    needed = per_world * (count - made)
    if needed > available:
        raise Error(f"--worlds {count} needs about {per_world * count / 2**30:.1f} GiB (about "
                    f"{per_world / 1e3:.0f} kB a world, as the first were); this machine has "
                    f"{available / 2**30:.1f} GiB available: serve fewer worlds, or split them over several servers")
