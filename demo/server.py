"""The demo simulation server: `coupler serve` under the name the demo and the docs use.

    python -m demo.server                        # arm scene, lockstep, tcp://127.0.0.1:5555
    python -m demo.server --scene two_arms --mode free
    python -m demo.server --scene path/to/model.xml --realtime
"""

from __future__ import annotations

import sys

from coupler.cli.serve import main

if __name__ == "__main__":
    sys.exit(main(prog="python -m demo.server"))
