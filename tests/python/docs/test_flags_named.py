"""Every --flag the docs name is a flag of a program that takes it: a renamed flag left in the prose fails here."""

from __future__ import annotations

import re
import subprocess
import sys

from coupler.cli import parser
from coupler.cli.reference import _subcommands
from doc_pages import DOCS, REPO, pages

# The project's other programs whose --help lists their flags.
PROGRAMS = ("demo.client", "demo.server", "perf.rtt", "perf.rtt.compare", "perf.gym", "perf.record", "perf.report", "perf.view",
            "perf.vision", "perf.vision.worlds", "perf.floor.shm")

# Flags of programs the docs show that are not the project's Python modules, by program.
OTHER_PROGRAMS = {
    "cmake": {"--build", "--install", "--prefix"},
    "mkdocs": {"--strict"},
    "ray start": {"--head", "--block", "--address"},
    "pclick.demo.client": {"--controlmessage", "--sensorrequest", "--resetmessage", "--range"},
    "scripts/fuzz": {"--smoke", "--cpp-runs", "--python-runs"},
    "examples.train_arm_reach": {"--timesteps", "--envs", "--seed"},
    "examples.train_half_cheetah": {"--timesteps", "--envs", "--seeds", "--jobs", "--episode-steps", "--torch-threads",
                                    "--figure-copy", "--replot"},
    "pip install": {"--no-deps"},
    "democlient": {"--find-red", "--shared-channel", "--worlds-images"},  # the C++ demo client's own; the others it shares with demo.client
}

# Generated pages hold their programs' own help; the changelog names flags as they were.
NOT_CHECKED = {DOCS / "cli.md", DOCS / "performance-results.md", DOCS / "changelog.md"}

_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


def _known_flags() -> set[str]:
    known = {flag for flags in OTHER_PROGRAMS.values() for flag in flags}
    for command in [parser(), *_subcommands(parser()).values()]:
        for action in command._actions:  # argparse offers no public list of a parser's options
            known.update(action.option_strings)
    for program in PROGRAMS:
        result = subprocess.run([sys.executable, "-m", program, "--help"], cwd=REPO, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, timeout=60)
        assert result.returncode == 0, result.stdout
        known.update(_FLAG.findall(result.stdout))
    return known


def test_every_flag_named_in_the_docs_is_taken_by_some_program() -> None:
    known = _known_flags()
    unknown = sorted({f"{page.name}: {flag}" for page in pages() if page not in NOT_CHECKED
                      for flag in _FLAG.findall(page.read_text()) if flag not in known})
    assert unknown == [], "a flag the docs name is taken by no program (renamed? then rename it in the docs too)"
