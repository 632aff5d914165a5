"""A missing optional extra is one error, naming the extra and the pip command, wherever it is needed."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from coupler.wire.errors import Error
from coupler.wire.missing_extra import MissingExtra, needs_extra

REPO = Path(__file__).resolve().parents[3]
TIMEOUT = 60.0


def _without(modules: list[str], code: str) -> subprocess.CompletedProcess[str]:
    """Run `code` in a Python in which importing any of `modules` fails as if it were not installed."""
    hide = "".join(f"sys.modules[{name!r}] = None\n" for name in modules)
    program = "import sys\n" + hide + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=TIMEOUT, cwd=REPO)


def test_an_import_error_inside_needs_extra_names_the_extra_and_its_pip_command():
    with pytest.raises(MissingExtra, match=r"^coupler plot needs the record extra: pip install 'coupler\[record\]' "
                                           r"\(.*no_such_module"):
        with needs_extra("coupler plot", "record"):
            import no_such_module  # noqa: F401


def test_a_missing_extra_is_a_coupler_error_and_an_import_error():
    assert issubclass(MissingExtra, Error) and issubclass(MissingExtra, ImportError)


@pytest.mark.parametrize(("package", "dependency", "extra"), [("gym", "gymnasium", "gym"), ("ray", "ray", "ray")])
def test_importing_a_package_without_its_dependency_names_its_extra(package, dependency, extra):
    result = _without([dependency], f"import coupler.{package}")
    assert result.returncode == 1
    assert (f"MissingExtra: coupler.{package} needs the {extra} extra: pip install 'coupler[{extra}]'"
            in result.stderr.splitlines()[-1]), result.stderr


def test_a_command_without_its_extra_says_which_in_one_line_and_exits_1(tmp_path):
    recording = tmp_path / "run.mcap"
    recording.write_bytes(b"")
    result = _without(["mcap"], f"""
        from coupler.cli import main
        sys.exit(main(["replay", {str(recording)!r}, "--addr", "ipc:///tmp/nobody"]))
    """)
    assert result.returncode == 1, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "coupler replay needs the record extra: pip install 'coupler[record]'"), result.stderr


def test_serving_a_mujoco_scene_without_mujoco_names_the_sim_extra():
    result = _without(["mujoco"], """
        from coupler.cli import main
        sys.exit(main(["serve", "--scene", "arm", "--addr", "ipc:///tmp/nobody"]))
    """)
    assert result.returncode == 1, result.stderr
    assert result.stderr.strip() == ("coupler serve: scene 'arm' needs the sim extra: pip install 'coupler[sim]' "
                                     "(import of mujoco halted; None in sys.modules)"), result.stderr


def test_viewing_without_viser_names_the_view_extra(tmp_path):
    recording = tmp_path / "run.mcap"
    recording.write_bytes(b"")
    result = _without(["viser"], f"""
        from coupler.cli import main
        sys.exit(main(["view", {str(recording)!r}, "--web"]))
    """)
    assert result.returncode == 1, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "coupler view needs the view extra: pip install 'coupler[view]'"), result.stderr


def test_serving_to_foxglove_without_foxglove_sdk_names_the_foxglove_extra():
    result = _without(["foxglove"], """
        from coupler.cli import main
        sys.exit(main(["view", "--addr", "ipc:///tmp/nobody", "--foxglove"]))
    """)
    assert result.returncode == 1, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "coupler view --foxglove needs the foxglove extra: pip install 'coupler[foxglove]'"), result.stderr
