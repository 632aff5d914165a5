"""The one failure the benchmarks report: something that should have run did not."""

from __future__ import annotations


class BenchmarkError(Exception):
    """A process died, failed, timed out, or printed nothing a figure could be read from."""
