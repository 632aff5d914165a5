"""Result files: one JSON and one markdown table per benchmark in the results directory."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from perf.common.errors import BenchmarkError

DEFAULT_DIR = Path(__file__).resolve().parents[1] / "results"


def measured_now() -> str:
    """The time every result is stamped with: UTC, to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def write(directory: Path, name: str, result: dict[str, Any], markdown: str) -> list[Path]:
    """Write name.json and name.md into `directory` (created when missing); return the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    json_path = directory / f"{name}.json"
    markdown_path = directory / f"{name}.md"
    json_path.write_text(json.dumps(result, indent=2) + "\n")
    markdown_path.write_text(markdown + "\n")
    return [json_path, markdown_path]


def publish(directory: Path, result: dict[str, Any], markdown: str) -> None:
    """Print a benchmark's table, write its result files (named after `result["benchmark"]`) and say where."""
    print(markdown)
    for path in write(directory, result["benchmark"], result, markdown):
        print(f"wrote {path}")


def read(path: Path) -> dict[str, Any]:
    try:
        result = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise BenchmarkError(f"cannot read result {path}: {error}") from None
    if not isinstance(result, dict) or "benchmark" not in result:
        raise BenchmarkError(f"{path} is not a benchmark result (no 'benchmark' key)")
    return result
