"""atheris target for the readers of recordings: any bytes are an MCAP file given to `coupler replay`,
`plot` and `render`'s reading (`coupler.record.recording.Recording`, `series`, `first_difference`).

What must hold for every file: reading raises nothing but RecordingError (a
coupler.Error, shown as one line), in bounded time and memory (the fuzzer's
-timeout and -rss_limit_mb); a file read without error gives messages on
declared topics only. Seeds: real recordings in tests/fuzz/corpus/mcap
(the static scene, as `coupler serve --record` writes it and with its chunks
uncompressed, so mutations reach the records inside).

    python tests/fuzz/recording_fuzzer.py [libFuzzer flags] [corpus dirs]   (scripts/fuzz runs it)
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile

import atheris

with atheris.instrument_imports(include=["coupler", "mcap"]):
    from coupler.record.divergence import first_difference
    from coupler.record.recording import Recording
    from coupler.record.series import series
    from coupler.wire.errors import Error

# The file the readers open: in memory where there is a /dev/shm, so a run costs no disk writes.
_FOLDER = tempfile.mkdtemp(prefix="coupler-recording-fuzz-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
_PATH = os.path.join(_FOLDER, "input.mcap")


def TestOneInput(data: bytes) -> None:
    with open(_PATH, "wb") as file:
        file.write(data)
    try:
        recording = Recording(_PATH)
        answers = [message.data for message in recording if message.answer]
        for previous, current in zip(answers, answers[1:]):
            first_difference(previous, current)
        series(Recording(_PATH))
    except Error:
        return  # a one-line refusal: what a damaged or hostile file gets


def main() -> None:
    logging.disable(logging.CRITICAL)
    atheris.Setup(sys.argv, TestOneInput)
    try:
        atheris.Fuzz()
    finally:
        os.unlink(_PATH) if os.path.exists(_PATH) else None
        os.rmdir(_FOLDER)


if __name__ == "__main__":
    main()
