"""The documentation as the docs tests read it: README.md and docs/*.md, their links, fenced blocks and the
shell commands those blocks show."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from coupler.limits import DEFAULT_ADDRESS

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
DOCS = REPO / "docs"

# The marker, on the line before a block's fence, of a block whose commands the tests do not run.
ILLUSTRATIVE = "<!-- illustrative -->"
SHELL_LANGUAGES = {"console", "bash", "sh", "shell"}
# The address the pages' controllers and commands connect to, `coupler serve`'s default.
SHOWN_ADDRESS = DEFAULT_ADDRESS

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


def shell_commands(block: Block) -> list[tuple[int, str]]:
    """The commands of a shell block with their lines in the page: a trailing backslash joins the next line,
    a '  # comment' after a command is left out."""
    found = []
    pending = ""
    for offset, raw in enumerate(block.text.splitlines(), start=1):
        line = re.sub(r"\s+#\s.*$", "", raw).rstrip()
        if line.startswith("#") or not line.strip():
            continue
        if line.endswith("\\"):
            pending += line[:-1].strip() + " "
            continue
        found.append((block.line + offset, " ".join((pending + line.strip()).split())))
        pending = ""
    return found


def commands(page: Path) -> list[Command]:
    """The shell commands the page shows: those of each console/bash/sh/shell block."""
    return [Command(page, line, text, block.illustrative)
            for block in blocks(page) if block.language in SHELL_LANGUAGES
            for line, text in shell_commands(block)]


def block_after(page: Path, marker: str, language: str) -> Block:
    """The first block of `language` after the first line of the page that is `marker` (a bold run-in heading
    such as **C++**); fails naming both when there is none."""
    lines = page.read_text().splitlines()
    start = next((number for number, line in enumerate(lines, start=1) if line.strip().startswith(marker)), None)
    if start is None:
        raise AssertionError(f"{page.name} has no line starting with {marker!r}")
    following = [b for b in blocks(page) if b.line > start and b.language == language]
    if not following:
        raise AssertionError(f"{page.name} has no {language} block after {marker!r}")
    return following[0]


def shown_controllers(page: Path, language: str) -> list[Block]:
    """The page's blocks of `language` that connect to SHOWN_ADDRESS: the controllers it shows."""
    return [b for b in blocks(page) if b.language == language and f'"{SHOWN_ADDRESS}"' in b.text]
