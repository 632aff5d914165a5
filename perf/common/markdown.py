"""Markdown tables, padded so they also read well as plain text in a CI log."""

from __future__ import annotations

from collections.abc import Sequence


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], right_aligned: Sequence[bool]) -> str:
    """A pipe table; `right_aligned[i]` says whether column i holds figures."""
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows)]
    widths = [max(width, 3) for width in widths]

    def line(cells: Sequence[str]) -> str:
        padded = [
            cell.rjust(width) if right else cell.ljust(width)
            for cell, width, right in zip(cells, widths, right_aligned)
        ]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join(
        "-" * (width + 1) + ":" if right else "-" * (width + 2) for width, right in zip(widths, right_aligned)
    ) + "|"
    return "\n".join([line(headers), rule, *(line(row) for row in rows)])


def number(value: float | None, digits: int = 1) -> str:
    """A figure with thousands separators; a dash when there is none."""
    return "–" if value is None else f"{value:,.{digits}f}"
