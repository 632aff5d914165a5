"""README.md is a front door, and the docs' relative links lead somewhere."""

from __future__ import annotations

from doc_pages import README, pages, relative_links

MAX_README_BYTES = 10 * 1024


def test_the_readme_is_at_most_10_kb() -> None:
    size = len(README.read_bytes())
    assert size <= MAX_README_BYTES, f"README.md is {size} bytes; move detail into docs/"


def test_every_relative_link_points_at_an_existing_file() -> None:
    broken = []
    for page in pages():
        for target in relative_links(page):
            path = target.split("#", 1)[0]
            if path and not (page.parent / path).exists():
                broken.append(f"{page.name}: {target}")
    assert broken == []


def test_the_link_reader_finds_links_and_skips_urls_and_code(tmp_path) -> None:
    page = tmp_path / "page.md"
    page.write_text("[a](a.md#x) ![b](img/b.png) [c](https://example.org) [d](#local) `[e](e.md)`\n"
                    "```text\n[f](f.md)\n```\n")
    assert relative_links(page) == ["a.md#x", "img/b.png"]
