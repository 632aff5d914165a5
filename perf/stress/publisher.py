"""perf.stress's publisher phases: a server publishing (`--publish`) while a controller drives it and one
live subscriber counts every message it publishes, against hostile subscribers:

- an idle subscriber storm: more subscribers than the publisher holds (its cap, 256), connected and silent;
- big-message subscribers: peers sending 1 MiB messages, and floods of messages that are not subscriptions;
- a re-subscribe loop: a subscriber connecting, subscribing and leaving over and over, and another
  toggling its subscription, beside a subscriber that never reads.

Checked: the controller lost no step; the live subscriber lost no message and got the scene once; a
newcomer gets the scene within its bound after the phases; the server's resident memory is back within
10 MiB of before.
"""

from __future__ import annotations

import logging
import resource
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import zmq

from coupler.record.frame_stream import END_TOPIC, FRAME_PREFIX, HEADER, SCENE_TOPIC, topic_of
from perf.common import programs
from perf.common.endpoints import free_tcp_address
from perf.common.process_stats import rss_kib
from perf.common.processes import ServerProcess
from perf.soak.memory import KIB_PER_MIB
from perf.stress.phases import DrivingController

log = logging.getLogger("perf.stress")

PUBLISH_HWM = 1_000_000  # the live subscriber must lose nothing: a queue it never fills
NEWCOMER_BOUND = 1.0  # s for a new subscriber to get the scene
MAX_RSS_GROWTH_MIB = 10.0
# The memory is looked at every SETTLE_LOOK s until it is back within its bound, for at most settle_seconds:
# dropped connections going and the memory trim (every 2 s) giving memory back.
SETTLE_LOOK = 0.25
IDLE_HOLD_SECONDS = 0.7  # the idle subscribers stay connected this long
BIG_MESSAGE = b"\x02" + b"x" * (1 << 20)  # not a subscription, and far over the publisher's 1 KiB


@dataclass(frozen=True)
class PublisherSettings:
    idle_subscribers: int = 3_000
    big_messages: int = 150
    junk_messages: int = 100_000
    resubscribe_seconds: float = 10.0
    warm_seconds: float = 2.0
    settle_seconds: float = 5.0


QUICK = PublisherSettings(idle_subscribers=300, big_messages=20, junk_messages=5_000, resubscribe_seconds=1.0,
                          warm_seconds=1.0, settle_seconds=3.0)


class LiveSubscriber:
    """A subscriber to everything, reading in a thread of its own: messages, gaps in the sequence, scenes."""

    def __init__(self, context: zmq.Context, address: str) -> None:
        self.socket = context.socket(zmq.SUB)
        self.socket.rcvhwm = 0
        self.socket.linger = 0
        self.socket.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
        self.socket.connect(address)
        self.received = self.lost = self.scenes = 0
        self.first_sequence: int | None = None
        self._next: int | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, name="live subscriber", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            if not self.socket.poll(50):
                continue
            parts = self.socket.recv_multipart()
            topic = topic_of(parts)
            if topic == SCENE_TOPIC:
                self.scenes += 1
                continue
            if topic == END_TOPIC:
                continue
            sequence = HEADER.unpack_from(parts[0], len(topic) + 1)[0]
            if self._next is None:
                self.first_sequence = sequence
            elif sequence != self._next:
                self.lost += max(0, sequence - self._next)
            self._next = sequence + 1
            self.received += 1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.socket.close()


def _newcomer_wait(context: zmq.Context, address: str) -> float | None:
    """Seconds until a new subscriber gets the scene; None past the bound."""
    socket = context.socket(zmq.SUB)
    socket.linger = 0
    socket.setsockopt(zmq.SUBSCRIBE, SCENE_TOPIC)
    started = time.monotonic()
    socket.connect(address)
    try:
        while time.monotonic() - started < NEWCOMER_BOUND:
            if socket.poll(20) and topic_of(socket.recv_multipart()) == SCENE_TOPIC:
                return time.monotonic() - started
        return None
    finally:
        socket.close()


def _idle_storm(context: zmq.Context, address: str, count: int) -> list[zmq.Socket]:
    sockets = []
    for _ in range(count):
        socket = context.socket(zmq.SUB)  # subscribed to nothing: the handshake, then silence
        socket.linger = 0
        socket.connect(address)
        sockets.append(socket)
    return sockets


def _big_messages(context: zmq.Context, address: str, big: int, junk: int) -> None:
    for _ in range(big):
        peer = context.socket(zmq.XSUB)
        peer.linger = 0
        peer.connect(address)
        peer.send(BIG_MESSAGE)
        peer.close()
    peer = context.socket(zmq.XSUB)
    peer.linger = 0
    peer.connect(address)
    for n in range(junk):
        peer.send(b"not a subscription %d" % n)
        if n % 500 == 499:
            time.sleep(0.001)  # the peer's own queue drops what does not fit; the publisher reads as they come
    peer.close()


def _resubscribe_loop(context: zmq.Context, address: str, seconds: float) -> int:
    stalled = context.socket(zmq.SUB)  # subscribed and never reading
    stalled.linger = 0
    stalled.rcvhwm = 1
    stalled.setsockopt(zmq.SUBSCRIBE, b"")
    stalled.connect(address)
    toggler = context.socket(zmq.SUB)
    toggler.linger = 0
    toggler.connect(address)
    rounds = 0
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            toggler.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
            toggler.setsockopt(zmq.UNSUBSCRIBE, FRAME_PREFIX)
            comer = context.socket(zmq.SUB)
            comer.linger = 0
            comer.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
            comer.connect(address)
            time.sleep(0.005)
            comer.close()
            rounds += 1
    finally:
        toggler.close()
        stalled.close()
    return rounds


def run(settings: PublisherSettings, workdir: Path) -> dict[str, Any]:
    """Every publisher phase against one publishing server; the figures of each."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the idle storm's sockets
    address, publish = free_tcp_address(), free_tcp_address()
    command = [programs.python(), "-m", "demo.server", "--addr", address, "--scene", "arm", "--publish", publish,
               "--publish-hwm", str(PUBLISH_HWM)]
    context = zmq.Context()
    context.max_sockets = settings.idle_subscribers + 100
    figures: dict[str, Any] = {"settings": asdict(settings)}
    try:
        with ServerProcess(command, workdir / "publisher-server.log", handshake_address=address) as server:
            live = LiveSubscriber(context, publish)
            controller = DrivingController(address)
            try:
                controller.wait_until_driving()
                time.sleep(settings.warm_seconds)
                figures["rss_before_kib"] = rss_kib(server.pid)

                started = time.monotonic()
                idle = _idle_storm(context, publish, settings.idle_subscribers)
                time.sleep(IDLE_HOLD_SECONDS)
                figures["idle_storm"] = {"subscribers": len(idle),
                                         "steps_per_s": controller.rate(started, time.monotonic()),
                                         "longest_round_trip": controller.longest_round_trip(started,
                                                                                             time.monotonic())}
                for socket in idle:
                    socket.close()
                log.info("perf.stress: publisher: %d idle subscribers, controller at %.0f steps/s", len(idle),
                         figures["idle_storm"]["steps_per_s"])

                started = time.monotonic()
                _big_messages(context, publish, settings.big_messages, settings.junk_messages)
                figures["big_messages"] = {"big": settings.big_messages, "junk": settings.junk_messages,
                                           "seconds": time.monotonic() - started}
                log.info("perf.stress: publisher: %d messages of 1 MiB and %d that are not subscriptions sent",
                         settings.big_messages, settings.junk_messages)

                rounds = _resubscribe_loop(context, publish, settings.resubscribe_seconds)
                figures["resubscribe"] = {"rounds": rounds}
                log.info("perf.stress: publisher: %d re-subscriptions beside a stalled subscriber", rounds)

                settled = time.monotonic() + settings.settle_seconds
                while True:
                    figures["rss_after_kib"] = rss_kib(server.pid)
                    growth = (figures["rss_after_kib"] - figures["rss_before_kib"]) / KIB_PER_MIB
                    if growth < MAX_RSS_GROWTH_MIB or time.monotonic() > settled:
                        break
                    time.sleep(SETTLE_LOOK)
                figures["newcomer_seconds"] = _newcomer_wait(context, publish)
                figures["controller"] = controller.stop()
            finally:
                controller.kill()
                live.stop()
            figures["live"] = {"received": live.received, "lost": live.lost, "scenes": live.scenes}
    finally:
        context.destroy(linger=0)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return figures


def checks(figures: dict[str, Any]) -> list[dict[str, Any]]:
    """perf.stress's checks (the fields of its Check) of the publisher phases."""
    steps = figures["controller"]
    live = figures["live"]
    growth_mib = (figures["rss_after_kib"] - figures["rss_before_kib"]) / KIB_PER_MIB
    newcomer = figures["newcomer_seconds"]
    return [
        dict(name="publisher phases: no step lost or duplicated",
             measured=f"{steps['round_trips']:,} round trips: {steps['lost']} lost, {steps['duplicated']} duplicated",
             limit="0", passed=steps["lost"] == steps["duplicated"] == 0, guarantee=True),
        dict(name="publisher phases: the live subscriber lost nothing and got the scene once",
             measured=f"{live['received']:,} messages, {live['lost']} lost, {live['scenes']} scene(s)",
             limit="0 lost, 1 scene", passed=live["lost"] == 0 and live["scenes"] == 1 and live["received"] > 0,
             guarantee=True),
        dict(name="publisher phases: a newcomer gets the scene",
             measured="no scene" if newcomer is None else f"{newcomer:.3f} s", limit=f"< {NEWCOMER_BOUND} s",
             passed=newcomer is not None, guarantee=False),
        dict(name="publisher phases: resident memory after them", measured=f"{growth_mib:+.1f} MiB",
             limit=f"< {MAX_RSS_GROWTH_MIB:g} MiB", passed=growth_mib < MAX_RSS_GROWTH_MIB, guarantee=False),
    ]
