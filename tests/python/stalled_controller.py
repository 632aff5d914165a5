"""A controller that stops answering mid-conversation, for tests that kill it there.

    python tests/python/stalled_controller.py ADDRESS --controls K --then handshake|control|idle

It handshakes (unless --then handshake, where the handshake itself is left
unread), sends K Controls of zeros for every robot of the handshake and reads
their answers, then sends a last HandshakeInit or Control and never reads its
answer (or, with idle, sends nothing more). It prints "stalled" once that
request has had time to reach the server, and then sleeps until killed.
"""

from __future__ import annotations

import argparse
import sys
import time

from coupler.transport.client import Client
from coupler.wire.messages import ControlMessage, HandshakeInitMessage, HandshakeMessage, ObjectControl

# Time for a sent request to reach a server on the same machine before "stalled" is printed.
DELIVERY_SECONDS = 0.2
# How long it waits to be killed; a test that forgets it does not leave it behind for ever.
STALL_SECONDS = 60.0


def zeros(handshake: HandshakeMessage) -> ControlMessage:
    return ControlMessage(
        objects={name: ObjectControl([0.0] * len(d.controls)) for name, d in handshake.objects.items() if d.controls}
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("address", help="server address")
    parser.add_argument("--controls", type=int, default=0, help="Controls sent and answered before stalling")
    parser.add_argument("--then", choices=["handshake", "control", "idle"], required=True,
                        help="the request left unanswered: a HandshakeInit, a Control, or none")
    args = parser.parse_args()
    client = Client(args.address, timeout=10.0)
    if args.then == "handshake":
        client.send(HandshakeInitMessage())
    else:
        handshake = client.request(HandshakeInitMessage())
        assert isinstance(handshake, HandshakeMessage), handshake
        for _ in range(args.controls):
            client.request(zeros(handshake))
        if args.then == "control":
            client.send(zeros(handshake))
    time.sleep(DELIVERY_SECONDS)
    print("stalled", flush=True)
    time.sleep(STALL_SECONDS)
    return 1


if __name__ == "__main__":
    sys.exit(main())
