"""Every shell command the docs show is run here, or its block is marked illustrative (docs/testing.md)."""

from __future__ import annotations

import shlex
import subprocess
import sys

import pytest

from doc_pages import ILLUSTRATIVE, REPO, commands, pages

# The commands the docs may show unmarked, each run from the repository root with this Python. A command
# shown in an unmarked block must be one of these: a new one needs a line here, or the illustrative marker.
RUN = (
    "coupler --help",
    "coupler serve --help",
    "coupler info --help",
    "coupler keygen --help",
    "coupler record --help",
    "coupler replay --help",
    "coupler plot --help",
    "coupler render --help",
    "python -m demo.server --help",
    "python -m demo.client --help",
    "python -m coupler.cli.reference",
)


def _argv(command: str) -> list[str]:
    """The command's words, its program replaced by this Python running the same module."""
    words = shlex.split(command)
    if words[0] == "coupler":
        return [sys.executable, "-m", "coupler.cli", *words[1:]]
    if words[0] in ("python", ".venv/bin/python"):
        return [sys.executable, *words[1:]]
    raise ValueError(f"no way to run {command!r}")


def test_every_command_shown_is_run_here_or_marked_illustrative() -> None:
    unknown = [f"{c.page.name}:{c.line}: {c.text}" for page in pages() for c in commands(page)
               if not c.illustrative and c.text not in RUN]
    assert unknown == [], (f"run these in {__name__} (RUN) or put {ILLUSTRATIVE} on the line before their "
                           "block's fence")


def test_the_docs_show_commands_that_are_run() -> None:
    shown = {c.text for page in pages() for c in commands(page) if not c.illustrative}
    assert shown, "no unmarked command in the docs: the marker would be on every block"


@pytest.mark.parametrize("command", RUN)
def test_the_command_succeeds(command: str) -> None:
    result = subprocess.run(_argv(command), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip(), f"{command} printed nothing"


def test_commands_are_read_with_continuations_and_without_comments(tmp_path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```console\ncoupler serve \\\n  --scene arm   # a comment\n# a whole-line comment\n```\n\n"
                    f"{ILLUSTRATIVE}\n```bash\nscripts/test\n```\n\n```text\nnot a command\n```\n")
    assert [(c.text, c.illustrative) for c in commands(page)] == [
        ("coupler serve --scene arm", False), ("scripts/test", True)]
