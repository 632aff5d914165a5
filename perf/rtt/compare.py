"""Two perf.rtt results side by side: does a row's ratio to its floor (and to
the recorded server) read the same in both, and does any row read below its
floor? What tells a trustworthy short run from a noisy one on a machine.

    python -m perf.rtt.compare RUN_A/rtt.json RUN_B/rtt.json                  # two short runs: within 10 %
    python -m perf.rtt.compare RUN_A/rtt.json RUN_B/rtt.json --check          # a verdict line per ratio
    python -m perf.rtt.compare SHORT/rtt.json FULL/rtt.json --tolerance 0.15  # short against full
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perf.common import results, rtt_slices
from perf.common.paired import LOWEST_RATIO
from perf.common.arguments import positive
from perf.common.errors import BenchmarkError
from perf.common.markdown import number, table
from perf.common.spread import Spread
from perf.rtt.render import self_check

DEFAULT_TOLERANCE = 0.10
# A row below LOWEST_RATIO × its floor in either run fails the comparison, whatever the other run says.
_RATIOS = (("vs_floor", "p50 ÷ floor"), ("vs_recorded", "p50 ÷ recorded"))


# The scenes whose rows --check judges: coupler's and the minimal server's (which answers the static frames).
CHECKED_SCENES = ("static", "arm")
OK = "ok"


@dataclass(frozen=True)
class Pair:
    row: str
    ratio: str
    first: float
    second: float
    scene: str = ""
    # Each run's self-check of the row (perf.rtt.render.self_check): "ok", or why its figures are not a
    # measurement.
    first_check: str = OK
    second_check: str = OK

    @property
    def difference(self) -> float:
        """How far apart the two runs' ratios are, as a fraction of the smaller: within 10 % holds whichever
        run is taken as the reference."""
        return abs(self.second - self.first) / min(self.first, self.second)

    def agrees(self, tolerance: float) -> bool:
        return self.difference <= tolerance and min(self.first, self.second) >= LOWEST_RATIO


def _key(row: dict[str, Any]) -> tuple[str, ...]:
    return row["peer"], row["scene"], row["client"], row["transport"], row["receive"]


def _check(result: dict[str, Any], row: dict[str, Any]) -> str:
    """Whether the row's figures are a measurement. A ratio whose spread crosses its target's limit is one (the
    target's verdict is what cannot be told, and the tables say so); the two checks are of the figures."""
    if "slices" not in row:  # a result written before slices: nothing to check its figures against
        return OK
    return self_check(row, rtt_slices.ratios(result, row), targets_judged=False)


def pairs(first: dict[str, Any], second: dict[str, Any]) -> list[Pair]:
    """Every ratio of every row both runs measured, in the first run's order, with each run's self-check."""
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
                found.append(Pair(" ".join(_key(row)), name, a.median, b.median, row["scene"],
                                  _check(first, row), _check(second, other)))
    if not found:
        raise BenchmarkError("the two results have no row in common")
    return found


def render(found: list[Pair], tolerance: float) -> str:
    cells = [[pair.row, pair.ratio, number(pair.first, 2), number(pair.second, 2), f"{pair.difference:.1%}",
              "agrees" if pair.agrees(tolerance) else "differs"] for pair in found]
    return table(["row", "ratio", "first run", "second run", "difference", f"within {tolerance:.0%}, ≥ "
                  f"{LOWEST_RATIO:g}"], cells, [False, False, True, True, True, False])


def missing(first: dict[str, Any], second: dict[str, Any]) -> list[str]:
    """The rows --check judges that one run measured and the other did not, as "row: only in the first run"."""
    keys = [{_key(row) for row in result["rows"] if row["scene"] in CHECKED_SCENES} for result in (first, second)]
    return ([f"{' '.join(key)}: only in the first run" for key in sorted(keys[0] - keys[1])]
            + [f"{' '.join(key)}: only in the second run" for key in sorted(keys[1] - keys[0])])


def verdict(pair: Pair, tolerance: float) -> tuple[str, str]:
    """The check of one ratio over two runs, as (mark, why): "FAIL" when a run reads it below LOWEST_RATIO
    (whatever its self-check says, that is the check); "noisy" when a run's self-check says its figures are
    not a measurement, which is not a pass; "FAIL" when the two lie further apart than `tolerance`; "pass"
    otherwise."""
    figures = f"{pair.first:.2f} and {pair.second:.2f}, {pair.difference:.1%} apart"
    below = [which for which, value in (("first", pair.first), ("second", pair.second)) if value < LOWEST_RATIO]
    if below:
        return "FAIL", f"{figures}; below {LOWEST_RATIO:g} × in the {' and '.join(below)} run"
    noisy = [f"{which} run: {check}" for which, check in (("first", pair.first_check), ("second", pair.second_check))
             if check != OK]
    if noisy:
        return "noisy", f"{figures}; " + "; ".join(noisy)
    if pair.difference > tolerance:
        return "FAIL", f"{figures}: more than {tolerance:.0%}"
    return "pass", figures


def check(first: dict[str, Any], second: dict[str, Any], tolerance: float) -> tuple[list[str], bool]:
    """The two checks a pair of short runs must pass, over every ratio of the static and arm rows: within
    `tolerance` of the other run's, and none below LOWEST_RATIO × (its floor, or the minimal server). A line
    per ratio and a last line with the verdict; True when every ratio passed."""
    found = [pair for pair in pairs(first, second) if pair.scene in CHECKED_SCENES]
    lines, counts = [], {"pass": 0, "noisy": 0, "FAIL": 0}
    for pair in found:
        mark, why = verdict(pair, tolerance)
        counts[mark] += 1
        lines.append(f"{mark:<5}  {pair.row}, {pair.ratio}: {why}")
    for line in missing(first, second):
        counts["FAIL"] += 1
        lines.append(f"FAIL   {line}")
    passed = counts["pass"] > 0 and counts["noisy"] == counts["FAIL"] == 0
    lines.append(f"check: {'passed' if passed else 'failed'}: {counts['pass']} ratios within {tolerance:.0%} "
                 f"and ≥ {LOWEST_RATIO:g}, {counts['noisy']} not measured (noisy), {counts['FAIL']} failed")
    return lines, passed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m perf.rtt.compare",
        description="Set two perf.rtt results side by side: each row's p50 ratio to its floor and to the recorded "
        "server in both runs, and whether they agree within a tolerance with neither below "
        f"{LOWEST_RATIO:g} × its floor. Exits 0 when every ratio agrees, 1 when one differs or a result cannot "
        "be read.",
    )
    parser.add_argument("--check", action="store_true",
                        help="instead of the table, a line per ratio of the static and arm rows (coupler's and the "
                             "minimal server's): pass, FAIL (further apart than the tolerance, or below "
                             f"{LOWEST_RATIO:g} × in a run, or measured in one run only) or noisy (a run's "
                             "self-check reads not measured: noisy, which is not a pass), then the verdict; exits 0 "
                             "only when every ratio passes (default: the table)")
    parser.add_argument("first", type=Path, help="the first run's rtt.json")
    parser.add_argument("second", type=Path, help="the second run's rtt.json")
    parser.add_argument("--tolerance", type=positive(float), default=DEFAULT_TOLERANCE,
                        help="largest difference of a ratio between the runs, as a fraction of the smaller of the two "
                             "(default: %(default)s; 0.15 to set a short run against a full one)")
    args = parser.parse_args(argv)
    try:
        first, second = results.read(args.first), results.read(args.second)
        if args.check:
            lines, passed = check(first, second, args.tolerance)
            print("\n".join(lines))
            return 0 if passed else 1
        found = pairs(first, second)
    except BenchmarkError as error:
        print(f"perf.rtt.compare: {error}", file=sys.stderr)
        return 1
    print(render(found, args.tolerance))
    return 0 if all(pair.agrees(args.tolerance) for pair in found) else 1


if __name__ == "__main__":
    sys.exit(main())
