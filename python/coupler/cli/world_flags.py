"""The batched-worlds flags of `coupler serve`: `--worlds N` copies of the scene, stepped on `--threads T`, answering
with `--world-data` arrays too."""

from __future__ import annotations

import argparse

from coupler.wire.world_frames import world_control_bytes
from coupler.serve.batched_worlds import MAX_WORLDS, BatchedResponder, WorldsSimulation
from coupler.serve.simulation import Simulation
from coupler.cli.number_flags import int_in
from coupler.wire.errors import Error

MAX_THREADS = 256


def add_world_flags(parser: argparse.ArgumentParser, worlds: int | None, threads: int) -> None:
    """--worlds and --threads, whose defaults are `worlds` and `threads` (ServeOptions')."""
    parser.add_argument("--worlds", type=int_in(1, MAX_WORLDS), default=worlds, metavar="N",
                        help=f"serve N independent copies of the scene (1 to {MAX_WORLDS}; MuJoCo scenes, lockstep, "
                             "one controller): the 'worlds' extension drives and reads them all with one Control and "
                             "one Sensor; every other request speaks of world 0 (default: one world, without the "
                             "extension)")
    parser.add_argument("--threads", type=int_in(1, MAX_THREADS), default=threads, metavar="T",
                        help=f"step the --worlds on T threads (1 to {MAX_THREADS}), each a contiguous share of "
                             "them (default: %(default)s)")
    parser.add_argument("--world-data", type=_names, default=(), metavar="NAMES",
                        help="comma-separated arrays of MuJoCo's mjData (such as qpos,qvel,xpos,cfrc_ext) sent with "
                             "every world's readings in the answer to a Control for every world, each read right after "
                             "the world's step (after mj_rnePostConstraint for cacc, cfrc_int and cfrc_ext) or reset, "
                             "as Gymnasium's MuJoCo environments read them (default: none)")


def _names(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise argparse.ArgumentTypeError("give at least one mjData array name, such as cfrc_ext")
    return names


def check_world_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse, through `parser.error`, world flags that do not go with the others."""
    if args.worlds is None:
        if args.threads != 1:
            parser.error("--threads steps the worlds of --worlds; give --worlds too")
        if args.world_data:
            parser.error("--world-data is sent with the answers of --worlds; give --worlds too")
        return
    if args.mode != "lockstep":
        parser.error("--worlds needs --mode lockstep: the worlds step when their Control arrives")
    if args.controllers != 1:
        parser.error("--worlds takes one controller: a Control for every world drives the whole scene")


def batched(simulation: Simulation, worlds: int, threads: int, max_frame_bytes: int = 0,
            data_names: tuple[str, ...] = ()) -> WorldsSimulation:
    """The simulation to serve for `--worlds`: `simulation` as world 0 of a batch. Error for a scene not MuJoCo's,
    or whose Control for every world would exceed the server's `max_frame_bytes` (0: no limit)."""
    # Imported here: importing MuJoCo fixes its OpenGL backend, which `coupler render` chooses before it does.
    from coupler.mujoco.simulation import MujocoSimulation
    from coupler.mujoco.world_batch import WorldBatch

    if not isinstance(simulation, MujocoSimulation):
        raise Error("--worlds needs a MuJoCo scene (an MJCF file or a shipped MuJoCo scene)")
    flat = simulation.flat.controls
    control = world_control_bytes(worlds, flat.values.size + flat.events_on.size)
    if max_frame_bytes and control > max_frame_bytes:
        raise Error(f"--worlds {worlds}: a Control for every world takes up to {control} bytes, beyond "
                    f"--max-frame-bytes {max_frame_bytes}: raise it to at least {control}")
    return WorldsSimulation(WorldBatch(simulation, worlds, threads, data_names))


__all__ = ["BatchedResponder", "add_world_flags", "batched", "check_world_flags"]
