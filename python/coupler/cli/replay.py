"""`coupler replay`: re-drive a server with a recording's requests and compare every answer bit for bit.

    coupler replay run.mcap --scene recorded     # start a server of the recorded scene
    coupler replay run.mcap --addr tcp://127.0.0.1:5555
    coupler replay run.mcap --scene recorded --world 3   # compare world 3's answers of a --worlds recording
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from coupler.cli.transport_flags import add_client_flags, client_options
from coupler.cli.recording_file import existing_recording
from coupler.cli.world_choice import add_world_choice
from coupler.wire.errors import Error
from coupler.wire.missing_extra import needs_extra


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("recording", type=Path, help="the MCAP file written by `coupler serve --record`")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--addr", default=None,
                       help="address of a running server to re-drive (default: none; one of --addr, --scene)")
    where.add_argument("--scene", default=None,
                       help="start a server of this scene for the replay: 'recorded' for the recording's own scene "
                            "(its model is in the recording), a shipped scene name or an MJCF path (default: none)")
    add_world_choice(parser, default="every world's answers compared whole")
    add_client_flags(parser)


def run(args: argparse.Namespace) -> int:
    with needs_extra("coupler replay", "record"):
        from coupler.record.recording import Recording
        from coupler.record.replay import replay
        from coupler.record.replay_server import recorded_scene, scene_server
        from coupler.record.world_recording import check_world
    existing_recording(args.recording)
    if args.world is not None:
        check_world(args.recording, args.world)
    transport = client_options(args)
    if args.addr is not None:
        result = replay(str(args.recording), args.addr, args.timeout, transport, args.world)
    else:
        with tempfile.TemporaryDirectory(prefix="coupler-replay-scene-") as folder:
            scene, flags = recorded_scene(Recording(args.recording), Path(folder))
            if args.scene != "recorded":
                scene = args.scene
            with scene_server(scene, flags) as address:
                result = replay(str(args.recording), address, args.timeout, world=args.world)
    if result.ended_early is not None:
        print(f"{args.recording} {result.ended_early} (was its writer killed?)")
    print(result)
    if result.divergence is None and result.steps == 0:
        raise Error(f"{args.recording} holds no Control answered: nothing was replayed, nothing is identical")
    return 0 if result.divergence is None else 1
