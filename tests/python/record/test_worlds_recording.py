"""`--worlds` with `--record` or `--publish` is refused at start, in one line: the batched worlds' states are
not published, and a recording without them could not be plotted, rendered or replayed."""

import pytest

from coupler.cli import main


@pytest.mark.parametrize("flag", ["--record", "--publish"])
def test_worlds_with_a_recording_or_a_publisher_is_refused_at_start_in_one_line(tmp_path, capsys, flag):
    target = tmp_path / "run.mcap" if flag == "--record" else f"ipc://{tmp_path}/frames"
    assert main(["serve", "--worlds", "2", flag, str(target), "--addr", f"ipc://{tmp_path}/serve"]) == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and f"{flag} is not available with --worlds" in error
    assert not (tmp_path / "run.mcap").exists()
