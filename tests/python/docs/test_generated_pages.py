"""The generated pages equal what their generators render now: edit the generators' sources, then run the
command at the top of the page."""

from __future__ import annotations

from pathlib import Path

from coupler.cli import reference
from doc_pages import DOCS, REPO
from perf import report


def test_the_cli_reference_is_what_the_parsers_render() -> None:
    assert (DOCS / "cli.md").read_text() == reference.render(), (
        "docs/cli.md is out of date: python -m coupler.cli.reference --out docs/cli.md")


def test_the_cli_reference_has_every_subcommand() -> None:
    page = reference.render()
    for name in ("serve", "info", "keygen", "record", "replay", "plot", "render"):
        assert f"## coupler {name}\n" in page


def test_the_benchmark_page_is_what_perf_report_renders_from_perf_latest() -> None:
    rendered = report.build_docs_page(REPO / "perf" / "latest")
    assert (DOCS / "performance-results.md").read_text() == rendered, (
        "docs/performance-results.md is out of date: python -m perf.report --results perf/latest "
        "--out perf/latest/REPORT.md --docs-page docs/performance-results.md")


def test_perf_report_writes_the_benchmark_page_when_asked(tmp_path: Path) -> None:
    page = tmp_path / "results.md"
    assert report.main(["--results", str(REPO / "perf" / "latest"), "--out", str(tmp_path / "REPORT.md"),
                        "--docs-page", str(page)]) == 0
    assert page.read_text() == (DOCS / "performance-results.md").read_text()
