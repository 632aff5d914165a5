"""Bad flags of the commands that read recordings (replay, plot, render) end in one line naming the flag or
the file, before any work, through the same number checks as `coupler serve`: never a traceback, never a file
written somewhere else than asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from coupler.cli import main


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str], code: int) -> str:
    try:
        status = main(argv)
    except SystemExit as exit:  # argparse's refusal
        status = exit.code
    err = capsys.readouterr().err
    assert status == code, err
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith((" ", "usage:"))]
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def recording(tmp_path: Path) -> Path:
    path = tmp_path / "run.mcap"
    path.write_bytes(b"")  # never read: every refusal comes first
    return path


@pytest.mark.parametrize("command, flag, value", [
    ("replay", "--timeout", "nan"), ("replay", "--timeout", "-1"), ("replay", "--timeout", "inf"),
    ("replay", "--timeout", "1e300"),
    ("plot", "--dpi", "0"), ("plot", "--dpi", "-5"), ("plot", "--dpi", "100000"),
    ("render", "--fps", "nan"), ("render", "--fps", "1e-300"), ("render", "--width", "100000"),
    ("render", "--height", "0"), ("render", "--max-frames", "-1"), ("render", "--start", "inf"),
])
def test_a_bad_number_is_refused_in_one_line_naming_the_flag(command, flag, value, recording, tmp_path, capsys):
    where = ["--scene", "arm"] if command == "replay" else ["--out", str(tmp_path / "out.png")]
    line = _refused([command, str(recording), *where, flag, value], capsys, code=2)
    assert f"argument {flag}: needs" in line


@pytest.mark.parametrize("command", ["plot", "render"])
def test_an_out_in_a_folder_that_does_not_exist_is_refused_before_any_work(command, recording, tmp_path, capsys):
    line = _refused([command, str(recording), "--out", str(tmp_path / "nodir" / "x.png")], capsys, code=1)
    assert "there is no folder" in line and "nodir" in line


@pytest.mark.parametrize("command, formats", [("plot", ".png"), ("render", ".mp4, .gif, .png")])
def test_an_out_of_a_format_the_command_cannot_write_is_refused(command, formats, recording, tmp_path, capsys):
    line = _refused([command, str(recording), "--out", str(tmp_path / "x.xyz")], capsys, code=1)
    assert f"the formats are {formats}" in line


@pytest.mark.parametrize("command", ["plot", "render"])
def test_an_out_that_is_a_folder_is_refused_and_nothing_is_written_beside_it(command, recording, tmp_path, capsys):
    folder = tmp_path / "pictures"
    folder.mkdir()
    line = _refused([command, str(recording), "--out", str(folder)], capsys, code=1)
    assert "is a folder" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pictures", "run.mcap"]


def test_render_refuses_frames_whose_pixels_would_not_fit_in_memory(recording, tmp_path, capsys):
    line = _refused(["render", str(recording), "--out", str(tmp_path / "x.gif"), "--width", "3840", "--height",
                     "2160", "--max-frames", "10000"], capsys, code=1)
    assert "GiB of pixels" in line and "--max-frames" in line
