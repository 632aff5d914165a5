"""The MuJoCo states of a batched server's worlds (`coupler serve --worlds N`), published after each step: one
`coupler.record.v1.MujocoState` per world on the state channel, its `world` field naming the world.

World 0's state is written as a server of one world writes its own (the
field left out, as proto3 leaves out a zero), so a reader that knows nothing
of worlds sees world 0's run. The other worlds' states carry no simulated
time of their own in the stream's header: a recording's timeline (`--log-time
sim`) follows world 0, whose answers carry it too.
"""

from __future__ import annotations

from typing import Any

from coupler.record.state_frame import encode_data_state


def encode_world_state(world: int, data: Any, step: int) -> bytes:
    """The serialized MujocoState of world `world`, whose mjData is `data`, after server step `step`."""
    return encode_data_state(data, step, world)


def world_datas(simulation: Any) -> list[Any] | None:
    """Every world's mjData, in world order, of a batched server's simulation; None for any other simulation."""
    batch = getattr(getattr(simulation, "worlds", None), "worlds", None)
    if batch is None:
        return None
    return [world.data for world in batch]
