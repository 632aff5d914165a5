"""The documentation as the docs tests read it: README.md and docs/*.md, their links, fenced blocks and the
shell commands those blocks show."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
DOCS = REPO / "docs"

# The marker, on the line before a block's fence, of a block whose commands the tests do not run.
ILLUSTRATIVE = "<!-- illustrative -->"
SHELL_LANGUAGES = {"console", "bash", "sh", "shell"}

_FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)")
# [text](target) and ![alt](target), not inside code; the target ends at a space (a title) or ")".
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def pages() -> list[Path]:
    """README.md and every markdown page of the site."""
    return [README, *sorted(DOCS.glob("*.md"))]


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    language: str
    text: str
    illustrative: bool


def blocks(page: Path) -> list[Block]:
    """The fenced code blocks of a page, in order."""
    lines = page.read_text().splitlines()
    found = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence, language = opening.group(1), opening.group(2)
        end = index + 1
        while end < len(lines) and not lines[end].startswith(fence):
            end += 1
        marked = index > 0 and lines[index - 1].strip() == ILLUSTRATIVE
        found.append(Block(page, index + 1, language, "\n".join(lines[index + 1:end]), marked))
        index = end + 1
    return found


def prose(page: Path) -> str:
    """The page without its fenced blocks and code spans, where links are read."""
    text = page.read_text()
    for block in blocks(page):
        text = text.replace(block.text, "")
    return re.sub(r"`[^`\n]*`", "", text)


def relative_links(page: Path) -> list[str]:
    """Every link target of the page that is neither a URL nor an anchor within the page."""
    targets = _LINK.findall(prose(page))
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


@dataclass(frozen=True)
class Command:
    page: Path
    line: int
    text: str
    illustrative: bool


def commands(page: Path) -> list[Command]:
    """The shell commands the page shows: each line of a console/bash/sh/shell block, a trailing backslash
    joining the next line, a '  # comment' after the command left out."""
    found = []
    for block in blocks(page):
        if block.language not in SHELL_LANGUAGES:
            continue
        pending = ""
        for offset, raw in enumerate(block.text.splitlines(), start=1):
            line = re.sub(r"\s+#\s.*$", "", raw).rstrip()
            if line.startswith("#") or not line.strip():
                continue
            if line.endswith("\\"):
                pending += line[:-1].strip() + " "
                continue
            text = " ".join((pending + line.strip()).split())
            pending = ""
            found.append(Command(page, block.line + offset, text, block.illustrative))
    return found
