"""Two perf.rtt results side by side: does a row's ratio to its floor (and to
the recorded server) read the same in both, and does any row read below its
floor? What tells a trustworthy short run from a noisy one on a machine.

    python -m perf.rtt.compare RUN_A/rtt.json RUN_B/rtt.json                  # two short runs: within 10 %
    python -m perf.rtt.compare SHORT/rtt.json FULL/rtt.json --tolerance 0.15  # short against full
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perf.common import results
from perf.common.paired import LOWEST_RATIO
from perf.common.arguments import positive
from perf.common.errors import BenchmarkError
from perf.common.markdown import number, table
from perf.common.spread import Spread

DEFAULT_TOLERANCE = 0.10
# A row below LOWEST_RATIO × its floor in either run fails the comparison, whatever the other run says.
_RATIOS = (("vs_floor", "p50 ÷ floor"), ("vs_recorded", "p50 ÷ recorded"))


@dataclass(frozen=True)
class Pair:
    row: str
    ratio: str
    first: float
    second: float

    @property
    def difference(self) -> float:
        """How far the second run's ratio is from the first's, as a fraction of the first's."""
        return abs(self.second - self.first) / self.first

    def agrees(self, tolerance: float) -> bool:
        return self.difference <= tolerance and min(self.first, self.second) >= LOWEST_RATIO


def _key(row: dict[str, Any]) -> tuple[str, ...]:
    return row["peer"], row["scene"], row["client"], row["transport"], row["receive"]


def pairs(first: dict[str, Any], second: dict[str, Any]) -> list[Pair]:
    """Every ratio of every row both runs measured, in the first run's order."""
    theirs = {_key(row): row for row in second["rows"]}
    found = []
    for row in first["rows"]:
        other = theirs.get(_key(row))
        if other is None:
            continue
        for key, name in _RATIOS:
            a = Spread.from_json((row.get(key) or {}).get("p50"))
            b = Spread.from_json((other.get(key) or {}).get("p50"))
            if a is not None and b is not None:
                found.append(Pair(" ".join(_key(row)), name, a.median, b.median))
    if not found:
        raise BenchmarkError("the two results have no row in common")
    return found


def render(found: list[Pair], tolerance: float) -> str:
    cells = [[pair.row, pair.ratio, number(pair.first, 2), number(pair.second, 2), f"{pair.difference:.1%}",
              "agrees" if pair.agrees(tolerance) else "differs"] for pair in found]
    return table(["row", "ratio", "first run", "second run", "difference", f"within {tolerance:.0%}, ≥ "
                  f"{LOWEST_RATIO:g}"], cells, [False, False, True, True, True, False])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m perf.rtt.compare",
        description="Set two perf.rtt results side by side: each row's p50 ratio to its floor and to the recorded "
        "server in both runs, and whether they agree within a tolerance with neither below "
        f"{LOWEST_RATIO:g} × its floor. Exits 0 when every ratio agrees, 1 when one differs or a result cannot "
        "be read.",
    )
    parser.add_argument("first", type=Path, help="the first run's rtt.json")
    parser.add_argument("second", type=Path, help="the second run's rtt.json")
    parser.add_argument("--tolerance", type=positive(float), default=DEFAULT_TOLERANCE,
                        help="largest difference of a ratio between the runs, as a fraction of the first run's "
                             "(default: %(default)s; 0.15 to set a short run against a full one)")
    args = parser.parse_args(argv)
    try:
        found = pairs(results.read(args.first), results.read(args.second))
    except BenchmarkError as error:
        print(f"perf.rtt.compare: {error}", file=sys.stderr)
        return 1
    print(render(found, args.tolerance))
    return 0 if all(pair.agrees(args.tolerance) for pair in found) else 1


if __name__ == "__main__":
    sys.exit(main())
