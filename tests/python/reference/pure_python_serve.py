"""`coupler serve` through the reference pyzmq responder instead of the C++ server:
the same flags, the same loops and summary, every request through pyzmq and the
Python codec. The tests start it to hold the native path to the same frames.

    python tests/python/reference/pure_python_serve.py --scene static --addr ipc:///tmp/s
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from coupler.cli.serve import main  # noqa: E402
from reference.pyzmq_responder import PyzmqResponder  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(prog="pure_python_serve", responder_type=PyzmqResponder))
