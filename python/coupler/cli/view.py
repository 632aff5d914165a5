"""`coupler view`: watch a run in 3D, live from a server's publish address or from a recording.

    coupler view --addr tcp://127.0.0.1:5556            # a server started with --publish tcp://127.0.0.1:5556
    coupler view run.mcap                               # a recording: play, pause, speed and seek in the page
    coupler view run.mcap --native                      # in MuJoCo's own viewer (needs a display)
    coupler view --addr tcp://127.0.0.1:5556 --foxglove # to Foxglove: open ws://127.0.0.1:8765 there
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

from coupler.cli.number_flags import float_in
from coupler.cli.recording_file import existing_recording
from coupler.cli.transport_flags import add_client_flags, check_connect_address, client_options
from coupler.transport.bind_policy import is_loopback
from coupler.wire.errors import Error
from coupler.wire.missing_extra import needs_extra

DEFAULT_WEB_ADDR = "127.0.0.1:8080"
DEFAULT_FOXGLOVE_ADDR = "127.0.0.1:8765"  # where Foxglove looks by default
MAX_FPS = 240.0
MAX_SECONDS = 1e7
MIN_SPEED, MAX_SPEED = 0.01, 100.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("recording", nargs="?", default=None,
                        help="a recording to watch (an MCAP file written by --record or `coupler record`); one of "
                             "it and --addr (default: none)")
    parser.add_argument("--addr", default=None,
                        help="a server's publish address to watch live (its --publish, e.g. tcp://127.0.0.1:5556 or "
                             "ipc://PATH); one of it and a recording (default: none)")
    front = parser.add_mutually_exclusive_group()
    front.add_argument("--web", action="store_true",
                       help="show the view in the browser, served at --web-addr (default where no display is "
                            "named in $DISPLAY or $WAYLAND_DISPLAY)")
    front.add_argument("--native", action="store_true",
                       help="show the view in MuJoCo's own viewer, a window on the display (default where a "
                            "display is named)")
    front.add_argument("--foxglove", action="store_true",
                       help="serve a live stream to Foxglove over its WebSocket protocol at --foxglove-addr: every "
                            "frame and state, the geoms and every body's pose for its 3D panel (a recording opens "
                            "in Foxglove itself; needs the foxglove extra) (default: off)")
    parser.add_argument("--web-addr", default=DEFAULT_WEB_ADDR, metavar="HOST:PORT",
                        help="where the browser view listens; port 0 picks a free one, a port in use the next free "
                             "one (default: %(default)s)")
    parser.add_argument("--foxglove-addr", default=DEFAULT_FOXGLOVE_ADDR, metavar="HOST:PORT",
                        help="where --foxglove listens (Foxglove: Open connection, Foxglove WebSocket, "
                             "ws://HOST:PORT); port 0 picks a free one (default: %(default)s)")
    parser.add_argument("--allow-remote", action="store_true",
                        help="allow a --web-addr or --foxglove-addr other than loopback (reachable from other machines, and the page "
                             "has no authentication); without it such an address is refused (default: off)")
    parser.add_argument("--fps", type=float_in(1.0, MAX_FPS), default=30.0,
                        help=f"draw at most this many frames a second, from 1 to {MAX_FPS:g}; states arriving "
                             "faster are skipped, only the newest is drawn; a browser without a GPU draws each "
                             "frame on the CPU, which more frames take from a server on the same machine "
                             "(default: %(default)s)")
    parser.add_argument("--speed", type=float_in(MIN_SPEED, MAX_SPEED), default=1.0,
                        help=f"a recording's playback speed as a real-time factor, from {MIN_SPEED:g} to "
                             f"{MAX_SPEED:g}; the page changes it (default: %(default)s)")
    parser.add_argument("--wait", type=float_in(0.1, MAX_SECONDS, unit="s"), default=10.0, metavar="SECONDS",
                        help="how long to wait for a live server's scene before giving up (--foxglove says so and "
                             "goes on waiting) (default: %(default)s)")
    parser.add_argument("--quiet-after", type=float_in(0.1, MAX_SECONDS, unit="s"), default=2.0, metavar="SECONDS",
                        help="say that a live stream stopped after this long without a state; the view stays on "
                             "the last one (default: %(default)s)")
    parser.add_argument("--duration", type=float_in(0.1, MAX_SECONDS, unit="s"), default=None, metavar="SECONDS",
                        help="close the view after this many seconds (default: until Ctrl-C, SIGTERM or the "
                             "viewer's window is closed)")
    add_client_flags(parser, answered=False)


def web_host_and_port(text: str, allow_remote: bool, flag: str = "--web-addr", example: str = DEFAULT_WEB_ADDR,
                      served: str = "the page") -> tuple[str, int, str | None]:
    """HOST and PORT of --web-addr (or `flag`) under the bind policy of `coupler serve --addr` (loopback unless
    `allow_remote`), and the warning for a remote one; coupler.Error naming the problem."""
    host, colon, port = text.rpartition(":")
    host = host.strip("[]")
    if not colon or not host or not port.isdigit() or int(port) > 65535:
        raise Error(f"{flag} '{text[:200]}' is not HOST:PORT with a port from 0 to 65535, e.g. {example}")
    if is_loopback(host):
        return host, int(port), None
    if not allow_remote:
        raise Error(f"refusing {flag} {text[:200]}: it is reachable from other machines; use 127.0.0.1:PORT, "
                    "or pass --allow-remote to listen there on purpose")
    warning = (f"{flag} {text[:200]} is reachable from other machines and {served} has no authentication: "
               "anyone who can reach it sees the run")
    return host, int(port), warning


def _front_end(args: argparse.Namespace) -> str:
    from coupler.view.display import has_display

    if args.foxglove:
        return "foxglove"
    if args.native and not has_display():
        raise Error("no display to open MuJoCo's viewer on ($DISPLAY is not set): use --web for the browser view")
    if args.web or args.native:
        return "web" if args.web else "native"
    return "native" if has_display() else "web"


def _say(line: str) -> None:
    print(f"coupler view: {line}", file=sys.stderr, flush=True)


def _source(args: argparse.Namespace) -> str:
    """What to watch: --addr or the recording, exactly one; coupler.Error in one line otherwise."""
    if args.addr is not None and args.recording is not None:
        raise Error("watch either a live server (--addr) or a recording, not both")
    if args.recording is not None and "://" in args.recording:
        raise Error(f"{args.recording[:200]!r} is an address: a live server's publish address goes in --addr "
                    "(coupler view --addr ADDRESS)")
    if args.addr is None and args.recording is None:
        raise Error("nothing to watch: give a live server's publish address (--addr) or a recording")
    return args.addr if args.addr is not None else args.recording


def run(args: argparse.Namespace) -> int:
    front = _front_end(args)
    args.source = _source(args)
    live = args.addr is not None
    if front == "foxglove":
        return _serve_foxglove(args, live)
    if front == "web":
        host, port, warning = web_host_and_port(args.web_addr, args.allow_remote)
        if warning:
            _say(warning)
    if live:
        check_connect_address(args.source)
        transport = client_options(args)
    else:
        existing_recording(Path(args.source))
    with needs_extra("coupler view", "view"):
        from coupler.view.live_stream import LiveStream
        from coupler.view.recorded_run import RecordedRun
        from coupler.view.view_source import LiveSource, RecordingSource

        if front == "web":
            from coupler.view.web_view import WebView
        else:
            from coupler.view.native_view import NativeView
    stream = None
    if live:
        stream = LiveStream(args.source, transport, quiet_after=args.quiet_after)
        try:
            stream.wait_for_scene(args.wait)
        except KeyboardInterrupt:  # Ctrl-C while waiting: nothing was shown, nothing to summarise
            stream.close()
            return 130
        except Error:
            stream.close()
            raise
        source = LiveSource(stream)
    else:
        recorded = RecordedRun(Path(args.source))  # what it cannot show is its status, said as the view opens
        source = RecordingSource(recorded, args.speed)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    try:
        if front == "web":
            view = WebView(source, host, port)
            print(f"viewing {source.name} at {view.url} (Ctrl-C to stop)", flush=True)
        else:
            view = NativeView(source)
            print(f"viewing {source.name} in MuJoCo's viewer (close it or Ctrl-C to stop)", flush=True)
        try:
            counts = view.run(stop, args.fps, args.duration, on_status=_say)
        finally:
            view.close()
    finally:
        if stream is not None:
            stream.close()
    line = f"view: {counts.summary()}"
    if stream is not None:
        line += f", of {stream.received} states received ({stream.lost} dropped for this view)"
    print(line, flush=True)
    return 0


def _serve_foxglove(args: argparse.Namespace, live: bool) -> int:
    if not live:
        raise Error(f"--foxglove serves a live stream; open the recording {args.source[:200]} in Foxglove itself "
                    "(Open local file): it holds the same channels")
    host, port, warning = web_host_and_port(args.foxglove_addr, args.allow_remote, "--foxglove-addr",
                                            DEFAULT_FOXGLOVE_ADDR, served="Foxglove's WebSocket server")
    if warning:
        _say(warning)
    check_connect_address(args.source)
    transport = client_options(args)
    with needs_extra("coupler view --foxglove", "foxglove"):
        from coupler.view.foxglove_bridge import FoxgloveBridge
    bridge = FoxgloveBridge(args.source, transport, host, port)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    try:
        print(f"serving {bridge.shown_address} to Foxglove at {bridge.url}: in Foxglove, Open connection, "
              "Foxglove WebSocket, that URL (Ctrl-C to stop)", flush=True)
        counts = bridge.run(stop, args.fps, args.duration, on_status=_say, wait=args.wait)
    finally:
        bridge.close()
    print(f"view: {counts.summary(bridge.feed.ignored)}", flush=True)
    return 0
